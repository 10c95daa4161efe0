import time

import pandas as pd

from stsynth.core.logs import log_to
from stsynth.core.pairs import encoded_lines
from stsynth.core.progress import Progress
from stsynth.core.threads import use_threads
from stsynth.encoders.cross import cross_table, is_cross_encoder
from stsynth.encoders.encoder import batch_size, cosine_table, open_job_encoder, sentences_of

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
encoder, settings = snakemake.params.encoder, snakemake.params.settings
model, folder, _ = open_job_encoder(
    encoder, snakemake.input.encoder_folder, snakemake.params.model, settings["max_length"], snakemake.config["device"]
)
if snakemake.params.backend != "torch":  # the exported transformer runs the forward passes
    from stsynth.encoders.onnx_backend import use_onnx

    use_onnx(model, snakemake.input.onnx[0], snakemake.threads)
tables = [pd.read_parquet(path) for path in snakemake.input.pairs]
every_line = snakemake.params.every_line
cross = is_cross_encoder(folder)  # reads each pair at once (stsynth.encoders.cross)
# what embed encodes, batch by batch: the distinct sentences of the lines read (a cross-encoder: the pairs)
work = sum(
    int(encoded_lines(pairs, every).sum()) if cross else len(set(sentences_of(pairs[encoded_lines(pairs, every)])))
    for pairs, every in zip(tables, every_line)
)
similarity_table = cross_table if cross else cosine_table
with Progress(log, f"encoding {len(tables)} datasets", work, "pairs" if cross else "sentences") as progress:
    for pairs_path, pairs, every, output in zip(
        snakemake.input.pairs, tables, every_line, snakemake.output, strict=True
    ):
        start = time.perf_counter()
        table = similarity_table(pairs, model, batch_size(encoder, settings["batch_size"]), progress, every)
        table.to_parquet(output, index=False)
        log.info(
            "%s: encoded %d of %d pairs (%s) in %.1f s",
            pairs_path,
            table["encoder"].notna().sum(),
            len(table),
            "every line" if every else "the scored lines: nothing reads the others",
            time.perf_counter() - start,
        )
