# The fusion regressor (schema: stsynth.fusion): dev search, final fit + run predictions,
# importances, ablation, and the paper's Table 1 on the dev protocol.
include: "fusion_common.smk"


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
