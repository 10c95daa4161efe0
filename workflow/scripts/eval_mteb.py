import json
from importlib.metadata import version

from stsynth import evaluation
from stsynth.logs import log_to

log = log_to(snakemake.log[0])
tasks = snakemake.params.tasks
pairs, similarity = evaluation.read_task_tables(tasks, snakemake.input.pairs, snakemake.input.tables)
with open(snakemake.input.facts) as handle:
    facts = json.load(handle)
meta_keys = ("name", "revision", "framework", "similarity_fn_name", "embed_dim", "max_tokens", "loader", "stsynth_encoder")
mteb_version = version("mteb")
# an encoding job's time, shared out over its tasks by their pairs (MTEB times each task on its own)
total = sum(len(table) for table in pairs.values())
for (task, task_keys), output in zip(tasks.items(), snakemake.output.results, strict=True):
    seconds = facts["encoding_seconds"] * sum(len(pairs[key]) for key in task_keys) / total
    result = evaluation.task_result(task, evaluation.mteb_scores(task_keys, pairs, similarity),
                                    pairs[task_keys[0]]["track"].iat[0], snakemake.params.revisions[task],
                                    seconds, mteb_version, subset=snakemake.params.subsets[task])
    with open(output, "w") as handle:
        json.dump(result, handle, indent=2)
    log.info("%s: main score %.5f", output, result["scores"]["test"][0]["main_score"])
with open(snakemake.output.meta, "w") as handle:
    json.dump({key: facts[key] for key in meta_keys}, handle, indent=2)
