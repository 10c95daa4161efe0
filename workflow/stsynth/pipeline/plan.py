"""What each job reads, worked out from config.yaml: datasets, runs, paragram models, encoders.

The rule files (workflow/rules/*.smk) only call these functions; everything that decides which
file a job reads lives here (the paths themselves in stsynth.core.paths, a fusion run's splits in
stsynth.dcu2016.fusion_plan), as plain functions of the config and the declared datasets, with unit tests
(tests/test_plan.py).

Runs. ``runs:`` in config.yaml is the one place that says where a run's scores come from; its
``stage`` is one of :data:`RUN_STAGES`. Every run's predictions are written by rule ``predict``
(workflow/rules/predict.smk) from the table :func:`run_source` names:

====================  ==============================================  ===========================
stage                 table read per test set                         produced by (rule; module)
====================  ==============================================  ===========================
``baseline``          the pair table                                  pair_table; stsynth.dcu2016.baseline
``paragram``          ``resources/similarity/{model}/...``            paragram_similarity; stsynth.word_vectors.paragram
``paragram-per-set``  same, model ``synthetic-per-set-<year>-<name>``  paragram_similarity
``encoder``           ``resources/encoder/{encoder}/...``              encoder_similarity_<encoder>;
                                                                      stsynth.encoders.encoder
``fusion``            ``results/fusion/{run}/predictions.parquet``    fusion_fit; stsynth.dcu2016.fusion
``head``              ``results/head/{run}/predictions.parquet``      head_fit; stsynth.sts2017.head
``external``          the run's ``predictions`` files                 predict; stsynth.results.predict
====================  ==============================================  ===========================

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

from dataclasses import dataclass, fields, replace

from ..core.folds import fold_model, fold_names, seed_model, seed_name
from ..core.pairs import Dataset
from ..core.paths import (
    EVENT_VECTOR_SOURCES,
    PPDB_TUNED,
    encoder_path,
    english_pairs_path,
    english_tokens_path,
    fusion_path,
    head_path,
    pairs_path,
    paraphrase_table,
    similarity_path,
    unknown_vectors_path,
    vectors_path,
)
from ..encoders.encoder import is_tuned, job_inputs

RUN_STAGES = ("baseline", "paragram", "paragram-per-set", "encoder", "fusion", "head", "external")
PER_SET_PREFIX = "synthetic-per-set-"
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


def select(datasets, role=None, track=None, years=None) -> list[Dataset]:
    """Datasets of a role and track; ``years``: a selection of years or groups (config keys such as
    ``years``, ``dev_years``, ``train_years`` name either: 2015, or a group such as ``sts-dev``)."""
    selection = None if years is None else {str(value) for value in years}
    return [
        d
        for d in datasets
        if role in (None, d.role)
        and track in (None, d.track)
        and (selection is None or str(d.year) in selection or d.group_name in selection)
    ]


def vocabulary_datasets(config: dict, datasets: list[Dataset]) -> list[Dataset]:
    """The datasets whose tokens enter the minilm-static vocabulary (vectors.minilm-static.vocabulary):
    ``training``, the training-role sets (no test sentence is read, as the paper added no test words
    to paragram-XXL's vocabulary); ``all``, every set (transductive); or a list of years/groups."""
    vocabulary = config["vectors"]["minilm-static"]["vocabulary"]
    if vocabulary == "all":
        return list(datasets)
    if vocabulary == "training":
        return select(datasets, role="train")
    return select(datasets, years=vocabulary)


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


@dataclass(frozen=True)
class Run:
    name: str
    stage: str
    model: str | None = None  # paragram runs: the paragram model
    groups: tuple[str, ...] = ()  # fusion runs
    # encoder runs: the encoder whose cosines are the scores (twice); fusion runs: the encoders (final,
    # dev) of the encoder features. A named encoder, or a tuned one (its final and dev-protocol models).
    encoder: tuple[str, str] | None = None
    study: bool = False  # built by the target `studies`, not by `all`
    predictions: str | None = None  # external runs: another system's prediction files, "{year}"/"{dataset}" in the path
    vectors: tuple[str, ...] = ()  # head runs: the sentence-vector sources (config sentence_vectors), concatenated
    preset: str | None = None  # head runs: fixed settings (head.presets) instead of the dev grid
    # seed-study runs (<run>.seed<s>, config seed_study): every model the run trains is seeded s
    seed: int | None = None
    seed_of: str | None = None  # the run it repeats


def run_encoder(config: dict, entry: dict) -> tuple[str, str] | None:
    """(final, dev) encoder of an encoder or fusion run's entry: its ``model`` (a tuned encoder, encoder
    runs), its ``encoder`` (a name, or ``{final, dev}``), else ``encoder.default``."""
    if entry["stage"] not in ("encoder", "fusion"):
        return None
    encoder = entry.get("model") or entry.get("encoder") or config["encoder"]["default"]
    return (encoder["final"], encoder["dev"]) if isinstance(encoder, dict) else (encoder, encoder)


# Stages whose runs the seed study repeats: what they train takes a seed. A head run's seed reaches the head,
# its paraphrase-embedding models (and the PPDB tuning of their initial vectors), the skip-gram vectors it
# averages (EE, W2V) and the PPDB tuning of the word vectors it averages (the paragram stand-ins); an
# encoder's embeddings keep theirs.
SEEDED_STAGES = ("paragram", "paragram-per-set", "encoder", "fusion", "head")


def runs_of(config: dict) -> dict[str, Run]:
    """Every declared run, then the seed study's (:func:`seeded_run`)."""
    runs = {}
    for name, entry in config["runs"].items():
        if entry["stage"] not in RUN_STAGES:
            raise ValueError(f"runs.{name}.stage: {entry['stage']!r} is not one of {', '.join(RUN_STAGES)}")
        runs[name] = Run(
            name,
            entry["stage"],
            entry.get("model") if entry["stage"] == "paragram" else None,
            tuple(entry.get("groups", ())),
            run_encoder(config, entry),
            bool(entry.get("study", False)),
            entry.get("predictions"),
            tuple(entry.get("vectors", ())),
            entry.get("preset"),
        )
    study = config.get("seed_study", {"seeds": [], "runs": []})
    for name in study["runs"]:
        if name not in runs:
            raise ValueError(f"seed_study.runs: {name!r} is not a run in runs")
        for seed in study["seeds"]:
            seeded = seeded_run(config, runs[name], seed)
            runs[seeded.name] = seeded
    return runs


def seeded_run(config: dict, run: Run, seed: int) -> Run:
    """``<run>.seed<s>``: the run with every model it trains seeded ``s`` (stsynth.core.folds.seed_name: its
    paragram models and their folds, its tuned encoders; a fusion run's regressor and dev search too; a head
    run's head and the sources it reads that :func:`seeded_source` names, ``<source>.seed<s>``); a study run,
    never in ``all``. Refused for a run that trains nothing a seed reaches."""
    encoder = tuple(seed_name(e, seed) if is_tuned(config, e) else e for e in run.encoder) if run.encoder else None
    vectors = tuple(seed_name(source, seed) if seeded_source(config, source) else source for source in run.vectors)
    if run.stage not in SEEDED_STAGES or (run.stage == "encoder" and encoder == run.encoder):
        raise ValueError(
            f"seed_study.runs: {run.name} (stage {run.stage}) trains nothing the seed study can seed "
            f"(stages {', '.join(SEEDED_STAGES)}; an encoder run only with a tuned encoder)"
        )
    return replace(
        run,
        name=seed_name(run.name, seed),
        model=seed_name(run.model, seed) if run.model else None,
        encoder=encoder,
        vectors=vectors,
        study=True,
        seed=seed,
        seed_of=run.name,
    )


def seeded_source(config: dict, source: str) -> bool:
    """Whether a head run's seed reaches a sentence-vector source: a paraphrase-embedding model's, a mean
    over skip-gram vectors of the event corpus (EE, W2V: ``<vectors>.seed<s>``, rule event_embeddings), or a
    mean over PPDB-tuned word vectors (the paragram stand-ins: ``ppdb-paragram-<base>.seed<s>``, rule
    vectors_ppdb_paragram)."""
    kind, value = sentence_vector_source(source, config["sentence_vectors"][source])
    return (
        kind == "paraphrase_cnn"
        or (kind in ("events", "mean") and value in EVENT_VECTOR_SOURCES)
        or (kind == "mean" and value.startswith(PPDB_TUNED))
    )


def headline_runs(config: dict) -> list[str]:
    """The runs of the results table, built by ``snakemake all``."""
    return [name for name, run in runs_of(config).items() if not run.study]


def study_runs(config: dict) -> list[str]:
    """Runs marked ``study: true``: built by ``snakemake studies`` (the seed study's runs are read by its
    own table, :func:`seed_study_runs`)."""
    return [name for name, run in runs_of(config).items() if run.study and run.seed_of is None]


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


def per_set_model(d: Dataset) -> str:
    return f"{PER_SET_PREFIX}{d.year}-{d.name}"


def run_model(run: Run, d: Dataset) -> str | None:
    """The paragram model whose cosines are the run's scores on test set d (None: not a paragram run)."""
    return {"paragram": run.model, "paragram-per-set": seed_name(per_set_model(d), run.seed)}.get(run.stage)


def run_source(run: Run, d: Dataset) -> str:
    """The table rule ``predict`` turns into the run's predictions for test set d."""
    if run.stage == "baseline":
        return pairs_path(d)
    if run.stage in ("paragram", "paragram-per-set"):
        return similarity_path(run_model(run, d), d)
    if run.stage == "encoder":
        return encoder_path(run.encoder[0], d)
    if run.stage == "external":
        return external_predictions_path(run.predictions, d)
    if run.stage == "head":
        return head_path(run.name, "predictions.parquet")
    return fusion_path(run.name, "predictions.parquet")


def external_prediction_files(config: dict, datasets: list[Dataset]) -> list[str]:
    """Every prediction file of every external run (sha256-locked like local dataset files:
    stsynth.core.local_files)."""
    tests = select(datasets, role="test")
    return [external_predictions_path(run.predictions, d) for run in runs_of_stage(config, "external") for d in tests]


def run_sources(run: Run, tests: list[Dataset]) -> list[str]:
    """What rule predict reads for a run: :func:`run_source` of every test set."""
    return [run_source(run, d) for d in tests]


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
        {"preset": preset},
        seed=seed,
        holdout=holdout,
    )


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
    pairs = config["paraphrase_pairs"]
    entry = pairs["tables"][table]
    return {"threshold": entry.get("threshold", pairs["threshold"]), "years": entry["years"]}


