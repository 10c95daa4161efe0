# Pair features (schema: stsynth.features) and the offline WordNet they need (stsynth.lexicon).
from stsynth.lexicon import WORDNET_FILES

FEATURE_SETTINGS = config["features"]
WORDNET_DIR = f"{FEATURE_SETTINGS['nltk_data']}/corpora/wordnet"


rule wordnet:
    """WordNet 3.0 from Debian copied into a project-local NLTK data folder, with the lexnames file."""
    output:
        [f"{WORDNET_DIR}/{name}" for name in [*WORDNET_FILES, "lexnames"]],
    params:
        source=FEATURE_SETTINGS["wordnet_source"],
        target=lambda wc, output: str(Path(output[0]).parent),
    log:
        "logs/features/wordnet.log",
    benchmark:
        "benchmarks/features/wordnet.tsv"
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    conda:
        ENV
    script:
        "../scripts/wordnet.py"


rule features:
    """TakeLab-style and the paper's pair features of one dataset (English side(s); es-en translated)."""
    input:
        pairs=lambda wc: english_pairs_path(dataset(wc)),
        tokens=lambda wc: english_tokens_path(dataset(wc)),
        vectors=f"resources/vectors/{FEATURE_SETTINGS['vectors']}.parquet",
        wordnet=f"{WORDNET_DIR}/lexnames",
    output:
        "resources/features/{year}/{dataset}.parquet",
    params:
        settings=FEATURE_SETTINGS,
    log:
        "logs/features/{year}/{dataset}.log",
    benchmark:
        "benchmarks/features/{year}/{dataset}.tsv"
    threads: 1
    resources:
        mem_mb=3000,
        runtime=30,
    conda:
        ENV
    script:
        "../scripts/features.py"
