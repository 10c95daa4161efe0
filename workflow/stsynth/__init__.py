"""stsynth: synthetic paragram embeddings for semantic textual similarity (DCU-SEManiacs, SemEval-2016)."""
