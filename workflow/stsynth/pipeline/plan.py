"""What each job reads, worked out from config.yaml: datasets, runs, paragram models, encoders.

The rule files (workflow/rules/*.smk) only call these functions; everything that decides which
file a job reads lives here (the paths themselves in stsynth.core.paths, a fusion run's splits in
stsynth.dcu2016.fusion_plan), as plain functions of the config and the declared datasets, with unit tests
(tests/test_plan.py).

Runs: stsynth.pipeline.runs (where each run's scores come from, by its ``stage``).

Paragram models. A model's settings are ``paragram.defaults``, then its preset
(``paragram.presets``), then its own entry; ``<model>.fold<i>of<k>`` is ``<model>`` trained without
the pairs of fold ``i`` of ``k`` (for out-of-fold cosines of the fusion's training rows; a fold
model is never scored per epoch). ``synthetic-per-set-<year>-<name>`` is declared for every test
set from ``synthetic.per_set``.

Encoders. A named encoder (``encoder.models``: an installed package, a local folder or a hub name;
stsynth.encoders.encoder) is used as it is; a tuned encoder (``encoder.tuning.models``; stsynth.encoders.tuning)
is trained by the pipeline. Both have their similarity tables under ``resources/encoder/{name}/``.
Tuned settings are ``encoder.tuning.defaults`` then the entry, ``<model>.fold<i>of<k>`` is trained
without fold ``i`` (and starts from ``<start>.fold<i>of<k>`` when its start is a tuned model).
"""

from __future__ import annotations

from dataclasses import fields

from ..core.datasets import Dataset, select
from ..core.folds import fold_model, fold_names, seed_model, seed_name
from ..core.paths import (
    PPDB_TUNED,
    english_pairs_path,
    english_tokens_path,
    pairs_path,
    paraphrase_table,
    unknown_vectors_path,
    vectors_path,
)
from ..encoders.encoder import is_tuned, job_inputs
from .protocol import gold_tables, model_sets, protocol_sets, split_sets, sweep_settings
from .runs import PER_SET_PREFIX, Run, per_set_model, run_comparisons, runs_of, sentence_vector_source

# --- datasets and their files -----------------------------------------------------------------


def datasets_of(config: dict) -> list[Dataset]:
    return [Dataset.from_config(entry) for entry in config["datasets"]]


def dataset_entry(d: Dataset) -> dict:
    """A dataset as a plain dict (a rule param: Snakemake compares plain values between runs):
    the keys every entry had before formats existed, plus every other key not at its default, so
    adding a key with a default value rebuilds nothing."""
    always = ("year", "name", "track", "role", "input", "gold", "fields", "scored")
    entry = {f.name: getattr(d, f.name) for f in fields(Dataset) if f.name in always or getattr(d, f.name) != f.default}
    if "score_range" in entry:
        entry["score_range"] = list(entry["score_range"])
    return entry


def vocabulary_datasets(config: dict, datasets: list[Dataset]) -> list[Dataset]:
    """The datasets whose tokens enter the minilm-static vocabulary (vectors.minilm-static.vocabulary):
    ``training``, the training-role sets (no test sentence is read, as the paper added no test words
    to paragram-XXL's vocabulary); ``all``, every set of the protocol (transductive; a set added beside it is
    not read); ``dev-training``, the protocol's train sets (what its dev-protocol twins learn from)."""
    vocabulary = config["vectors"]["minilm-static"]["vocabulary"]
    if vocabulary == "all":
        return protocol_sets(datasets)
    if vocabulary == "training":
        return select(datasets, role="train")
    return select(datasets, role="train", years=split_sets(config)["dev_train"])


def reference_translation_sets(config: dict, datasets: list[Dataset]) -> list[Dataset]:
    """es-en test sets whose released files carry the third-party translation
    (crosslingual.reference_translation): the MT comparison's sets."""
    field = config["crosslingual"]["reference_translation"]["field"]
    return [
        d
        for d in select(datasets, role="test", track="es-en")
        if d.format == "sts" and d.input and d.has_gold and d.fields >= field
    ]


