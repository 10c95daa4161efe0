"""What each job reads and writes, worked out from config.yaml: paths, runs, paragram models, fusion splits.

The rule files (workflow/rules/*.smk) only call these functions; everything that decides which
file a job reads lives here, as plain functions of the config and the declared datasets, with
unit tests (tests/test_plan.py).

Runs. ``runs:`` in config.yaml is the one place that says where a run's scores come from; its
``stage`` is one of :data:`RUN_STAGES`. Every run's predictions are written by rule ``predict``
(workflow/rules/predict.smk) from the table :func:`run_source` names:

====================  ==============================================  ===========================
stage                 table read per test set                         produced by (rule; module)
====================  ==============================================  ===========================
``baseline``          the pair table                                  pair_table; stsynth.baseline
``paragram``          ``resources/similarity/{model}/...``            paragram_similarity; stsynth.paragram
``paragram-per-set``  same, model ``synthetic-per-set-<year>-<name>``  paragram_similarity
``encoder``           ``resources/encoder/...`` (zero-shot), or        encoder_similarity; stsynth.encoder
                      ``resources/encoder-tuned/{model}/...``         encoder_tuned_similarity
``fusion``            ``results/fusion/{run}/predictions.parquet``    fusion_fit; stsynth.fusion
====================  ==============================================  ===========================

Paragram models. A model's settings are ``paragram.defaults``, then its preset
(``paragram.presets``), then its own entry; ``<model>.fold<i>of<k>`` is ``<model>`` trained without
the pairs of fold ``i`` of ``k`` (for out-of-fold cosines of the fusion's training rows; a fold
model is never scored per epoch). ``synthetic-per-set-<year>-<name>`` is declared for every test
set from ``synthetic.per_set``.

Tuned encoders (``encoder.tuning.models``; stsynth.encoder_tuning) follow the same rules: settings
are ``encoder.tuning.defaults`` then the entry, ``<model>.fold<i>of<k>`` is trained without fold
``i`` (and starts from ``<start>.fold<i>of<k>`` when its start is a tuned model).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, fields
from pathlib import Path

from .pairs import Dataset

RUN_STAGES = ("baseline", "paragram", "paragram-per-set", "encoder", "fusion", "external")
PER_SET_PREFIX = "synthetic-per-set-"
FOLD_NAME = re.compile(r"(.+)\.fold(\d+)of(\d+)")


# --- datasets and their files -----------------------------------------------------------------

def datasets_of(config: dict) -> list[Dataset]:
    return [Dataset.from_config(entry) for entry in config["datasets"]]


def checkout_path(location: str, checkout: str) -> str:
    """A relative local path as a path inside the checkout; URLs and absolute paths as they are."""
    if re.match(r"^[a-z]+://", location) or Path(location).is_absolute():
        return location
    return str(Path(checkout) / location)


def dataset_entry(d: Dataset) -> dict:
    """A dataset as a plain dict (a rule param: Snakemake compares plain values between runs):
    the keys every entry had before formats existed, plus every other key not at its default, so
    adding a key with a default value rebuilds nothing."""
    always = ("year", "name", "track", "role", "input", "gold", "fields", "scored")
    entry = {f.name: getattr(d, f.name) for f in fields(Dataset)
             if f.name in always or getattr(d, f.name) != f.default}
    if "score_range" in entry:
        entry["score_range"] = list(entry["score_range"])
    return entry


def select(datasets, role=None, track=None, years=None) -> list[Dataset]:
    """Datasets of a role and track; ``years``: a selection of years or groups (config keys such as
    ``years``, ``dev_years``, ``train_years`` name either: 2015, or a group such as ``sts-dev``)."""
    selection = None if years is None else {str(value) for value in years}
    return [d for d in datasets if role in (None, d.role) and track in (None, d.track)
            and (selection is None or str(d.year) in selection or d.group_name in selection)]


def dataset_file(folder: str, d: Dataset, suffix: str = ".parquet") -> str:
    """``{folder}/{year}/{name}{suffix}``: where every per-dataset table lives."""
    return f"{folder}/{d.year}/{d.name}{suffix}"


def pairs_path(d: Dataset) -> str:
    return dataset_file("resources/pairs", d)


def tokens_path(d: Dataset) -> str:
    return dataset_file("resources/pairs", d, ".tokens.parquet")


def english_pairs_path(d: Dataset) -> str:
    """The pair table whose s1 and s2 are both English: es-en sets go through translation."""
    return dataset_file("resources/translated", d) if d.track == "es-en" else pairs_path(d)


def english_tokens_path(d: Dataset) -> str:
    """The token table that English-only models read: es-en sets' s1 translated (rule translate_pairs)."""
    return dataset_file("resources/translated", d, ".tokens.parquet") if d.track == "es-en" else tokens_path(d)


