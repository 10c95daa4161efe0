from stsynth.core.corpus import verify_copies
from stsynth.core.logs import log_to
from stsynth.core.threads import use_threads
from stsynth.word_vectors.vectors import check_finite, ppdb_paragram, read_ppdb_lexical, read_vectors, write_vectors

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
settings = snakemake.params.settings
verify_copies(snakemake.input, snakemake.config["corpus"]["manifest"])
base = read_vectors(snakemake.input.base)
vectors = ppdb_paragram(
    base,
    read_ppdb_lexical(snakemake.input.ppdb),
    settings["trainer"],
    settings["max_pairs"],
    seed=settings["trainer"]["seed"],
    source=f"ppdb-paragram-{base.source}",
)
check_finite(vectors)
write_vectors(vectors, snakemake.output[0])
log.info("wrote %d words of dimension %d", len(vectors.words), vectors.dim)