def optional_rules(config: dict) -> dict[str, bool]:
    """The rules the workflow declares only when the config has what they need; the rule files and
    the report both ask here."""
    datasets = datasets_of(config)
    return {
        "language_report": bool(select(datasets, track="es-en")),
        "fusion_dev_table": config["fusion"]["dev_table"]["run"] in config["runs"],
        "encoder_tuning_dev_check": bool(config["encoder"]["tuning"]["dev_check"]),
        "crosslingual_mt_comparison": bool(reference_translation_sets(config, datasets)),
        "seed_study": bool(seed_study_runs(config)),
    }


# --- runs -------------------------------------------------------------------------------------


# --- paragram models --------------------------------------------------------------------------


def paragram_models(config: dict, datasets: list[Dataset]) -> dict[str, dict]:
    """The declared models plus one per test set for stage paragram-per-set (keys: synthetic.per_set)."""
    per_set = config.get("synthetic", {}).get("per_set", {"pairs": []})
    return {
        **config["paragram"]["models"],
        **{
            per_set_model(d): {**per_set, "pairs": [*per_set["pairs"], f"synthetic-{d.year}-{d.name}"]}
            for d in select(datasets, role="test")
        },
    }


def layered_settings(*layers: dict, seed: int | None = None, holdout: dict | None = None) -> dict:
    """The one way a model's or run's settings are resolved: each layer's keys over the layers before it
    (defaults, then a preset or grid point, then the entry's own keys), then a seed model's seed
    (``<model>.seed<s>``: PPDB-tuned word vectors it starts from are tuned with that seed too,
    ``ppdb-paragram-<base>.seed<s>``) and a fold model's holdout (``<model>.fold<i>of<k>``, which reads no
    per-epoch dev scores: nothing reads them of a fold model, whose cosines are only read out of fold)."""
    settings = {}
    for layer in layers:
        settings.update(layer)
    if seed is not None:
        settings["seed"] = seed
        if settings.get("vectors", "").startswith(PPDB_TUNED):
            settings["vectors"] = seed_name(settings["vectors"], seed)
    if holdout:
        settings.update(holdout=holdout, dev_years=[])
    return settings


def paragram_settings(config: dict, models: dict[str, dict], name: str) -> dict:
    """Resolved settings of a model: defaults, then its preset, then its own keys (fold names too)."""
    paragram = config["paragram"]
    base, holdout = fold_model(name, "paragram model")
    base, seed = seed_model(base)
    if base not in models:
        raise KeyError(f"{base!r} is not a paragram model (paragram.models, or {PER_SET_PREFIX}<year>-<dataset>)")
    entry = models[base]
    preset = entry.get("preset", paragram["defaults"]["preset"])
    return layered_settings(
        {"dev_years": [], "exclude": [], "holdout": None},
        paragram["defaults"],
        paragram["presets"][preset],
        entry,
        {"preset": preset, "dev_years": model_sets(config, base)["dev_years"] if base in paragram["models"] else []},
        seed=seed,
        holdout=holdout,
    )


def table_job_parts(datasets: list[Dataset]) -> dict[str | None, list[Dataset]]:
    """The sets one job of a per-set rule writes together, by :attr:`Dataset.job_part`: part None, every set
    that is not a test set (what models are fitted and chosen on), then each group of test sets apart. A test
    set added beside a protocol is a job of its own: it rewrites no other set's table, so no model fitted on
    those runs again."""
    parts: dict[str | None, list[Dataset]] = {}
    for dataset in datasets:
        parts.setdefault(dataset.job_part, []).append(dataset)
    return parts


def training_inputs(settings: dict, datasets: list[Dataset]) -> dict[str, list[str] | str]:
    """What a paragram training job reads: its pair tables, word vectors, the unlabeled training
    sentences (for component removal) and its dev sets."""
    dev = select(datasets, role="train", years=settings["dev_years"])
    unlabeled = select(datasets, role="train")
    inputs = {
        "pairs": [paraphrase_table(table) for table in settings["pairs"]],
        "vectors": vectors_path(settings["vectors"]),
        "unlabeled": [english_tokens_path(d) for d in unlabeled],
        "dev_pairs": [pairs_path(d) for d in dev],
        "dev_tokens": [english_tokens_path(d) for d in dev],
    }
    if (
        settings["unknown"] == "encode"
    ):  # the unknown words of the sentences it reads (stsynth.dcu2016.sentence_model.fit)
        inputs["unknown"] = list(dict.fromkeys(unknown_vectors_path(d) for d in [*unlabeled, *dev]))
    return inputs