def round_trips_path(d: Dataset) -> str:
    return dataset_file("resources/round_trips", d)


def similarity_path(model: str, d: Dataset) -> str:
    return dataset_file(f"resources/similarity/{model}", d)


def features_path(d: Dataset) -> str:
    return dataset_file("resources/features", d)


def encoder_path(d: Dataset) -> str:
    return dataset_file("resources/encoder", d)


def predictions_path(run: str, d: Dataset) -> str:
    return predictions_file(run, d.year, d.name)


def predictions_file(run: str, year: int, name: str) -> str:
    """``results/predictions/{run}/{year}/{name}.txt``: one score per line of the dataset's input."""
    return f"results/predictions/{run}/{year}/{name}.txt"


def model_path(model: str) -> str:
    return f"resources/models/{model}.safetensors"


def tuned_encoder_folder(model: str) -> str:
    """A fine-tuned encoder: a sentence-transformers model folder."""
    return f"resources/models/{model}"


def tuned_encoder_path(model: str, d: Dataset) -> str:
    return dataset_file(f"resources/encoder-tuned/{model}", d)


TUNED_TABLE = re.compile(r"resources/encoder-tuned/([^/]+)/(\d+)/([^/]+)\.parquet")  # tuned_encoder_path, read back


# --- runs -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Run:
    name: str
    stage: str
    model: str | None = None  # paragram runs; encoder runs: a tuned encoder (None: zero-shot)
    groups: tuple[str, ...] = ()  # fusion runs
    encoder: tuple[str, str] | None = None  # fusion runs: tuned encoder (final, dev) of the encoder features
    study: bool = False  # built by the target `studies`, not by `all`
    predictions: str | None = None  # external runs: another system's prediction files, "{year}"/"{dataset}" in the path


def runs_of(config: dict) -> dict[str, Run]:
    runs = {}
    for name, entry in config["runs"].items():
        if entry["stage"] not in RUN_STAGES:
            raise ValueError(f"runs.{name}.stage: {entry['stage']!r} is not one of {', '.join(RUN_STAGES)}")
        encoder = entry.get("encoder")
        runs[name] = Run(name, entry["stage"], entry.get("model"), tuple(entry.get("groups", ())),
                         (encoder["final"], encoder["dev"]) if encoder else None, bool(entry.get("study", False)),
                         entry.get("predictions"))
    return runs


def headline_runs(config: dict) -> list[str]:
    """The runs of the results table, built by ``snakemake all``."""
    return [name for name, run in runs_of(config).items() if not run.study]


def study_runs(config: dict) -> list[str]:
    """Runs marked ``study: true``: built by ``snakemake studies``."""
    return [name for name, run in runs_of(config).items() if run.study]


def per_set_model(d: Dataset) -> str:
    return f"{PER_SET_PREFIX}{d.year}-{d.name}"


def run_model(run: Run, d: Dataset) -> str | None:
    """The paragram model whose cosines are the run's scores on test set d (None: not a paragram run)."""
    return {"paragram": run.model, "paragram-per-set": per_set_model(d)}.get(run.stage)


def run_source(run: Run, d: Dataset) -> str:
    """The table rule ``predict`` turns into the run's predictions for test set d."""
    if run.stage == "baseline":
        return pairs_path(d)
    if run.stage in ("paragram", "paragram-per-set"):
        return similarity_path(run_model(run, d), d)
    if run.stage == "encoder":
        return tuned_encoder_path(run.model, d) if run.model else encoder_path(d)
    if run.stage == "external":
        return external_predictions_path(run.predictions, d)
    return f"results/fusion/{run.name}/predictions.parquet"


def external_predictions_path(template: str, d: Dataset) -> str:
    """Another system's prediction file for test set d: the run's ``predictions`` path with ``{year}``
    and ``{dataset}`` filled in."""
    return template.format(year=d.year, dataset=d.name)


