# Helpers of the paraphrase_pairs and paragram rules (stsynth.paraphrase_pairs, stsynth.paragram).
PARAGRAM = config["paragram"]
PARAGRAM_RUNS = PARAGRAM["runs"]  # run name -> model name
# The models of config.yaml, plus one per declared test set for run synthetic-per-set (synthetic.smk;
# keys: config synthetic.per_set), so that run follows whatever test sets config.yaml declares.
PARAGRAM_MODELS = {
    **PARAGRAM["models"],
    **{per_set_model(d): {**config["synthetic"]["per_set"],
                          "pairs": [*config["synthetic"]["per_set"]["pairs"], f"synthetic-{d.year}-{d.name}"]}
       for d in datasets_with(role="test")},
}
PARAGRAM_MODEL_PATTERN = rf"({_alternatives(PARAGRAM_MODELS)})(\.fold\d+of\d+)?"


def paragram_model(name):
    """Resolved settings of a model: defaults, then its preset, then its own keys.

    "<model>.fold<i>of<k>" is the declared <model> trained without the pairs of fold i of k
    (stsynth.paraphrase_pairs.fold_of), for out-of-fold similarities of training rows.
    """
    match = re.fullmatch(r"(.+)\.fold(\d+)of(\d+)", name)
    entry = PARAGRAM_MODELS[match.group(1) if match else name]
    preset = entry.get("preset", PARAGRAM["defaults"]["preset"])
    settings = {"dev_years": [], "exclude": [], "holdout": None,
                **PARAGRAM["defaults"], **PARAGRAM["presets"][preset], **entry, "preset": preset}
    if match:
        fold, folds = int(match.group(2)), int(match.group(3))
        if not 0 <= fold < folds:
            raise ValueError(f"paragram model {name}: fold {fold} is not in 0..{folds - 1}")
        settings["holdout"] = {"folds": folds, "fold": fold}
    return settings


def paragram_dev_datasets(model):
    """Sets scored after every epoch: only training-role sets (2016 never chooses anything)."""
    years = paragram_model(model)["dev_years"]
    return [d for d in datasets_with(role="train") if d.year in years]


def paragram_training_inputs(wc):
    return training_inputs_of(wc.model)


def training_inputs_of(model):
    settings = paragram_model(model)
    dev = paragram_dev_datasets(model)
    return {
        "pairs": [f"resources/paraphrase_pairs/{table}.parquet" for table in settings["pairs"]],
        "vectors": f"resources/vectors/{settings['vectors']}.parquet",
        "unlabeled": [english_tokens_path(d) for d in datasets_with(role="train")],
        "dev_pairs": [pairs_path(d) for d in dev],
        "dev_tokens": [english_tokens_path(d) for d in dev],
    }


def gold_filter_datasets(table):
    years = config["paraphrase_pairs"]["tables"][table]["years"]
    return [d for d in datasets_with(role="train") if d.year in years]


def threshold_sweep_inputs(wc):
    sweep = config["paraphrase_pairs"]["sweep"]
    train = [d for d in datasets_with(role="train") if d.year in sweep["years"]]
    return {**training_inputs_of(sweep["model"]), "pairs": [pairs_path(d) for d in train],
            "pair_tokens": [english_tokens_path(d) for d in train]}


def source_comparison_datasets():
    """(split, dataset): the dev years' sets, then the English test sets."""
    dev = [d for d in datasets_with(role="train") if d.year in PARAGRAM["compare_sources"]["dev_years"]]
    return [("dev", d) for d in dev] + [("test", d) for d in datasets_with(role="test", track="en")]


def source_comparison_splits():
    return [split for split, _ in source_comparison_datasets()]


def source_comparison_inputs(wc):
    sets = [d for _, d in source_comparison_datasets()]
    return {"vectors": [f"resources/vectors/{s}.parquet" for s in PARAGRAM["compare_sources"]["sources"]],
            "unlabeled": [english_tokens_path(d) for d in datasets_with(role="train")],
            "pairs": [pairs_path(d) for d in sets], "tokens": [english_tokens_path(d) for d in sets]}