def similarity_inputs(settings: dict, datasets: list[Dataset]) -> dict[str, list[str]]:
    """What a paragram similarity job reads besides the model: every set's tokens and, for ``unknown:
    encode``, every set's unknown-word vectors (in the same order)."""
    inputs = {"tokens": [english_tokens_path(d) for d in datasets]}
    if settings["unknown"] == "encode":
        inputs["unknown"] = [unknown_vectors_path(d) for d in datasets]
    return inputs


def gold_table_settings(config: dict, table: str) -> dict:
    """A gold-filtered paraphrase pair table's threshold (its own, else paraphrase_pairs.threshold) and years."""
    entry = gold_tables(config)[table]
    return {"threshold": entry.get("threshold", config["paraphrase_pairs"]["threshold"]), "years": entry["years"]}


def sweep_threshold(config: dict) -> float:
    """The threshold the sweep's plot marks as in use: that of the first gold table the sweep's model
    trains on (:func:`gold_table_settings`), else ``paraphrase_pairs.threshold``."""
    pairs = config["paraphrase_pairs"]
    model = config["paragram"]["models"].get(pairs["sweep"]["model"], {})
    gold = gold_tables(config)
    tables = [table for table in model.get("pairs", []) if table in gold]
    return gold_table_settings(config, tables[0])["threshold"] if tables else pairs["threshold"]


def default_paragram_settings(config: dict) -> dict:
    """paragram.defaults with their preset's trainer settings: an untuned model's settings."""
    paragram = config["paragram"]
    return layered_settings(paragram["defaults"], paragram["presets"][paragram["defaults"]["preset"]])


def dev_table_sets(config: dict, datasets: list[Dataset]) -> list[Dataset]:
    """The sets of the fusion's Table 1 analog: the dev protocol's validation years."""
    return select(datasets, role="train", years=split_sets(config)["dev_validate"])


def threshold_sweep_inputs(config: dict, models: dict[str, dict], datasets: list[Dataset]) -> dict:
    """The sweep model's training inputs, with the sweep years' pair and token tables as its pairs."""
    sweep = sweep_settings(config)
    train = select(datasets, role="train", years=sweep["years"])
    return {
        **training_inputs(paragram_settings(config, models, sweep["model"]), datasets),
        "pairs": [pairs_path(d) for d in train],
        "pair_tokens": [english_tokens_path(d) for d in train],
    }


def source_comparison_sets(config: dict, datasets: list[Dataset]) -> list[tuple[str, Dataset]]:
    """(split, dataset): the dev years' sets, then the English test sets."""
    dev = select(datasets, role="train", years=split_sets(config)["dev_validate"])
    return [("dev", d) for d in dev] + [("test", d) for d in select(datasets, role="test", track="en")]


def source_comparison_inputs(config: dict, datasets: list[Dataset]) -> dict:
    sets = [d for _, d in source_comparison_sets(config, datasets)]
    return {
        "vectors": [vectors_path(s) for s in config["paragram"]["compare_sources"]["sources"]],
        "unlabeled": [english_tokens_path(d) for d in select(datasets, role="train")],
        "pairs": [pairs_path(d) for d in sets],
        "tokens": [english_tokens_path(d) for d in sets],
    }


def ppdb_vector_settings(config: dict, base: str) -> dict:
    """The settings that tune word-vector source ``base`` on PPDB lexical pairs (``vectors.ppdb``); a seed
    study's ``<base>.seed<s>`` (``ppdb-paragram-<base>.seed<s>``: read by a seeded model or mean) with seed s
    for the pair subset and the trainer."""
    settings, seed = config["vectors"]["ppdb"], seed_model(base)[1]
    return settings if seed is None else {**settings, "trainer": {**settings["trainer"], "seed": seed}}


# --- encoders ---------------------------------------------------------------------------------


