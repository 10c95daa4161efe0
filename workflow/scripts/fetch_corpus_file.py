from stsynth.corpus import fetch, mirrors_from
from stsynth.logs import log_to

log_to(snakemake.log[0])
fetch(snakemake.params.entry, snakemake.output[0], mirrors_from(snakemake.params.mirrors),
      timeout=snakemake.params.timeout)
