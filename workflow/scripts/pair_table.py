from stsynth.logs import log_to
from stsynth.pairs import Dataset, pair_table

log_to(snakemake.log[0])
table = pair_table(Dataset(**snakemake.params.dataset), snakemake.input.sentences, snakemake.input.gold)
table.to_parquet(snakemake.output[0], index=False)