def tuned_encoder_settings(config: dict, name: str) -> dict:
    """Resolved settings of a tuned encoder: encoder.tuning.defaults, then its entry (fold names too)."""
    tuning = config["encoder"]["tuning"]
    base, holdout = fold_model(name, "tuned encoder")
    base, seed = seed_model(base)
    if base not in tuning["models"]:
        raise KeyError(f"{base!r} is not a tuned encoder (encoder.tuning.models)")
    entry = tuning["models"][base]
    sets = model_sets(config, base, entry.get("protocol"))  # a model with its own protocol learns from its sets
    if {**tuning["defaults"], **entry}["loss"] == "mnrl":  # reads pair tables, no gold
        sets["gold_years"] = []
    settings = layered_settings(
        {"gold_years": [], "pairs": [], "dev_years": [], "start": None, "holdout": None},
        tuning["defaults"],
        {key: value for key, value in entry.items() if key != "protocol"},
        sets,
        seed=seed,
        holdout=holdout,
    )
    settings["start"] = settings["start"] or config["encoder"]["default"]
    if seed is not None and is_tuned(config, settings["start"]):  # a tuned start model's same seed
        settings["start"] = seed_name(settings["start"], seed)
    if holdout and is_tuned(config, settings["start"]):  # a tuned start model's same fold
        settings["start"] = fold_names(settings["start"], holdout["folds"])[holdout["fold"]]
    return settings


def tuned_encoder_inputs(
    config: dict, settings: dict, datasets: list[Dataset], encoder_folder=None
) -> dict[str, list[str] | str]:
    """What a tuning job reads: gold pair tables (graded losses), paraphrase pair tables (mnrl), the
    English pair tables of its dev sets, and what it waits for of the encoder it starts from
    (``encoder_folder``: name -> inputs; default stsynth.encoders.encoder.job_inputs: a tuned model's folder)."""
    encoder_folder = encoder_folder or (lambda name: job_inputs(config, name))
    return {
        "gold": [english_pairs_path(d) for d in select(datasets, role="train", years=settings["gold_years"])]
        if settings["gold_years"]
        else [],
        "pairs": [paraphrase_table(table) for table in settings["pairs"]],
        "dev": [english_pairs_path(d) for d in select(datasets, role="train", years=settings["dev_years"])]
        if settings["dev_years"]
        else [],
        "encoder_folder": encoder_folder(settings["start"]),
    }


# --- comparisons between runs (rule compare_runs) ---------------------------------------------


SENTENCE_VECTOR_PROTOCOLS = ("final", "dev")  # a {final, dev} source: the final model and the dev-protocol one


def sentence_vector_table(name: str, entry: dict, protocol: str) -> tuple[str, str]:
    """(kind, model) whose table a source reads under a protocol (``final`` or ``dev``)."""
    kind, value = sentence_vector_source(name, entry)
    return kind, value[protocol] if isinstance(value, dict) else value


def seed_study_runs(config: dict) -> dict[str, list[str]]:
    """Each run of ``seed_study.runs`` -> its seed-study runs, in seed order (none without seeds)."""
    study = config.get("seed_study", {"seeds": [], "runs": []})
    return (
        {name: [seed_name(name, seed) for seed in study["seeds"]] for name in study["runs"]} if study["seeds"] else {}
    )


def seeds_reach(config: dict, run: Run) -> bool:
    """Whether a seed reaches the run's figures: anything it trains (an untrained paragram model draws its
    rare word with one, `unknown: rare`); not the baseline, another system's files, a named encoder."""
    if run.stage in ("baseline", "external"):
        return False
    if run.stage == "encoder":
        return is_tuned(config, run.encoder[0])
    if run.stage == "paragram":
        settings = paragram_settings(config, config["paragram"]["models"], run.model)
        return settings["epochs"] > 0 or settings["unknown"] == "rare"
    return True


def seed_study_pairs(config: dict) -> list[list[str]]:
    """The compared pairs (:func:`run_comparisons`) the seed study can pair seed by seed: both runs in it,
    or one in it and the other one no seed reaches."""
    studied, runs = set(seed_study_runs(config)), runs_of(config)
    return [
        pair
        for pair in run_comparisons(config)
        if studied & set(pair) and all(run in studied or not seeds_reach(config, runs[run]) for run in pair)
    ]
