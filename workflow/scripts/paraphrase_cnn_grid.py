from pathlib import Path

from stsynth.core.logs import log_to
from stsynth.core.tables import markdown_table
from stsynth.core.threads import use_threads
from stsynth.sts2017.paraphrase_cnn_fit import fit, grid_table, load_training_data
from stsynth.word_vectors.vectors import read_vectors

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
points = snakemake.params.points
vectors = read_vectors(snakemake.input.vectors)
data = load_training_data(snakemake.input, points[0], vectors, snakemake.params.ppdb_seed)
results = []
for number, settings in enumerate(points, start=1):
    log.info("grid point %d/%d: delta %s, lambda %s", number, len(points), settings["delta"], settings["lambda"])
    results.append((settings, fit(vectors, *data, settings)[2]))
table = grid_table(results)
table.to_parquet(snakemake.output.table, index=False)
# λ spans 1e-5 .. 1e-8: written as such, not rounded to zero places
shown = table.assign(**{"lambda": table["lambda"].map("{:g}".format), "delta": table["delta"].map("{:g}".format)})
Path(snakemake.output.markdown).write_text(
    markdown_table(shown, "Paraphrase embeddings: the step-1 grid on the dev protocol")
)
