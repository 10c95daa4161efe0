from stsynth.core.lexicon import build_wordnet
from stsynth.core.logs import log_to

log = log_to(snakemake.log[0])
build_wordnet(snakemake.params.source, snakemake.params.target)
