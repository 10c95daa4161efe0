# The fusion regressor (schema: stsynth.fusion): dev search, final fit + run predictions,
# importances, ablation, and the paper's Table 1 on the dev protocol.
from stsynth.features import FEATURES

FUSION = config["fusion"]
FUSION_RUNS = FUSION["runs"]  # run -> feature groups

for _group, _names in FUSION["groups"].items():
    for _name in _names:
        if _name not in FEATURES and _name not in FUSION["paragram"] and _name != "encoder":
            raise ValueError(f"config.yaml: fusion group {_group} names {_name!r}, which is no feature "
                             f"(stsynth.features.FEATURES), paragram feature (fusion.paragram) or 'encoder'")
for _run, _groups in FUSION_RUNS.items():
    for _group in _groups:
        if _group not in FUSION["groups"]:
            raise ValueError(f"config.yaml: fusion run {_run} uses group {_group!r}, not declared in fusion.groups")


def fusion_features(run):
    """Feature names of a run, in group order."""
    return [name for group in FUSION_RUNS[run] for name in FUSION["groups"][group]]


def fusion_plan(run, datasets, protocol, out_of_fold):
    """What the fusion reads for each dataset: pairs, features, encoder cosines (if the run uses
    them) and per paragram feature the cosines of its `protocol` model (final or dev), or with
    out_of_fold the k fold models' (k = fusion.folds; 0 means in-sample)."""
    names = fusion_features(run)
    folds = FUSION["folds"] if out_of_fold else 0
    plan = []
    for d in datasets:
        paragram = {}
        for feature, models in FUSION["paragram"].items():
            if feature in names:
                model = models[protocol]
                paragram[feature] = ([f"resources/similarity/{model}.fold{i}of{folds}/{d.year}/{d.name}.parquet"
                                      for i in range(folds)] if folds else
                                     [f"resources/similarity/{model}/{d.year}/{d.name}.parquet"])
        plan.append({"year": d.year, "dataset": d.name, "pairs": pairs_path(d), "features": f"resources/features/{d.year}/{d.name}.parquet",
                     "encoder": f"resources/encoder/{d.year}/{d.name}.parquet" if "encoder" in names else None,
                     "paragram": paragram})
    return plan


def fusion_plans(run):
    """The four splits: dev_train (2012-2014, out of fold), dev_validate (2015, dev models),
    train (all training years, out of fold) and test (2016, final models)."""
    train = datasets_with(role="train")
    return {
        "dev_train": fusion_plan(run, [d for d in train if d.year in FUSION["dev"]["train_years"]], "dev", True),
        "dev_validate": fusion_plan(run, [d for d in train if d.year in FUSION["dev"]["validate_years"]], "dev", False),
        "train": fusion_plan(run, train, "final", True),
        "test": fusion_plan(run, datasets_with(role="test"), "final", False),
    }


def fusion_plan_files(*plans):
    files = []
    for plan in plans:
        for entry in plan:
            files += [entry["pairs"], entry["features"], *([entry["encoder"]] if entry["encoder"] else [])]
            files += [path for paths in entry["paragram"].values() for path in paths]
    return sorted(set(files))


wildcard_constraints:
    fusion_run=_alternatives(FUSION_RUNS),


rule fusion_dev:
    """Hyperparameter grid on the dev protocol: fit on 2012-2014, Pearson on the 2015 sets."""
    input:
        lambda wc: fusion_plan_files(*(fusion_plans(wc.fusion_run)[k] for k in ("dev_train", "dev_validate"))),
    output:
        table="results/fusion/{fusion_run}/dev.parquet",
        markdown="results/fusion/{fusion_run}/dev.md",
    params:
        plans=lambda wc: fusion_plans(wc.fusion_run),
        features=lambda wc: fusion_features(wc.fusion_run),
        settings=FUSION,
    log:
        "logs/fusion/{fusion_run}/dev.log",
    benchmark:
        "benchmarks/fusion/{fusion_run}/dev.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=120,
    conda:
        ENV
    script:
        "../scripts/fusion_dev.py"


