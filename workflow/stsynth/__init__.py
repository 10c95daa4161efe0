"""stsynth: two published STS systems and a zero-shot evaluation as one Snakemake workflow's package.

One subpackage per system or stage (docs/architecture.md draws the map; tests/test_architecture.py checks that
no module imports a layer above its own):

    core          pairs, corpus copies, tokens, keyed tables, scoring, paths, folds, progress, logs, threads, lexicon
    translation   Apertium / Marian and its cache, language identification, round trips and synthetic pairs
    word_vectors  word-vector sources and the paragram trainer both systems tune them with
    encoders      which encoder a job opens, encoding, the ONNX backend, fine-tuning
    pipeline      the plan (which files a job reads), config and input checks, overlays, start-up, the CLI
    dcu2016       the DCU-SEManiacs SemEval-2016 system: paragram sentence model, features, GBR fusion
    sts2017       the SemEval-2017 paraphrase/event-embedding system: CNN, events, sentence vectors, Tai head
    eval          zero-shot evaluation of any encoder (make eval), its embedding cache
    results       predictions, scores' report, plots, model cards, provenance, the papers' tables, the docs check"""