def runs_of_stage(config: dict, *stages: str) -> list[Run]:
    return [run for run in runs_of(config).values() if run.stage in stages]


# --- paragram models --------------------------------------------------------------------------

def paragram_models(config: dict, datasets: list[Dataset]) -> dict[str, dict]:
    """The declared models plus one per test set for stage paragram-per-set (keys: synthetic.per_set)."""
    per_set = config.get("synthetic", {}).get("per_set", {"pairs": []})
    return {**config["paragram"]["models"],
            **{per_set_model(d): {**per_set, "pairs": [*per_set["pairs"], f"synthetic-{d.year}-{d.name}"]}
               for d in select(datasets, role="test")}}


def fold_model(name: str, kind: str) -> tuple[str, dict | None]:
    """``<model>.fold<i>of<k>`` -> (``<model>``, holdout ``{folds: k, fold: i}``); any other name -> (name, None)."""
    match = FOLD_NAME.fullmatch(name)
    if not match:
        return name, None
    fold, folds = int(match.group(2)), int(match.group(3))
    if not 0 <= fold < folds:
        raise ValueError(f"{kind} {name}: fold {fold} is not in 0..{folds - 1}")
    return match.group(1), {"folds": folds, "fold": fold}


def paragram_settings(config: dict, models: dict[str, dict], name: str) -> dict:
    """Resolved settings of a model: defaults, then its preset, then its own keys (fold names too)."""
    paragram = config["paragram"]
    base, holdout = fold_model(name, "paragram model")
    if base not in models:
        raise KeyError(f"{base!r} is not a paragram model (paragram.models, or {PER_SET_PREFIX}<year>-<dataset>)")
    entry = models[base]
    preset = entry.get("preset", paragram["defaults"]["preset"])
    settings = {"dev_years": [], "exclude": [], "holdout": None,
                **paragram["defaults"], **paragram["presets"][preset], **entry, "preset": preset}
    if holdout:
        # a fold model only feeds out-of-fold cosines: nothing reads per-epoch dev scores of it
        settings.update(holdout=holdout, dev_years=[])
    return settings


def training_inputs(settings: dict, datasets: list[Dataset]) -> dict[str, list[str] | str]:
    """What a paragram training job reads: its pair tables, word vectors, the unlabeled training
    sentences (for component removal) and its dev sets."""
    dev = select(datasets, role="train", years=settings["dev_years"])
    return {
        "pairs": [f"resources/paraphrase_pairs/{table}.parquet" for table in settings["pairs"]],
        "vectors": f"resources/vectors/{settings['vectors']}.parquet",
        "unlabeled": [english_tokens_path(d) for d in select(datasets, role="train")],
        "dev_pairs": [pairs_path(d) for d in dev],
        "dev_tokens": [english_tokens_path(d) for d in dev],
    }


def threshold_sweep_inputs(config: dict, models: dict[str, dict], datasets: list[Dataset]) -> dict:
    """The sweep model's training inputs, with the sweep years' pair and token tables as its pairs."""
    sweep = config["paraphrase_pairs"]["sweep"]
    train = select(datasets, role="train", years=sweep["years"])
    return {**training_inputs(paragram_settings(config, models, sweep["model"]), datasets),
            "pairs": [pairs_path(d) for d in train], "pair_tokens": [english_tokens_path(d) for d in train]}


def source_comparison_sets(config: dict, datasets: list[Dataset]) -> list[tuple[str, Dataset]]:
    """(split, dataset): the dev years' sets, then the English test sets."""
    dev = select(datasets, role="train", years=config["paragram"]["compare_sources"]["dev_years"])
    return [("dev", d) for d in dev] + [("test", d) for d in select(datasets, role="test", track="en")]


def source_comparison_inputs(config: dict, datasets: list[Dataset]) -> dict:
    sets = [d for _, d in source_comparison_sets(config, datasets)]
    return {"vectors": [f"resources/vectors/{s}.parquet" for s in config["paragram"]["compare_sources"]["sources"]],
            "unlabeled": [english_tokens_path(d) for d in select(datasets, role="train")],
            "pairs": [pairs_path(d) for d in sets], "tokens": [english_tokens_path(d) for d in sets]}


# --- tuned encoders ---------------------------------------------------------------------------

