import pandas as pd

from stsynth.core.digests import files_digest, folder_digest
from stsynth.core.logs import log_to
from stsynth.core.model_files import stored_settings
from stsynth.results.model_card import model_card, release_folder

log = log_to(snakemake.log[0])
run = snakemake.wildcards.card_run
facts = dict(snakemake.params.facts[run])
if chosen := facts.pop("chosen_settings", None):  # a head run: the settings its dev search chose, from the head
    facts["settings"] = {**facts["settings"], **stored_settings(chosen)["settings"]}
model = snakemake.input.model  # a model folder, or a head run's files
identity = {f"this model ({run})": folder_digest(model) if isinstance(model, str) else files_digest(list(model))}
if snakemake.params.base:  # the named encoder it was fine-tuned from: (name, the digest its tuning was planned with)
    identity[f"base encoder ({snakemake.params.base[0]})"] = snakemake.params.base[1]
card = model_card(run, scores=pd.read_parquet(snakemake.input.scores), identity=identity, **facts)
release_folder(model if isinstance(model, str) else list(model), snakemake.output[0], card)
log.info("%s: %s with its model card (%d characters)", snakemake.output[0], snakemake.input.model, len(card))
