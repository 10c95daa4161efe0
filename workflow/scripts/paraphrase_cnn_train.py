from stsynth.core.logs import log_to
from stsynth.core.threads import use_threads
from stsynth.sts2017.paraphrase_cnn import save
from stsynth.sts2017.paraphrase_cnn_fit import fit, load_training_data
from stsynth.word_vectors.vectors import merge_vectors, read_vectors

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
settings = snakemake.params.settings
log.info("settings: %s", settings)
vectors = read_vectors(snakemake.input.vectors)
data = load_training_data(snakemake.input, settings, vectors, snakemake.params.ppdb_seed)
if snakemake.input.unknown:  # unknown: encode: the gold and dev sets' words the vocabulary lacks, encoded
    vectors = merge_vectors([vectors, *map(read_vectors, snakemake.input.unknown)], vectors.source)
model, vocabulary, epochs = fit(vectors, *data, settings)
save(model, vocabulary, settings, snakemake.output.model)
epochs.to_parquet(snakemake.output.epochs, index=False)
log.info("epochs:\n%s", epochs.to_string(index=False))