def sweep_threshold(config: dict) -> float:
    """The threshold the sweep's plot marks as in use: that of the first gold table the sweep's model
    trains on (:func:`gold_table_settings`), else ``paraphrase_pairs.threshold``."""
    pairs = config["paraphrase_pairs"]
    model = config["paragram"]["models"].get(pairs["sweep"]["model"], {})
    tables = [table for table in model.get("pairs", []) if table in pairs["tables"]]
    return gold_table_settings(config, tables[0])["threshold"] if tables else pairs["threshold"]


def default_paragram_settings(config: dict) -> dict:
    """paragram.defaults with their preset's trainer settings: an untuned model's settings."""
    paragram = config["paragram"]
    return layered_settings(paragram["defaults"], paragram["presets"][paragram["defaults"]["preset"]])


def dev_table_sets(config: dict, datasets: list[Dataset]) -> list[Dataset]:
    """The sets of the fusion's Table 1 analog: the dev protocol's validation years."""
    return select(datasets, role="train", years=config["fusion"]["dev"]["validate_years"])


def threshold_sweep_inputs(config: dict, models: dict[str, dict], datasets: list[Dataset]) -> dict:
    """The sweep model's training inputs, with the sweep years' pair and token tables as its pairs."""
    sweep = config["paraphrase_pairs"]["sweep"]
    train = select(datasets, role="train", years=sweep["years"])
    return {
        **training_inputs(paragram_settings(config, models, sweep["model"]), datasets),
        "pairs": [pairs_path(d) for d in train],
        "pair_tokens": [english_tokens_path(d) for d in train],
    }


