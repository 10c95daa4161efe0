import pandas as pd

from stsynth.core.logs import log_to
from stsynth.core.paths import RUN_MTEB_CACHE
from stsynth.eval import mteb_results

log = log_to(snakemake.log[0])
scores, run = pd.read_parquet(snakemake.input[0]), snakemake.wildcards.run
results = []
for task, keys in snakemake.params.tasks.items():
    found = mteb_results.run_task_scores(scores, keys)
    if found is None:
        raise ValueError(f"{snakemake.input[0]}: no group of exactly the sets of task {task} ({', '.join(keys)})")
    track, task_scores = found
    results.append(
        mteb_results.task_result(
            task, task_scores, track, snakemake.params.revisions[task], 0.0, subset=snakemake.params.subsets[task]
        )
    )
    log.info("%s: %s main score %.5f", run, task, task_scores["main_score"])
mteb_results.save_results(
    RUN_MTEB_CACHE, results, mteb_results.model_meta(run, {}), snakemake.output.results, snakemake.output.meta
)
