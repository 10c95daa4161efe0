# The results report (stsynth.report): results/report.md + results/report/*.png, and the captions
# of `snakemake --report results/report.html`. Included last: it wires in whichever stages exist.
# The module under its own name: rule files share one namespace (fusion.smk has a plan_files too).
import stsynth.report as stsynth_report

_REPORT_SETS = {d: {"year": d.year, "dataset": d.name, "track": d.track, "pairs": pairs_path(d)} for d in DATASETS.values()}
REPORT_PLAN = stsynth_report.report_plan(
    config,
    rules.has,
    [entry for d, entry in _REPORT_SETS.items() if d.role == "test"],
    globals().get("paragram_model"),
    list(_REPORT_SETS.values()),
)


report: "../report/workflow.rst"


rule report:
    """Scores of every run next to the paper's and the shared task's figures, study tables, plots, provenance."""
    input:
        stsynth_report.plan_files(REPORT_PLAN),
        requirements=Path(workflow.basedir) / "requirements.txt",
    output:
        markdown=report("results/report.md", caption="../report/report.rst", category="Report"),
        plots=report(directory("results/report"), patterns=["{name}.png"], caption="../report/plots.rst",
                     category="Plots"),
    params:
        plan=REPORT_PLAN,
        settings=config["report"],
        translate=globals().get("TRANSLATION_ENGINE"),  # engine settings only: the cache path and chunk size do not show
        seeds=stsynth_report.seeds(config),
        paper_threshold=config.get("paraphrase_pairs", {}).get("threshold"),
        benchmark_patterns=[(r.name, str(r.benchmark)) for r in workflow.rules if r.benchmark],
    log:
        "logs/report.log",
    benchmark:
        "benchmarks/report.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=15,
    conda:
        ENV
    script:
        "../scripts/report.py"
