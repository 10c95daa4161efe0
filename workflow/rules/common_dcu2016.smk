# Input functions of paragram.smk and fusion.smk, the DCU-SEManiacs system (stsynth.dcu2016): which
# files a paragram model's jobs and a fusion run's splits read.


def get_paragram_training_inputs(wc):
    return plan.training_inputs(get_paragram_model(wc.model), ALL_DATASETS)


def get_paragram_similarity_inputs(sets):
    """Input function: what a model's similarity job over these sets reads besides the model."""
    return lambda wc: plan.similarity_inputs(get_paragram_model(wc.model), sets)


FUSION = config["fusion"]


def get_fusion_splits(run_name, in_sample=None):
    return fusion_plan.fusion_splits(config, RUNS[run_name], ALL_DATASETS, in_sample)


def get_split_params(*split_names):
    """Params function: the named splits of the wildcard's fusion run, as plain values (a split it does not
    read, such as a test set added, is no param of its job)."""
    return lambda wc: fusion_plan.split_params(
        {name: entries for name, entries in get_fusion_splits(wc.fusion_run).items() if name in split_names}
    )


def get_fusion_inputs(*split_names, in_sample=False, dev=True, run=None):
    """Input function: the files of the named splits of a fusion run (`run`, else the wildcard's),
    one named input per split (stsynth.dcu2016.fusion_plan.fusion_splits), plus the run's dev table when its
    settings are not recorded."""

    def inputs(wc):
        name = run or wc.fusion_run
        splits = get_fusion_splits(name)
        files = {split: fusion_plan.split_files(splits[split]) for split in split_names}
        if in_sample:  # per source read out of fold, the training splits with it in-sample
            for source in fusion_plan.fold_sources(config, RUNS[name]):
                files.update(
                    {
                        f"{split}_{source}_in_sample": fusion_plan.split_files(entries)
                        for split, entries in get_fusion_splits(name, in_sample=source).items()
                    }
                )
        if dev and RUNS[name].chosen is None:  # recorded settings (`chosen`) need no dev search
            files["dev"] = paths.fusion_path(name, "dev.parquet")
        return files

    return inputs
