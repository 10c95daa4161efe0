import pandas as pd

from stsynth.logs import log_to
from stsynth.model_card import model_card, release_folder

log = log_to(snakemake.log[0])
run = snakemake.wildcards.card_run
card = model_card(run, scores=pd.read_parquet(snakemake.input.scores), **snakemake.params.facts[run])
release_folder(snakemake.input.model, snakemake.output[0], card)
log.info("%s: %s with its model card (%d characters)", snakemake.output[0], snakemake.input.model, len(card))
