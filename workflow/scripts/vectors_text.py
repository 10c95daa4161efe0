import tempfile
from pathlib import Path

from stsynth.core.logs import log_to
from stsynth.word_vectors.vectors import check_finite, download, read_text_vectors, write_vectors

log = log_to(snakemake.log[0])
settings = snakemake.params.settings
output = Path(snakemake.output[0])
output.parent.mkdir(parents=True, exist_ok=True)
with tempfile.TemporaryDirectory(dir=output.parent) as folder:
    archive = Path(folder) / "download"
    digest = download(settings["url"], archive, settings["sha256"], settings["timeout"])
    if settings["sha256"]:
        log.info("fetched %s (sha256 %s, as configured)", settings["url"], digest)
    else:
        log.warning(
            "fetched %s UNVERIFIED: vectors.paragram-xxl.sha256 is null (no checksum is published for "
            "it%s). What was fetched has sha256 %s; set that value to pin it.",
            settings["url"],
            ", and plain http lets anyone on the path change it" if settings["url"].startswith("http://") else "",
            digest,
        )
    vectors = read_text_vectors(archive, settings["member"], settings["encoding"], source="paragram-xxl")
vectors.provenance = {"url": settings["url"], "sha256": digest, "member": settings["member"]}
check_finite(vectors)
write_vectors(vectors, output)
log.info("wrote %d words of dimension %d", len(vectors.words), vectors.dim)
