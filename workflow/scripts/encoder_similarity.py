import time

import pandas as pd

from stsynth.core.logs import log_to
from stsynth.core.pairs import encoded_lines
from stsynth.core.progress import Progress
from stsynth.core.threads import use_threads
from stsynth.encoders.cross import cross_table, is_cross_encoder
from stsynth.encoders.embedding_store import encoding_units
from stsynth.encoders.encoder import (
    batch_size,
    embedding_settings,
    encode_units,
    job_folder,
    open_job_encoder,
    open_store,
    opened_identity,
    units_cosine_table,
)
from stsynth.encoders.lower_layers import encode_units_from_layer, layer_store

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
encoder, settings = snakemake.params.encoder, snakemake.params.settings
model, folder, identity = open_job_encoder(
    encoder, snakemake.input.encoder_folder, snakemake.params.model, settings["max_length"], snakemake.config["device"]
)
if snakemake.params.backend != "torch":  # the exported transformer runs the forward passes
    from stsynth.encoders.onnx_backend import use_onnx

    use_onnx(model, snakemake.input.onnx[0], snakemake.threads)
tables = [pd.read_parquet(path) for path in snakemake.input.pairs]
from_layer = snakemake.params.get("from_layer")
if from_layer is not None:  # the start model's states after layer k, where its tuning kept them
    # the word-piece limit its tuning opened the start model with (the states are cut to it)
    model.max_seq_length = from_layer["start"].get("max_length") or settings["max_length"]
    start_folder = job_folder(from_layer["start"], snakemake.input.start_folder)
    states = layer_store(
        snakemake.config,
        opened_identity(start_folder, from_layer["model"]),
        from_layer["frozen_layers"],
        embedding_settings(from_layer["start"], model),
        {"start": str(start_folder)},
    )
every_line = snakemake.params.every_line
batch = batch_size(encoder, settings["batch_size"])


def score_pairs():
    """A cross-encoder reads each pair at once (stsynth.encoders.cross)."""
    work = sum(int(encoded_lines(pairs, every).sum()) for pairs, every in zip(tables, every_line))
    with Progress(log, f"scoring {len(tables)} datasets", work, "pairs") as progress:
        for pairs_path, pairs, every, output in zip(
            snakemake.input.pairs, tables, every_line, snakemake.output, strict=True
        ):
            cross_table(pairs, model, batch, progress, every).to_parquet(output, index=False)
            log.info("%s: %d pairs scored", pairs_path, int(encoded_lines(pairs, every).sum()))


def encode(units, store, progress):
    """A model tuned above frozen layer k runs only the layers above k, from its start model's states after layer k
    (its tuning kept those of its sets; stsynth.encoders.lower_layers); any other, every layer."""
    if from_layer is None:
        return encode_units(model, units, batch, store, tokens=True, progress=progress)
    return encode_units_from_layer(model, from_layer["frozen_layers"], units, states, progress)


def encode_sentences():
    """A sentence encoder's embeddings: from the store where it holds them (stsynth.encoders.embedding_store)."""
    store = open_store(snakemake.config, encoder, model, identity, folder, snakemake.params.backend)
    units = [encoding_units(pairs, every) for pairs, every in zip(tables, every_line)]
    every_unit = [unit for set_units in units for unit in set_units]
    total = sum(map(len, every_unit))
    # from frozen layers: each sentence's states (read or computed), then the layers above
    work = store.lacking(every_unit, tokens=True) if store is not None else total * (2 if from_layer else 1)
    log.info(
        "embedding store: %s; %d of %d sentences to encode",
        store.folder if store is not None else "none (a tuned encoder)",
        work,
        total,
    )
    encoded = stored = 0
    with Progress(log, f"encoding {len(tables)} datasets", work, "sentences") as progress:
        for pairs_path, pairs, every, set_units, output in zip(
            snakemake.input.pairs, tables, every_line, units, snakemake.output, strict=True
        ):
            start = time.perf_counter()
            sentences = encode(set_units, store, progress)
            units_cosine_table(pairs, sentences, every).to_parquet(output, index=False)
            encoded, stored = encoded + sentences.encoded, stored + sentences.stored
            log.info(
                "%s: %d of %d pairs (%s); %d sentences encoded, %d read from the store, in %.1f s",
                pairs_path,
                int(encoded_lines(pairs, every).sum()),
                len(pairs),
                "every line" if every else "the scored lines: nothing reads the others",
                sentences.encoded,
                sentences.stored,
                time.perf_counter() - start,
            )
    log.info("%d datasets: %d sentences encoded, %d read from the embedding store", len(tables), encoded, stored)


if is_cross_encoder(folder):
    score_pairs()
else:
    encode_sentences()
