# Input functions of sentence_vectors.smk and head.smk, the SemEval-2017 system (stsynth.sts2017): the
# sentence-vector tables of every dataset and the files of a head run's splits.


def get_sets_vectors(kind, sets):
    """A source's sentence-vector tables of these datasets ({name}: the source's model)."""
    return [paths.sentence_vectors_path(kind, "{name}", d) for d in sets]


def get_head_split_params(*split_names):
    """Params function: the named splits of the wildcard's head run (a split it does not read is no param)."""
    return lambda wc: {
        name: entries
        for name, entries in head_plan.head_splits(config, RUNS[wc.head_run], ALL_DATASETS).items()
        if name in split_names
    }


def get_head_inputs(*split_names):
    """Input function: the files of the named splits of the wildcard's head run (stsynth.sts2017.head_plan.head_splits)."""

    def inputs(wc):
        splits = head_plan.head_splits(config, RUNS[wc.head_run], ALL_DATASETS)
        return {split: head_plan.split_files(splits[split]) for split in split_names}

    return inputs
