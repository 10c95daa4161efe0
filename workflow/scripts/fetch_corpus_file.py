from stsynth.core.corpus import ManifestEntry, fetch, mirrors_from, read_manifest
from stsynth.core.logs import log_to

log_to(snakemake.log[0])
corpus = snakemake.config["corpus"]
origin = read_manifest(corpus["manifest"])[snakemake.params.facts["relpath"]].origin
fetch(
    ManifestEntry(**snakemake.params.facts, origin=origin),
    snakemake.output[0],
    mirrors_from(corpus["mirrors"]),
    timeout=corpus["download_timeout"],
)
