import pandas as pd

from stsynth.core.folds import seed_model
from stsynth.core.logs import log_to
from stsynth.core.paths import EVENT_VECTOR_SOURCES
from stsynth.pipeline.plan import layered_settings
from stsynth.sts2017.events import skipgram
from stsynth.word_vectors.vectors import WordVectors, write_vectors

log = log_to(snakemake.log[0])
source = snakemake.wildcards.source
base, seed = seed_model(source)
settings = layered_settings(snakemake.params.settings, seed=seed)
table = pd.read_parquet(snakemake.input[0])
column = {"chains": "events", "sentences": "tokens"}[EVENT_VECTOR_SOURCES[base]]  # the corpus part's word lists
words, matrix = skipgram([list(s) for s in table[column]], settings, source)
write_vectors(
    WordVectors(words, matrix, source, {"corpus": snakemake.input[0], "skipgram": settings}), snakemake.output[0]
)
