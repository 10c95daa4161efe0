import json

import pandas as pd

from stsynth import evaluation
from stsynth.logs import log_to
from stsynth.plots import plot_leaderboard

log = log_to(snakemake.log[0])
models = {}
for path in snakemake.input.facts:
    with open(path) as handle:
        facts = json.load(handle)
    models[facts["encoder"]] = facts["model_name"]
board = evaluation.leaderboard([pd.read_parquet(path) for path in snakemake.input.scores], models)
board.to_parquet(snakemake.output.table, index=False)
with open(snakemake.output.markdown, "w") as handle:
    handle.write(evaluation.leaderboard_markdown(board))
plot_leaderboard(board, snakemake.output.plot)
log.info("leaderboard: %d encoders", len(board))
