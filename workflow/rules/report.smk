# The reports (stsynth.report): results/report.md + results/report/*.png (`all`: the headline runs) and
# results/studies.md + results/studies/*.png (`studies`: how the settings were chosen), and the
# captions of `snakemake --report results/report.html`. They read what every stage above wrote.


report: "../report/workflow.rst"


for _part, _markdown in stsynth_report.REPORT_PARTS.items():

    rule:
        name:
            "report" if _part == "results" else "studies_report"
        input:
            unpack(lambda wc, part=_part: stsynth_report.plan_files(report_plan(part))),
            requirements=Path(workflow.basedir) / "requirements.txt",
        output:
            markdown=report(_markdown, caption=f"../report/{'report' if _part == 'results' else 'studies'}.rst",
                            category="Report"),
            plots=report(directory(_markdown.removesuffix(".md")), patterns=["{name}.png"],
                         caption="../report/plots.rst", category="Plots"),
        params:
            plan=lambda wc, part=_part: report_plan(part),
            settings=config["report"],
            translate=TRANSLATION_ENGINE,  # engine settings only: the cache path and chunk size do not show
            seeds=stsynth_report.seeds(config),
            threshold=config["paraphrase_pairs"]["threshold"],
            benchmark_patterns=lambda wc: [(r.name, str(r.benchmark)) for r in workflow.rules if r.benchmark],
        log:
            f"logs/{_part}_report.log" if _part != "results" else "logs/report.log",
        benchmark:
            f"benchmarks/{_part}_report.tsv" if _part != "results" else "benchmarks/report.tsv"
        threads: 1
        resources:
            mem_mb=2000,
            runtime=15,
        conda:
            ENV
        script:
            "../scripts/report.py"
