from pathlib import Path

from stsynth.core.logs import log_to
from stsynth.core.paths import BENCHMARKS
from stsynth.results.report import build_report

log = log_to(snakemake.log[0])
markdown_path = Path(snakemake.output.markdown)
plots_dir = Path(snakemake.output.plots)
markdown = build_report(
    snakemake.params.plan,
    snakemake.params.settings,
    plots_dir,
    link_prefix=plots_dir.relative_to(markdown_path.parent).as_posix(),
    requirements=Path(snakemake.input.requirements).read_text(),
    translate=snakemake.params.translate,
    seed_values=snakemake.params.seeds,
    benchmark_dir=BENCHMARKS,
    benchmark_patterns=snakemake.params.benchmark_patterns,
    cached_rules=snakemake.params.cached_rules,
    basedir=str(Path(snakemake.input.requirements).parent),  # requirements.txt sits at the checkout's root
    threshold=snakemake.params.threshold,
    models=snakemake.params.models,
    log=log,
)
markdown_path.write_text(markdown)
log.info("wrote %s (%d lines) and %d plots", markdown_path, markdown.count("\n"), len(list(plots_dir.glob("*.png"))))