def tuned_encoder_settings(config: dict, name: str) -> dict:
    """Resolved settings of a tuned encoder: encoder.tuning.defaults, then its entry (fold names too)."""
    tuning = config["encoder"]["tuning"]
    base, holdout = fold_model(name, "tuned encoder")
    if base not in tuning["models"]:
        raise KeyError(f"{base!r} is not a tuned encoder (encoder.tuning.models)")
    settings = {"gold_years": [], "pairs": [], "dev_years": [], "start": None, "holdout": None,
                **tuning["defaults"], **tuning["models"][base]}
    if holdout:
        suffix = name[len(base):]  # ".fold<i>of<k>": the start model's same fold
        settings.update(holdout=holdout, dev_years=[], start=settings["start"] and settings["start"] + suffix)
    return settings


def tuned_encoder_inputs(settings: dict, datasets: list[Dataset]) -> dict[str, list[str] | str]:
    """What a tuning job reads: gold pair tables (graded losses), paraphrase pair tables (mnrl), the
    English pair tables of its dev sets, and the tuned model it starts from (if any)."""
    return {
        "gold": [english_pairs_path(d) for d in select(datasets, role="train", years=settings["gold_years"])]
        if settings["gold_years"] else [],
        "pairs": [f"resources/paraphrase_pairs/{table}.parquet" for table in settings["pairs"]],
        "dev": [english_pairs_path(d) for d in select(datasets, role="train", years=settings["dev_years"])]
        if settings["dev_years"] else [],
        **({"start": tuned_encoder_folder(settings["start"])} if settings["start"] else {}),
    }


# --- fusion -----------------------------------------------------------------------------------

def fusion_features(config: dict, run: Run) -> list[str]:
    """Feature names of a fusion run, in group order."""
    return [name for group in run.groups for name in config["fusion"]["groups"][group]]


FOLD_SOURCES = ("paragram", "encoder")  # what a fusion run may read out of fold, by name


def fusion_split(config: dict, run: Run, datasets: list[Dataset], protocol: str, out_of_fold: bool,
                 in_sample: str | None = None) -> list[dict]:
    """What the fusion reads per dataset: pairs, features, encoder similarities (if the run uses
    them) and per paragram feature the cosines of its ``protocol`` model (final or dev), or with
    out_of_fold the k fold models' (k = fusion.folds; 0 means in-sample). A run with tuned encoders
    (``encoder: {final, dev}``) reads their similarities the same way, k = fusion.encoder_folds.
    ``in_sample``: one of :data:`FOLD_SOURCES` read in-sample even when out_of_fold."""
    from .encoder import ENCODER_FEATURES

    fusion = config["fusion"]
    names = fusion_features(config, run)
    folds = fusion["folds"] if out_of_fold and in_sample != "paragram" else 0
    encoder_folds = fusion.get("encoder_folds", 0) if out_of_fold and in_sample != "encoder" else 0
    uses_encoder = bool(set(names) & set(ENCODER_FEATURES))
    split = []
    for d in datasets:
        # one table (a path), or a tuned encoder's k fold tables (a list)
        encoder = encoder_path(d) if uses_encoder else None
        if uses_encoder and run.encoder:
            model = run.encoder[0 if protocol == "final" else 1]
            encoder = ([tuned_encoder_path(f"{model}.fold{i}of{encoder_folds}", d) for i in range(encoder_folds)]
                       if encoder_folds else tuned_encoder_path(model, d))
        paragram = {}
        for feature, models in fusion["paragram"].items():
            if feature in names:
                model = models[protocol]
                paragram[feature] = ([similarity_path(f"{model}.fold{i}of{folds}", d) for i in range(folds)]
                                     if folds else [similarity_path(model, d)])
        split.append({"year": d.year, "dataset": d.name, "pairs": pairs_path(d), "features": features_path(d),
                      "encoder": encoder, "paragram": paragram})
    return split


