# Corpus files (stsynth.core.corpus): each from the first mirror that has it, else its origin URL.


rule fetch_corpus_file:
    """One corpus file from the first mirror that has it, else its origin URL; sha256-verified."""
    output:
        paths.corpus_copy("{relpath}"),
    log:
        paths.corpus_fetch_log("{relpath}"),
    benchmark:
        paths.benchmark_path("corpus/{relpath}")
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=200,
        runtime=attempt_minutes(10),
    params:
        # What the copy is. Where it comes from (corpus.mirrors, the origin URL in the manifest,
        # corpus.download_timeout) the job reads from the config itself: changing it reruns nothing.
        facts=get_manifest_facts,
        code=get_code_digest("fetch_corpus_file.py"),
    script:
        "../scripts/fetch_corpus_file.py"
