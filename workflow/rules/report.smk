# The reports (stsynth.results.report): results/report.md + results/report/*.png (`all`: the headline runs) and
# results/studies.md + results/studies/*.png (`studies`: how the settings were chosen), and the
# captions of `snakemake --report results/report.html`. They read what every stage above wrote.


report: "../report/workflow.rst"


rule model_card:
    """A run's model (paragram export or tuned encoder) released with a model card: base model, training
    data, loss and settings, the run's scores (stsynth.results.model_card)."""
    input:
        model=lambda wc: model_card.model_folder(config, wc.card_run),
        scores=paths.scores_path("{card_run}", "parquet"),
    output:
        directory(paths.release_folder("{card_run}")),
    log:
        paths.log_path("model_card/{card_run}"),
    benchmark:
        paths.benchmark_path("model_card/{card_run}")
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
        # the named encoder its model was fine-tuned from, and that encoder's files (stsynth.core.digests)
        base=lambda wc: get_card_base(wc.card_run),
        code=get_code_digest("model_card.py"),
    script:
        "../scripts/model_card.py"


# This loop makes two rules: `report` (results/report.md, target all) and `studies_report`
# (results/studies.md, target studies).
for _part, _markdown in paths.REPORT_PARTS.items():

    rule:
        name:
            "report" if _part == "results" else "studies_report"
        input:
            unpack(lambda wc, part=_part: stsynth_report_plan.plan_files(get_report_plan(part))),
            requirements=Path(CHECKOUT) / "requirements.txt",
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
            paths.log_path(f"{_part}_report") if _part != "results" else paths.log_path("report"),
        benchmark:
            paths.benchmark_path(f"{_part}_report") if _part != "results" else paths.benchmark_path("report")
        conda:
            ENV
        threads: 1
        resources:
            mem_mb=2000,
            runtime=attempt_minutes(15),
        params:
            plan=lambda wc, part=_part: get_report_plan(part),
            settings=config["report"],
            translate=TRANSLATION_ENGINE,  # engine settings only: the cache path and chunk size do not show
            seeds=stsynth_report_plan.seeds(config),
            threshold=plan.sweep_threshold(config),
            benchmark_patterns=lambda wc: [(r.name, str(r.benchmark)) for r in workflow.rules if r.benchmark],
            # the rules Snakemake's between-workflow cache serves (`cache: True`; every rule has a RuleCache, whose
            # `output` flag says it): no benchmark file (Snakemake allows none), their times are from the log
            cached_rules=lambda wc: sorted(r.name for r in workflow.rules if r.cache is not None and r.cache.output),
            # each named encoder -> its files' identity (stsynth.core.digests), for the provenance section
            models=lambda wc: {name: get_model_identity(name) for name in ENCODER["models"]},
            code=get_code_digest("report.py"),
        script:
            "../scripts/report.py"