def source_comparison_sets(config: dict, datasets: list[Dataset]) -> list[tuple[str, Dataset]]:
    """(split, dataset): the dev years' sets, then the English test sets."""
    dev = select(datasets, role="train", years=config["paragram"]["compare_sources"]["dev_years"])
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
    settings = layered_settings(
        {"gold_years": [], "pairs": [], "dev_years": [], "start": None, "holdout": None},
        tuning["defaults"],
        tuning["models"][base],
        seed=seed,
        holdout=holdout,
    )
    settings["start"] = settings["start"] or config["encoder"]["default"]
    if seed is not None and is_tuned(config, settings["start"]):  # a tuned start model's same seed
        settings["start"] = seed_name(settings["start"], seed)
    if holdout and is_tuned(config, settings["start"]):  # a tuned start model's same fold
        settings["start"] = fold_names(settings["start"], holdout["folds"])[holdout["fold"]]
    return settings


def tuned_encoder_inputs(config: dict, settings: dict, datasets: list[Dataset]) -> dict[str, list[str] | str]:
    """What a tuning job reads: gold pair tables (graded losses), paraphrase pair tables (mnrl), the
    English pair tables of its dev sets, and the folder it starts from (a tuned model's, or a named
    encoder's local folder)."""
    return {
        "gold": [english_pairs_path(d) for d in select(datasets, role="train", years=settings["gold_years"])]
        if settings["gold_years"]
        else [],
        "pairs": [paraphrase_table(table) for table in settings["pairs"]],
        "dev": [english_pairs_path(d) for d in select(datasets, role="train", years=settings["dev_years"])]
        if settings["dev_years"]
        else [],
        "encoder_folder": job_inputs(config, settings["start"]),
    }


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


SENTENCE_VECTOR_KINDS = ("mean", "events", "paraphrase_cnn", "encoder")  # a sentence_vectors entry names one
SENTENCE_VECTOR_PROTOCOLS = ("final", "dev")  # a {final, dev} source: the final model and the dev-protocol one


def sentence_vector_source(name: str, entry: dict) -> tuple[str, object]:
    """(kind, value) of a ``sentence_vectors`` entry."""
    kinds = [kind for kind in SENTENCE_VECTOR_KINDS if kind in entry]
    if len(kinds) != 1:
        raise ValueError(
            f"sentence_vectors.{name}: give exactly one of {', '.join(SENTENCE_VECTOR_KINDS)} (got {kinds or 'none'})"
        )
    return kinds[0], entry[kinds[0]]


def sentence_vector_table(name: str, entry: dict, protocol: str) -> tuple[str, str]:
    """(kind, model) whose table a source reads under a protocol (``final`` or ``dev``)."""
    kind, value = sentence_vector_source(name, entry)
    return kind, value[protocol] if isinstance(value, dict) else value
