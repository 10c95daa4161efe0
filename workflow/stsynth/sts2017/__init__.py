"""The SemEval-2017 paraphrase/event-embedding system: the paraphrase CNN, event tables and embeddings,
sentence-vector tables, Tai et al.'s regression head and what a head run reads."""
