from stsynth.core.corpus import verify_copies
from stsynth.core.datasets import Dataset
from stsynth.core.logs import log_to
from stsynth.core.pairs import pair_table

log_to(snakemake.log[0])
verify_copies(snakemake.input, snakemake.config["corpus"]["manifest"])
entry = {key: value for key, value in snakemake.params.dataset.items() if key != "local_sha256"}
table = pair_table(Dataset.from_config(entry), snakemake.input.sentences, snakemake.input.get("gold"))
table.to_parquet(snakemake.output[0], index=False)
