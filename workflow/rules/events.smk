# Event tokens and event embeddings of the SemEval-2017 system (schemas: stsynth.sts2017.events): the event
# tokens of every declared dataset, the event corpus with its chains and sentences, and the two
# word-vector tables trained on it (EE, and the W2V baseline).
EVENTS = config["events"]
EVENT_CORPUS = event_corpus_settings(config)
EVENT_PAIR_SETS = get_datasets(role="train", years=EVENT_CORPUS["pair_years"]) if EVENT_CORPUS["pair_years"] else []


rule event_tables:
    """The event tokens of every s1 and s2 of every declared dataset (English sides; es-en translated),
    in one job: loading the parser and WordNet takes longer than most datasets."""
    input:
        pairs=[english_pairs_path(d) for d in ALL_DATASETS],
        wordnet=f"{WORDNET_DIR}/lexnames",
    output:
        [paths.events_path(d) for d in ALL_DATASETS],
    log:
        paths.log_path("events/tables"),
    benchmark:
        paths.benchmark_path("events/tables")
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=attempt_minutes(30),
    params:
        settings={key: EVENTS[key] for key in ("parser", "weak_verbs")},
        nltk_data=lambda wc, input: str(Path(input.wordnet).parents[2]),  # <nltk_data>/corpora/wordnet/lexnames
        code=get_code_digest("event_tables.py"),
    script:
        "../scripts/event_tables.py"


rule event_corpus:
    """The event corpus (the King James Bible's chapters, and the pairs of the protocol's train sets as
    two-sentence documents) parsed: its entity chains of event tokens and its Moses-tokenized sentences."""
    input:
        pairs=[english_pairs_path(d) for d in EVENT_PAIR_SETS],
        wordnet=f"{WORDNET_DIR}/lexnames",
        program=lambda wc: get_checked_programs("events"),  # no file: the bible program checked while planning
    output:
        documents=paths.EVENT_CORPUS["documents"],
        chains=paths.EVENT_CORPUS["chains"],
        sentences=paths.EVENT_CORPUS["sentences"],
    log:
        paths.log_path("events/corpus"),
    cache: True
    priority: 20  # the longest job of the event stage, on nothing but the parser: started early
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=3000,
        runtime=attempt_minutes(60),
    params:
        settings={
            "corpus": EVENT_CORPUS,
            **{key: EVENTS[key] for key in ("parser", "batch_size", "weak_verbs", "coreference_window")},
        },
        tokenize=config["tokenize"],
        nltk_data=lambda wc, input: str(Path(input.wordnet).parents[2]),  # <nltk_data>/corpora/wordnet/lexnames
        code=get_code_digest("event_corpus.py"),
    script:
        "../scripts/event_corpus.py"


rule event_embeddings:
    """Skip-gram on the corpus: its event chains (event-embeddings, the EE) or its sentences (word2vec,
    the W2V baseline), as a word-vector table (schema: stsynth.word_vectors.vectors); <source>.seed<s>
    with skip-gram seed s."""
    input:
        lambda wc: paths.EVENT_CORPUS[paths.EVENT_VECTOR_SOURCES[seed_model(wc.source)[0]]],
    output:
        paths.vectors_path("{source}"),
    log:
        paths.log_path("events/{source}"),
    benchmark:
        paths.benchmark_path("events/{source}")
    wildcard_constraints:
        source=with_seed_models("|".join(paths.EVENT_VECTOR_SOURCES)),  # <source>.seed<s>: a head run's seed study
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=2000,
        runtime=attempt_minutes(30),
    params:
        settings=EVENTS["skipgram"],  # a seeded source (<source>.seed<s>) takes its seed from its name
        code=get_code_digest("event_embeddings.py"),
    script:
        "../scripts/event_embeddings.py"
