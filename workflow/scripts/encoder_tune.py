import pandas as pd

from stsynth.core.device import resolve_device
from stsynth.core.logs import log_to
from stsynth.core.threads import use_threads
from stsynth.encoders.cross import CROSS_LOSSES, load_cross_encoder
from stsynth.encoders.encoder import embedding_settings, job_folder, open_job_encoder, opened_identity
from stsynth.encoders.lower_layers import layer_store
from stsynth.encoders.tuning import train, training_pairs

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
settings, start_entry = snakemake.params.settings, snakemake.params.start
gold = [pd.read_parquet(path) for path in snakemake.input.gold]
tables = [pd.read_parquet(path) for path in snakemake.input.pairs]
for path, table in [*zip(snakemake.input.gold, gold), *zip(snakemake.input.pairs, tables)]:
    log.info("%s: %d rows, %d with gold", path, len(table), table["gold"].notna().sum())
pairs = training_pairs(settings, gold, tables)
if pairs.empty:
    raise ValueError(
        f"tuned encoder {snakemake.wildcards.tuned}: no training pairs (encoder.tuning.models: "
        f"loss {settings['loss']!r} reads {'gold_years' if settings['loss'] != 'mnrl' else 'pairs'})"
    )
log.info("settings: %s; %d training pairs", settings, len(pairs))
if settings["loss"] in CROSS_LOSSES:  # the start encoder's transformer under a new head (stsynth.encoders.cross)
    folder = job_folder(start_entry, snakemake.input.encoder_folder)
    opened_identity(folder, snakemake.params.model)
    model = load_cross_encoder(
        folder, snakemake.params.max_length, resolve_device(snakemake.config["device"]), True, settings["seed"]
    )
else:
    model, folder, identity = open_job_encoder(
        start_entry,
        snakemake.input.encoder_folder,
        snakemake.params.model,
        snakemake.params.max_length,
        snakemake.config["device"],
    )
dev_sets = [
    ((int(table["year"].iat[0]), str(table["dataset"].iat[0])), table)
    for table in (pd.read_parquet(path) for path in snakemake.input.dev)
]
# frozen_layers: the start model's states after layer k, kept by content beside the embedding store
frozen = settings.get("frozen_layers", 0)
states_store = (
    layer_store(snakemake.config, identity, frozen, embedding_settings(start_entry, model), {"start": str(folder)})
    if frozen
    else None
)
epochs = train(model, pairs, settings, dev_sets, states_store)
model.save(snakemake.output.model)
epochs.to_parquet(snakemake.output.epochs, index=False)
log.info("epochs:\n%s", epochs.to_string(index=False))
