# The reports (stsynth.report): results/report.md + results/report/*.png (`all`: the headline runs) and
# results/studies.md + results/studies/*.png (`studies`: how the settings were chosen), and the
# captions of `snakemake --report results/report.html`. They read what every stage above wrote.


report: "../report/workflow.rst"


rule model_card:
    """A run's model (paragram export or tuned encoder) released with a model card: base model, training
    data, loss and settings, the run's scores (stsynth.model_card)."""
    input:
        model=lambda wc: model_card.model_folder(config, wc.card_run),
        scores=paths.scores_path("{card_run}", "parquet"),
    output:
        directory(paths.release_folder("{card_run}")),
    log:
        "logs/model_card/{card_run}.log",
    benchmark:
        "benchmarks/model_card/{card_run}.tsv"
    wildcard_constraints:
        card_run=_alternatives(CARD_FACTS),
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=attempt_minutes(5),
    params:
        facts=CARD_FACTS,  # every run's, as one plain dict: the rerun trigger sees a change in any
        # the named encoder its model was fine-tuned from, and that encoder's files (stsynth.digests)
        base=lambda wc: card_base(wc.card_run),
    script:
        "../scripts/model_card.py"


# This loop makes two rules: `report` (results/report.md, target all) and `studies_report`
# (results/studies.md, target studies).
for _part, _markdown in paths.REPORT_PARTS.items():

    rule:
        name:
            "report" if _part == "results" else "studies_report"
        input:
            unpack(lambda wc, part=_part: stsynth_report_plan.plan_files(report_plan(part))),
            requirements=Path(workflow.basedir) / "requirements.txt",
            published=paths.PUBLISHED_FIGURES,  # the papers' figures the report shows beside ours
        output:
            markdown=report(
                _markdown, caption=f"../report/{'report' if _part == 'results' else 'studies'}.rst", category="Report"
            ),
            plots=report(
                directory(_markdown.removesuffix(".md")),
                patterns=["{name}.png"],
                caption="../report/plots.rst",
                category="Plots",
            ),
        log:
            f"logs/{_part}_report.log" if _part != "results" else "logs/report.log",
        benchmark:
            f"benchmarks/{_part}_report.tsv" if _part != "results" else "benchmarks/report.tsv"
        conda:
            ENV
        threads: 1
        resources:
            mem_mb=2000,
            runtime=attempt_minutes(15),
        params:
            plan=lambda wc, part=_part: report_plan(part),
            settings=config["report"],
            translate=TRANSLATION_ENGINE,  # engine settings only: the cache path and chunk size do not show
            seeds=stsynth_report_plan.seeds(config),
            threshold=plan.sweep_threshold(config),
            benchmark_patterns=lambda wc: [(r.name, str(r.benchmark)) for r in workflow.rules if r.benchmark],
            # each named encoder -> its files' identity (stsynth.digests), for the provenance section
            models=lambda wc: {name: model_identity(name) for name in ENCODER["models"]},
        script:
            "../scripts/report.py"
