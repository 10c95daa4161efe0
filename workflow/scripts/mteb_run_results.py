import json
from importlib.metadata import version

import pandas as pd

from stsynth import evaluation
from stsynth.logs import log_to

log = log_to(snakemake.log[0])
scores, run = pd.read_parquet(snakemake.input[0]), snakemake.wildcards.run
for (task, keys), output in zip(snakemake.params.tasks.items(), snakemake.output.results, strict=True):
    found = evaluation.run_task_scores(scores, keys)
    if found is None:
        raise ValueError(f"{snakemake.input[0]}: no group of exactly the sets of task {task} ({', '.join(keys)})")
    track, task_scores = found
    result = evaluation.task_result(task, task_scores, track, snakemake.params.revisions[task], 0.0, version("mteb"),
                                    subset=snakemake.params.subsets[task])
    with open(output, "w") as handle:
        json.dump(result, handle, indent=2)
    log.info("%s: %s main score %.5f", run, task, task_scores["main_score"])
name, revision = evaluation.model_identity(run, {})
with open(snakemake.output.meta, "w") as handle:
    json.dump({"name": name, "revision": revision, "loader": "stsynth", "stsynth_run": run}, handle, indent=2)