rule fusion_fit:
    """Final fit on every gold pair of 2012-2015 with the dev-chosen hyperparameters; the run's
    predictions, the model as plain arrays, Gini importances (table and plot)."""
    input:
        plan_files=lambda wc: fusion_plan_files(*(fusion_plans(wc.fusion_run)[k] for k in ("train", "test"))),
        dev="results/fusion/{fusion_run}/dev.parquet",
    output:
        predictions=[predictions_path("{fusion_run}", d) for d in datasets_with(role="test")],
        model="results/fusion/{fusion_run}/model.npz",
        importances="results/fusion/{fusion_run}/importances.parquet",
        plot="results/fusion/{fusion_run}/importances.png",
    params:
        plans=lambda wc: fusion_plans(wc.fusion_run),
        features=lambda wc: fusion_features(wc.fusion_run),
        settings=FUSION,
    log:
        "logs/fusion/{fusion_run}/fit.log",
    benchmark:
        "benchmarks/fusion/{fusion_run}/fit.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=60,
    conda:
        ENV
    script:
        "../scripts/fusion_fit.py"


def fusion_in_sample_plans(run):
    """The train splits with in-sample paragram cosines, for the ablation's in-sample row."""
    train = datasets_with(role="train")
    return {"train": fusion_plan(run, train, "final", False),
            "dev_train": fusion_plan(run, [d for d in train if d.year in FUSION["dev"]["train_years"]], "dev", False)}


def fusion_uses_folds(run):
    return FUSION["folds"] > 0 and any(f in fusion_features(run) for f in FUSION["paragram"])


rule fusion_ablation:
    """Each feature group removed in turn (and in-sample paragram cosines when folds are used)."""
    input:
        plan_files=lambda wc: fusion_plan_files(*fusion_plans(wc.fusion_run).values(),
                                         *(fusion_in_sample_plans(wc.fusion_run).values()
                                           if fusion_uses_folds(wc.fusion_run) else [])),
        dev="results/fusion/{fusion_run}/dev.parquet",
    output:
        table="results/fusion/{fusion_run}/ablation.parquet",
        markdown="results/fusion/{fusion_run}/ablation.md",
    params:
        plans=lambda wc: fusion_plans(wc.fusion_run),
        in_sample=lambda wc: fusion_in_sample_plans(wc.fusion_run) if fusion_uses_folds(wc.fusion_run) else None,
        features=lambda wc: fusion_features(wc.fusion_run),
        settings=FUSION,
    log:
        "logs/fusion/{fusion_run}/ablation.log",
    benchmark:
        "benchmarks/fusion/{fusion_run}/ablation.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=120,
    conda:
        ENV
    script:
        "../scripts/fusion_ablation.py"


def dev_table_inputs(wc):
    run = FUSION["dev_table"]["run"]
    validate = [d for d in datasets_with(role="train") if d.year in FUSION["dev"]["validate_years"]]
    return {
        "plan_files": fusion_plan_files(*(fusion_plans(run)[k] for k in ("dev_train", "dev_validate"))),
        "dev": f"results/fusion/{run}/dev.parquet",
        "similarity": [f"resources/similarity/{model}/{d.year}/{d.name}.parquet"
                       for model in FUSION["dev_table"]["paragram_models"] for d in validate],
    }


rule fusion_dev_table:
    """Paper Table 1 on the 2015 sets: features only vs paragram cosines vs features + paragram."""
    input:
        unpack(dev_table_inputs),
    output:
        table="results/fusion/dev_table.parquet",
        markdown="results/fusion/dev_table.md",
    params:
        plans=lambda wc: fusion_plans(FUSION["dev_table"]["run"]),
        features=lambda wc: fusion_features(FUSION["dev_table"]["run"]),
        settings=FUSION,
    log:
        "logs/fusion/dev_table.log",
    benchmark:
        "benchmarks/fusion/dev_table.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=60,
    conda:
        ENV
    script:
        "../scripts/fusion_dev_table.py"
