# Translation (stsynth.translate) and language identification (stsynth.language) for the es-en track.

# GPUs a translation job asks the scheduler for: Marian on anything but the CPU takes one.
TRANSLATION_GPUS = int(config["translate"]["backend"] == "marian" and config["translate"]["marian"]["device"] != "cpu")
# The settings a translation depends on: the backend and its own section. Marian's batch size is
# left out (batches are never padded, so it changes speed only), like the cache path and chunk size.
_BACKEND = config["translate"]["backend"]
TRANSLATION_ENGINE = {"backend": _BACKEND,
                      _BACKEND: {key: value for key, value in config["translate"][_BACKEND].items() if key != "batch_size"}}


rule translate_pairs:
    """es-en pair table -> the same table with s1 translated to English (original kept in s1_source)."""
    input:
        "resources/pairs/{year}/{dataset}.parquet",
    output:
        "resources/translated/{year}/{dataset}.parquet",
    params:
        engine=TRANSLATION_ENGINE,  # what shapes a translation; the cache and chunk size do not
    wildcard_constraints:
        dataset=_alternatives(d.name for d in datasets_with(track="es-en")) or "^$",
    log:
        "logs/translate/{year}/{dataset}.log",
    benchmark:
        "benchmarks/translate/{year}/{dataset}.tsv"
    threads: 2  # the Apertium pipeline runs its stages as concurrent processes
    resources:
        mem_mb=2000,
        runtime=60,
        gpu=TRANSLATION_GPUS,
    conda:
        ENV
    script:
        "../scripts/translate_pairs.py"


rule tokenize_translated:
    """Token table of a translated es-en table, English rules on both sides (schema: stsynth.tokens)."""
    input:
        "resources/translated/{year}/{dataset}.parquet",
    output:
        "resources/translated/{year}/{dataset}.tokens.parquet",
    params:
        settings=config["tokenize"],
    log:
        "logs/tokenize_translated/{year}/{dataset}.log",
    benchmark:
        "benchmarks/tokenize_translated/{year}/{dataset}.tsv"
    threads: 1
    resources:
        mem_mb=500,
        runtime=10,
    conda:
        ENV
    script:
        "../scripts/tokenize_translated.py"


rule identify_language:
    """Language of every sentence of a pair table (schema: stsynth.language)."""
    input:
        "resources/pairs/{year}/{dataset}.parquet",
    output:
        "resources/language/{year}/{dataset}.parquet",
    params:
        languages=config["crosslingual"]["languages"],
    log:
        "logs/language/{year}/{dataset}.log",
    benchmark:
        "benchmarks/language/{year}/{dataset}.tsv"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    conda:
        ENV
    script:
        "../scripts/identify_language.py"


rule language_report:
    """Accuracy of language identification on the es-en sets, whose languages are known per side."""
    input:
        [f"resources/language/{d.year}/{d.name}.parquet" for d in datasets_with(track="es-en")],
    output:
        table="results/language/accuracy.parquet",
        markdown="results/language/accuracy.md",
    params:
        languages=config["crosslingual"]["languages"],
    log:
        "logs/language/report.log",
    benchmark:
        "benchmarks/language/report.tsv"
    threads: 1
    resources:
        mem_mb=500,
        runtime=5,
    conda:
        ENV
    script:
        "../scripts/language_report.py"


rule crosslingual_mt_comparison:
    """Diagnostic: es-en paragram scores with s1 translated by the backend vs by the third-party MT
    that the redistributed input files carry (config crosslingual.reference_translation)."""
    input:
        models=[f"resources/models/{PARAGRAM_RUNS[run]}.safetensors"
                for run in config["crosslingual"]["reference_translation"]["runs"]],
        vocabularies=[f"resources/models/{PARAGRAM_RUNS[run]}.vocab.parquet"
                      for run in config["crosslingual"]["reference_translation"]["runs"]],
        pairs=[pairs_path(d) for d in datasets_with(role="test", track="es-en")],
        tokens=[english_tokens_path(d) for d in datasets_with(role="test", track="es-en")],
        released=[f"resources/corpus/{d.input}" for d in datasets_with(role="test", track="es-en")],
    output:
        table="results/crosslingual/mt_comparison.parquet",
        markdown=report("results/crosslingual/mt_comparison.md", caption="../report/mt_comparison.rst",
                        category="Cross-lingual"),
    params:
        settings=config["crosslingual"]["reference_translation"],
        fields=[d.fields for d in datasets_with(role="test", track="es-en")],
        backend=config["translate"]["backend"],
        tokenize=config["tokenize"],
    log:
        "logs/crosslingual/mt_comparison.log",
    benchmark:
        "benchmarks/crosslingual/mt_comparison.tsv"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        ENV
    script:
        "../scripts/crosslingual_mt_comparison.py"
