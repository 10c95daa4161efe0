from stsynth.core.logs import log_to
from stsynth.core.threads import use_threads
from stsynth.encoders.encoder import open_job_encoder
from stsynth.encoders.onnx_backend import export

log = log_to(snakemake.log[0])
use_threads(snakemake.threads)
model, folder, identity = open_job_encoder(
    snakemake.params.encoder, snakemake.input.encoder_folder, snakemake.params.model, snakemake.params.max_length, "cpu"
)
export(model, snakemake.output[0], int8=snakemake.wildcards.precision == "int8")
log.info("exported %s (sha256 %s over its files) to %s", folder, identity, snakemake.output[0])
