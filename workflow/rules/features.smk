# Pair features (schema: stsynth.dcu2016.features) and the offline WordNet they need (stsynth.core.lexicon).
FEATURE_SETTINGS = config["features"]
WORDNET_DIR = f"{FEATURE_SETTINGS['nltk_data']}/corpora/wordnet"


rule wordnet:
    """WordNet 3.0 from Debian copied into a project-local NLTK data folder, with the lexnames file."""
    output:
        [f"{WORDNET_DIR}/{name}" for name in [*WORDNET_FILES, "lexnames"]],
    log:
        paths.log_path("features/wordnet"),
    benchmark:
        paths.benchmark_path("features/wordnet")
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=attempt_minutes(5),
    params:
        source=FEATURE_SETTINGS["wordnet_source"],
        target=lambda wc, output: str(Path(output[0]).parent),
        code=get_code_digest("wordnet.py"),
    script:
        "../scripts/wordnet.py"


# TakeLab-style and the paper's pair features of every declared dataset (English sides; es-en translated):
# one job per part (TABLE_JOB_PARTS), the sets fitted and chosen on (rule features) and each group of test
# sets (features__<group>): loading the tagger and WordNet takes longer than most datasets.
for _part, _sets in TABLE_JOB_PARTS.items():

    rule:
        name:
            get_part_rule_name("features", _part)
        input:
            pairs=[english_pairs_path(d) for d in _sets],
            tokens=[english_tokens_path(d) for d in _sets],
            vectors=paths.vectors_path(FEATURE_SETTINGS["vectors"]),
            wordnet=f"{WORDNET_DIR}/lexnames",
        output:
            [features_path(d) for d in _sets],
        log:
            paths.log_path(get_part_file_name("features/features", _part)),
        benchmark:
            paths.benchmark_path(get_part_file_name("features/features", _part))
        conda:
            ENV
        threads: 1
        resources:
            mem_mb=3000,
            runtime=attempt_minutes(60),
        params:
            settings=FEATURE_SETTINGS,
            code=get_code_digest("features.py"),
        script:
            "../scripts/features.py"
