# The results report (stsynth.report): results/report.md + results/report/*.png, and the captions
# of `snakemake --report results/report.html`. It reads what every stage above wrote.


report: "../report/workflow.rst"


rule report:
    """Scores of every run next to the paper's and the shared task's figures, study tables, plots, provenance."""
    input:
        unpack(lambda wc: stsynth_report.plan_files(report_plan())),
        requirements=Path(workflow.basedir) / "requirements.txt",
    output:
        markdown=report("results/report.md", caption="../report/report.rst", category="Report"),
        plots=report(directory("results/report"), patterns=["{name}.png"], caption="../report/plots.rst",
                     category="Plots"),
    params:
        plan=lambda wc: report_plan(),
        settings=config["report"],
        translate=TRANSLATION_ENGINE,  # engine settings only: the cache path and chunk size do not show
        seeds=stsynth_report.seeds(config),
        paper_threshold=config.get("paraphrase_pairs", {}).get("threshold"),
        benchmark_patterns=lambda wc: [(r.name, str(r.benchmark)) for r in workflow.rules if r.benchmark],
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
