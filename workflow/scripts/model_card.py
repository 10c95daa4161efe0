import pandas as pd

from stsynth.logs import log_to
from stsynth.model_card import model_card, release_folder

log = log_to(snakemake.log[0])
run = snakemake.wildcards.card_run
facts = dict(snakemake.params.facts[run])
if chosen := facts.pop("chosen_settings", None):  # a head run: the settings its dev search chose, from the head
    from stsynth.head import load

    facts["settings"] = {**facts["settings"], **load(chosen)[1]["settings"]}
card = model_card(run, scores=pd.read_parquet(snakemake.input.scores), **facts)
model = snakemake.input.model  # a model folder, or a head run's files
release_folder(model if isinstance(model, str) else list(model), snakemake.output[0], card)
log.info("%s: %s with its model card (%d characters)", snakemake.output[0], snakemake.input.model, len(card))
