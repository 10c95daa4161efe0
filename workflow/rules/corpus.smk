rule fetch_corpus_file:
    """One corpus file from the first mirror that has it, else its origin URL; sha256-verified."""
    output:
        "resources/corpus/{relpath}",
    params:
        entry=lambda wc: MANIFEST[wc.relpath],
        mirrors=config["corpus"]["mirrors"],
        timeout=config["corpus"]["download_timeout"],
    log:
        "logs/corpus/{relpath}.log",
    benchmark:
        "benchmarks/corpus/{relpath}.tsv"
    threads: 1
    resources:
        mem_mb=200,
        runtime=10,
    conda:
        ENV
    script:
        "../scripts/fetch_corpus_file.py"
