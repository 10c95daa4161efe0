"""Word-vector sources, each one uniform table, and the paragram trainer (model, margin loss) that tunes them on
PPDB: shared by both systems."""