def fusion_splits(config: dict, run: Run, datasets: list[Dataset], in_sample: str | None = None) -> dict[str, list[dict]]:
    """dev_train (dev.train_years, out of fold), dev_validate (dev.validate_years, dev models),
    train (fusion.train_years, default every training set; out of fold) and test (final models); with
    in_sample (a source of :func:`fold_sources`) the two training splits with that source's
    similarities in-sample instead (the ablation's comparison row)."""
    dev = config["fusion"]["dev"]
    train = select(datasets, role="train")
    dev_train = select(train, years=dev["train_years"])
    final_train = select(train, years=config["fusion"].get("train_years"))  # default: every training set
    if in_sample:
        return {"train": fusion_split(config, run, final_train, "final", True, in_sample),
                "dev_train": fusion_split(config, run, dev_train, "dev", True, in_sample)}
    return {"dev_train": fusion_split(config, run, dev_train, "dev", True),
            "dev_validate": fusion_split(config, run, select(train, years=dev["validate_years"]), "dev", False),
            "train": fusion_split(config, run, final_train, "final", True),
            "test": fusion_split(config, run, select(datasets, role="test"), "final", False)}


def fold_sources(config: dict, run: Run) -> list[str]:
    """What the run's training rows read out of fold: paragram cosines, tuned-encoder similarities."""
    from .encoder import ENCODER_FEATURES

    names = fusion_features(config, run)
    sources = []
    if config["fusion"]["folds"] > 0 and any(f in names for f in config["fusion"]["paragram"]):
        sources.append("paragram")
    if run.encoder and config["fusion"].get("encoder_folds", 0) > 0 and set(names) & set(ENCODER_FEATURES):
        sources.append("encoder")
    return sources


def encoder_tables(entry: dict) -> list[str]:
    """A split entry's encoder tables: none, one, or a tuned encoder's k fold tables."""
    encoder = entry.get("encoder") or []
    return [encoder] if isinstance(encoder, str) else list(encoder)


def split_files(split: list[dict]) -> list[str]:
    """Every file a split names, in order, once."""
    files = []
    for entry in split:
        files += [entry["pairs"], entry["features"], *encoder_tables(entry)]
        files += [path for paths in entry["paragram"].values() for path in paths]
    return list(dict.fromkeys(files))


def tuned_encoder_tables(config: dict, datasets: list[Dataset]) -> dict[str, list[Dataset]]:
    """Tuned encoder -> the datasets whose similarity tables something reads: its encoder runs' test
    sets, and every split of the fusion runs that use it (fold models, in-sample comparison rows)."""
    runs = runs_of(config).values()
    paths = [run_source(run, d) for run in runs if run.stage == "encoder" and run.model
             for d in select(datasets, role="test")]
    for run in runs:
        if run.stage == "fusion" and run.encoder:
            splits = [*fusion_splits(config, run, datasets).values(),
                      *(split for source in fold_sources(config, run)
                        for split in fusion_splits(config, run, datasets, in_sample=source).values())]
            paths += [path for split in splits for entry in split for path in encoder_tables(entry)]
    by_key = {(str(d.year), d.name): d for d in datasets}
    wanted: dict[str, list[Dataset]] = {}
    for path in dict.fromkeys(paths):
        match = TUNED_TABLE.fullmatch(path)
        if match:
            wanted.setdefault(match.group(1), []).append(by_key[match.group(2), match.group(3)])
    return {model: sorted(sets, key=datasets.index) for model, sets in wanted.items()}


# --- comparisons between runs (rule compare_runs) ---------------------------------------------

# study? -> (rule, results/scores/<name>.{parquet,md}) of the comparisons between runs
COMPARISONS = {False: ("compare_runs", "comparisons"), True: ("compare_study_runs", "study_comparisons")}


def run_comparisons(config: dict, study: bool | None = None) -> list[list[str]]:
    """``[run, against]`` pairs for the paired bootstrap (config ``scoring.compare``): every run against
    the ``reference`` run, then the listed ``pairs``; pairs naming a run not in ``runs:`` are left out.
    ``study``: False, only pairs of headline runs (``all``); True, only pairs with a study run
    (``studies``); None, all of them."""
    compare, runs = config["scoring"]["compare"], list(config["runs"])
    studies = set(study_runs(config))
    reference = compare.get("reference")
    wanted = [[run, reference] for run in runs if reference in runs and run != reference]
    wanted += [list(pair) for pair in compare.get("pairs", []) if all(run in runs for run in pair)]
    pairs = [list(pair) for pair in dict.fromkeys(tuple(pair) for pair in wanted)]
    return pairs if study is None else [pair for pair in pairs if bool(studies & set(pair)) == study]


def compared_runs(config: dict, study: bool | None = None) -> list[str]:
    return list(dict.fromkeys(run for pair in run_comparisons(config, study) for run in pair))

