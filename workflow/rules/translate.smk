# Machine translation (stsynth.translation.translate): the es-en sets' Spanish sentences into English (found by
# language identification, stsynth.translation.language, or the declared s1), and the English -> Spanish ->
# English round trips of every set (the synthetic paraphrases' raw material).


rule translate_pairs:
    """es-en pair table -> the same table with its Spanish sentences translated to English, on the side
    identification finds them or on s1 (config crosslingual.sides; originals kept in s1/s2_source)."""
    input:
        unpack(get_translation_inputs),
        program=lambda wc: get_checked_programs("translate"),  # no file: Apertium checked while planning
    output:
        paths.translated_path(paths.WILDCARDS),
    log:
        paths.log_path("translate/{year}/{dataset}"),
    benchmark:
        paths.benchmark_path("translate/{year}/{dataset}")
    wildcard_constraints:
        dataset=_alternatives(d.name for d in get_datasets(track="es-en")) or "^$",
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
        code=get_code_digest("translate_pairs.py"),
    script:
        "../scripts/translate_pairs.py"


rule tokenize_translated:
    """Token table of a translated es-en table, English rules on both sides (schema: stsynth.core.tokens)."""
    input:
        paths.translated_path(paths.WILDCARDS),
    output:
        paths.translated_path(paths.WILDCARDS, ".tokens.parquet"),
    log:
        paths.log_path("tokenize_translated/{year}/{dataset}"),
    benchmark:
        paths.benchmark_path("tokenize_translated/{year}/{dataset}")
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=500,
        runtime=attempt_minutes(10),
    params:
        settings=config["tokenize"],
        code=get_code_digest("tokenize_translated.py"),
    script:
        "../scripts/tokenize_translated.py"


rule identify_language:
    """Language of every sentence of a pair table (schema: stsynth.translation.language)."""
    input:
        pairs_path(paths.WILDCARDS),
    output:
        paths.language_path(paths.WILDCARDS),
    log:
        paths.log_path("language/{year}/{dataset}"),
    benchmark:
        paths.benchmark_path("language/{year}/{dataset}")
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=1000,
        runtime=attempt_minutes(10),
    params:
        languages=config["crosslingual"]["languages"],
        code=get_code_digest("identify_language.py"),
    script:
        "../scripts/identify_language.py"


# Only where there are es-en sets, whose sides' languages the track declares.
if OPTIONAL_RULES["language_report"]:

    rule language_report:
        """Accuracy of language identification on the es-en sets, whose languages are known per side."""
        input:
            [paths.language_path(d) for d in get_datasets(track="es-en")],
        output:
            table=paths.STUDY_TABLES["language"],
            markdown=paths.study_file("language"),
        log:
            paths.log_path("language/report"),
        benchmark:
            paths.benchmark_path("language/report")
        conda:
            ENV
        threads: 1
        resources:
            mem_mb=500,
            runtime=attempt_minutes(5),
        params:
            languages=config["crosslingual"]["languages"],
            code=get_code_digest("language_report.py"),
        script:
            "../scripts/language_report.py"


rule round_trips:
    """Both sides of every line of a set, English -> Spanish -> English (schema: stsynth.translation.synthetic)."""
    input:
        lambda wc: english_pairs_path(get_dataset(wc)),
        program=lambda wc: get_checked_programs("translate"),  # no file: Apertium checked while planning
    output:
        round_trips_path(paths.WILDCARDS),
    log:
        paths.log_path("round_trips/{year}/{dataset}"),
    benchmark:
        paths.benchmark_path("round_trips/{year}/{dataset}")
    conda:
        ENV
    threads: 2  # the Apertium pipeline runs its stages as concurrent processes
    resources:
        **gpu_resources(TRANSLATION_GPUS),
        mem_mb=2000,
        runtime=attempt_minutes(120),
    params:
        engine=TRANSLATION_ENGINE,  # what shapes a translation; the cache and chunk size do not
        code=get_code_digest("round_trips.py"),
    script:
        "../scripts/round_trips.py"
