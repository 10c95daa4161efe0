"""The plumbing every stage shares: datasets and pair tables, corpus copies, tokens, keyed tables, scoring,
every path, fold names, progress, logs, threads, device, lexicon, model digests, paraphrase pair tables."""
