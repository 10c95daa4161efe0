# Fusion helpers (rules in fusion.smk): run feature lists and the per-dataset read plans.
from stsynth.encoder import ENCODER_FEATURES

FUSION = config["fusion"]
FUSION_RUNS = FUSION["runs"]  # run -> feature groups

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
                     "encoder": f"resources/encoder/{d.year}/{d.name}.parquet" if set(names) & set(ENCODER_FEATURES) else None,
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


def fusion_in_sample_plans(run):
    """The train splits with in-sample paragram cosines, for the ablation's in-sample row."""
    train = datasets_with(role="train")
    return {"train": fusion_plan(run, train, "final", False),
            "dev_train": fusion_plan(run, [d for d in train if d.year in FUSION["dev"]["train_years"]], "dev", False)}


def fusion_uses_folds(run):
    return FUSION["folds"] > 0 and any(f in fusion_features(run) for f in FUSION["paragram"])


def dev_table_inputs(wc):
    run = FUSION["dev_table"]["run"]
    validate = [d for d in datasets_with(role="train") if d.year in FUSION["dev"]["validate_years"]]
    return {
        "plan_files": fusion_plan_files(*(fusion_plans(run)[k] for k in ("dev_train", "dev_validate"))),
        "dev": f"results/fusion/{run}/dev.parquet",
        "similarity": [f"resources/similarity/{model}/{d.year}/{d.name}.parquet"
                       for model in FUSION["dev_table"]["paragram_models"] for d in validate],
    }
