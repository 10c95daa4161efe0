import json

import pandas as pd

from stsynth.core.logs import log_to
from stsynth.core.paths import EVAL_MTEB_CACHE
from stsynth.eval import mteb_results
from stsynth.results.plots import plot_leaderboard

log = log_to(snakemake.log[0])
facts = {}
for path in snakemake.input.facts:
    with open(path) as handle:
        fact = json.load(handle)
    facts[fact["encoder"]] = fact
# the main scores as mteb reads them back (snakemake.input.mteb: the TaskResult files it loads)
mains = mteb_results.mteb_main_scores(EVAL_MTEB_CACHE, list(facts.values()))
board = mteb_results.leaderboard([pd.read_parquet(path) for path in snakemake.input.scores], facts, mains)
board.to_parquet(snakemake.output.table, index=False)
with open(snakemake.output.markdown, "w") as handle:
    handle.write(mteb_results.leaderboard_markdown(board))
plot_leaderboard(board, snakemake.output.plot)
log.info("leaderboard: %d encoders", len(board))
