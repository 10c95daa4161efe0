import json

from stsynth.core.logs import log_to
from stsynth.core.paths import EVAL_MTEB_CACHE
from stsynth.eval import evaluation, mteb_results

log = log_to(snakemake.log[0])
tasks = snakemake.params.tasks
pairs, similarity = evaluation.read_task_tables(tasks, snakemake.input.pairs, snakemake.input.tables)
with open(snakemake.input.facts) as handle:
    facts = json.load(handle)
# an encoding job's time, shared out over its tasks by their pairs (MTEB times each task on its own)
total = sum(len(table) for table in pairs.values())
results = []
for task, task_keys in tasks.items():
    seconds = facts["encoding_seconds"] * sum(len(pairs[key]) for key in task_keys) / total
    results.append(
        mteb_results.task_result(
            task,
            mteb_results.mteb_scores(task_keys, pairs, similarity),
            pairs[task_keys[0]]["track"].iat[0],
            snakemake.params.revisions[task],
            seconds,
            subset=snakemake.params.subsets[task],
        )
    )
    log.info("%s: main score %.5f", task, results[-1].scores["test"][0]["main_score"])
meta = mteb_results.model_meta(facts["encoder"], snakemake.params.encoder, facts)
mteb_results.save_results(
    EVAL_MTEB_CACHE, results, meta, snakemake.output.results, snakemake.output.meta, facts["model_sha256"]
)
log.info(
    "%s (model files sha256 %s): %d TaskResults and model_meta.json written by mteb",
    facts["encoder"],
    facts["model_sha256"],
    len(results),
)
