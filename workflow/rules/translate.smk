# Machine translation (stsynth.translate): the es-en sets' Spanish sentences into English (found by
# language identification, stsynth.language, or the declared s1), and the English -> Spanish ->
# English round trips of every set (the synthetic paraphrases' raw material).


rule translate_pairs:
    """es-en pair table -> the same table with its Spanish sentences translated to English, on the side
    identification finds them or on s1 (config crosslingual.sides; originals kept in s1/s2_source)."""
    input:
        unpack(translation_inputs),
        program=lambda wc: programs_checked("translate"),  # no file: Apertium checked while planning
    output:
        paths.translated_path(paths.WILDCARDS),
    log:
        "logs/translate/{year}/{dataset}.log",
    benchmark:
        "benchmarks/translate/{year}/{dataset}.tsv"
    wildcard_constraints:
        dataset=_alternatives(d.name for d in datasets_with(track="es-en")) or "^$",
    conda:
        ENV
    threads: 2  # the Apertium pipeline runs its stages as concurrent processes
    resources:
        **gpu_resources(TRANSLATION_GPUS),
        mem_mb=2000,
        runtime=attempt_minutes(60),
    params:
        engine=TRANSLATION_ENGINE,  # what shapes a translation; the cache and chunk size do not
        sides=config["crosslingual"]["sides"],
    script:
        "../scripts/translate_pairs.py"


rule tokenize_translated:
    """Token table of a translated es-en table, English rules on both sides (schema: stsynth.tokens)."""
    input:
        paths.translated_path(paths.WILDCARDS),
    output:
        paths.translated_path(paths.WILDCARDS, ".tokens.parquet"),
    log:
        "logs/tokenize_translated/{year}/{dataset}.log",
    benchmark:
        "benchmarks/tokenize_translated/{year}/{dataset}.tsv"
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=attempt_minutes(10),
    params:
        settings=config["tokenize"],
    script:
        "../scripts/tokenize_translated.py"


rule identify_language:
    """Language of every sentence of a pair table (schema: stsynth.language)."""
    input:
        pairs_path(paths.WILDCARDS),
    output:
        paths.language_path(paths.WILDCARDS),
    log:
        "logs/language/{year}/{dataset}.log",
    benchmark:
        "benchmarks/language/{year}/{dataset}.tsv"
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=attempt_minutes(10),
    params:
        languages=config["crosslingual"]["languages"],
    script:
        "../scripts/identify_language.py"


# Only where there are es-en sets, whose sides' languages the track declares.
if OPTIONAL_RULES["language_report"]:

    rule language_report:
        """Accuracy of language identification on the es-en sets, whose languages are known per side."""
        input:
            [paths.language_path(d) for d in datasets_with(track="es-en")],
        output:
            table=paths.STUDY_TABLES["language"],
            markdown=paths.study_file("language"),
        log:
            "logs/language/report.log",
        benchmark:
            "benchmarks/language/report.tsv"
        conda:
            ENV
        threads: 1
        resources:
            mem_mb=500,
            runtime=attempt_minutes(5),
        params:
            languages=config["crosslingual"]["languages"],
        script:
            "../scripts/language_report.py"


rule round_trips:
    """Both sides of every line of a set, English -> Spanish -> English (schema: stsynth.synthetic)."""
    input:
        lambda wc: english_pairs_path(dataset(wc)),
        program=lambda wc: programs_checked("translate"),  # no file: Apertium checked while planning
    output:
        round_trips_path(paths.WILDCARDS),
    log:
        "logs/round_trips/{year}/{dataset}.log",
    benchmark:
        "benchmarks/round_trips/{year}/{dataset}.tsv"
    conda:
        ENV
    threads: 2  # the Apertium pipeline runs its stages as concurrent processes
    resources:
        **gpu_resources(TRANSLATION_GPUS),
        mem_mb=2000,
        runtime=attempt_minutes(120),
    params:
        engine=TRANSLATION_ENGINE,  # what shapes a translation; the cache and chunk size do not
    script:
        "../scripts/round_trips.py"
