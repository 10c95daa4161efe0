from stsynth.core.logs import log_to
from stsynth.core.scoring import score_sets, scores_markdown
from stsynth.eval import evaluation

log = log_to(snakemake.log[0])
tasks, bootstrap = snakemake.params.tasks, snakemake.params.bootstrap
pairs, similarity = evaluation.read_task_tables(tasks, snakemake.input.pairs, snakemake.input.tables)
encoder = snakemake.wildcards.encoder
scores = score_sets(encoder, evaluation.task_sets(tasks, pairs, similarity, snakemake.params.similarity), bootstrap)
scores.to_parquet(snakemake.output.table, index=False)
with open(snakemake.output.markdown, "w") as handle:
    handle.write(scores_markdown(scores, bootstrap["confidence"]))
log.info("%s: %d tasks, %d sets scored", encoder, len(tasks), len(pairs))
