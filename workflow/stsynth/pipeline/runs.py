"""The runs of config.yaml (``runs:``, the one place that says where a run's scores come from): each as a
:class:`Run`, the tables its predictions are read from, which runs are headline results, studies or seed-study
repeats, and which pairs of runs are compared.

A run's ``stage`` is one of :data:`RUN_STAGES`. Every run's predictions are written by rule ``predict``
(workflow/rules/predict.smk) from the table :func:`run_source` names:

====================  ==============================================  ===========================
stage                 table read per test set                         produced by (rule; module)
====================  ==============================================  ===========================
``baseline``          the pair table                                  pair_table; stsynth.dcu2016.baseline
``paragram``          ``resources/similarity/{model}/...``            paragram_similarity; stsynth.word_vectors.paragram
``paragram-per-set``  same, model ``synthetic-per-set-<year>-<name>``  paragram_similarity
``encoder``           ``resources/encoder/{encoder}/...``              encoder_similarity_<encoder>;
                                                                      stsynth.encoders.encoder
``fusion``            ``results/fusion/{run}/predictions.parquet``    fusion_predict; stsynth.dcu2016.fusion
``head``              ``results/head/{run}/predictions.parquet``      head_predict; stsynth.sts2017.head
``external``          the run's ``predictions`` files                 predict; stsynth.results.predict
====================  ==============================================  ===========================
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..core.datasets import Dataset, select
from ..core.folds import seed_name
from ..core.paths import (
    EVENT_VECTOR_SOURCES,
    PPDB_TUNED,
    encoder_path,
    fusion_path,
    head_path,
    pairs_path,
    similarity_path,
)
from ..encoders.encoder import is_tuned

RUN_STAGES = ("baseline", "paragram", "paragram-per-set", "encoder", "fusion", "head", "external")


PER_SET_PREFIX = "synthetic-per-set-"


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
    # fusion runs: the settings the dev search chose, recorded in the config (`chosen`): the fit reads them and
    # the dev search is a study (make studies checks that it still chooses them); None: searched at build time
    chosen: tuple[tuple[str, object], ...] | None = None
    # fusion runs: more encoders (final, dev) whose similarities join the encoder features, each column named
    # <column>@<final encoder> (stsynth.dcu2016.fusion_plan.more_encoder_features)
    more_encoders: tuple[tuple[str, str], ...] = ()

    def chosen_settings(self) -> dict | None:
        """The recorded choice as the fit takes it (stsynth.dcu2016.fusion.chosen_parameters' form), or None."""
        return None if self.chosen is None else {key: list(v) if key == "init" else v for key, v in self.chosen}


def run_encoder(config: dict, entry: dict) -> tuple[str, str] | None:
    """(final, dev) encoder of an encoder or fusion run's entry: its ``model`` (a tuned encoder, encoder
    runs), its ``encoder`` (a name, or ``{final, dev}``), else ``encoder.default``."""
    if entry["stage"] not in ("encoder", "fusion"):
        return None
    encoder = entry.get("model") or entry.get("encoder") or config["encoder"]["default"]
    return final_and_dev_pair(encoder)


def final_and_dev_pair(encoder: str | dict) -> tuple[str, str]:
    """(final, dev) of an encoder given as a name or as ``{final, dev}``."""
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
            chosen=recorded_choice(entry.get("chosen")),
            more_encoders=tuple(final_and_dev_pair(e) for e in entry.get("more_encoders", ())),
        )
    study = config.get("seed_study", {"seeds": [], "runs": []})
    for name in study["runs"]:
        if name not in runs:
            raise ValueError(f"seed_study.runs: {name!r} is not a run in runs")
        for seed in study["seeds"]:
            seeded = seeded_run(config, runs[name], seed)
            runs[seeded.name] = seeded
    return runs


CHOSEN_KEYS = ("init", "max_depth", "learning_rate", "subsample", "n_estimators")  # a fusion's dev-chosen settings


def recorded_choice(chosen: dict | None) -> tuple[tuple[str, object], ...] | None:
    """A run's ``chosen`` entry as the frozen :class:`Run` holds it, in :data:`CHOSEN_KEYS`' order."""
    if chosen is None:
        return None
    return tuple((key, tuple(chosen[key]) if key == "init" else chosen[key]) for key in CHOSEN_KEYS)


def headline_runs(config: dict) -> list[str]:
    """The runs of the results table, built by ``snakemake all``."""
    return [name for name, run in runs_of(config).items() if not run.study]


def study_runs(config: dict) -> list[str]:
    """Runs marked ``study: true``: built by ``snakemake studies`` (the seed study's runs are read by its
    own table, :func:`seed_study_runs`)."""
    return [name for name, run in runs_of(config).items() if run.study and run.seed_of is None]


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


# study? -> (rule, results/scores/<name>.{parquet,md}) of the comparisons between runs
COMPARISONS = {False: ("compare_runs", "comparisons"), True: ("compare_study_runs", "study_comparisons")}


def run_comparisons(config: dict, study: bool | None = None) -> list[list[str]]:
    """``[run, against]`` pairs for the paired bootstrap (config ``scoring.compare``): every run against
    the ``reference`` run, then the listed ``pairs``, then each run's ``against`` runs (an overlay's runs name
    theirs); pairs naming a run not in ``runs:`` are left out.
    ``study``: False, only pairs of headline runs (``all``); True, only pairs with a study run
    (``studies``); None, all of them."""
    compare, runs = config["scoring"]["compare"], list(config["runs"])
    studies = set(study_runs(config))
    reference = compare.get("reference")
    wanted = [[run, reference] for run in runs if reference in runs and run != reference]
    wanted += [list(pair) for pair in compare.get("pairs", []) if all(run in runs for run in pair)]
    wanted += [
        [run, other] for run, entry in config["runs"].items() for other in entry.get("against", []) if other in runs
    ]
    pairs = [list(pair) for pair in dict.fromkeys(tuple(pair) for pair in wanted)]
    return pairs if study is None else [pair for pair in pairs if bool(studies & set(pair)) == study]


def compared_runs(config: dict, study: bool | None = None) -> list[str]:
    return list(dict.fromkeys(run for pair in run_comparisons(config, study) for run in pair))


SENTENCE_VECTOR_KINDS = ("mean", "events", "paraphrase_cnn", "encoder")  # a sentence_vectors entry names one


def declare_paraphrase_studies(config: dict) -> list[str]:
    """A paraphrase-embedding model is declared once, in place: each ``paraphrase_cnn.models`` and
    ``paraphrase_cnn.studies`` entry is a sentence-vector source of its name (unless ``sentence_vectors`` names that
    source otherwise), and each study model joins the models with a head run of its name over it, in the studies.
    Run at start-up after the schema's check; the problems: a study model named like a model or a run."""
    section = config.get("paraphrase_cnn", {})
    studies, problems = section.pop("studies", {}), []
    for name in studies:
        if name in section["models"] or name in config["runs"]:
            where = "paraphrase_cnn.models" if name in section["models"] else "runs"
            problems.append(f"paraphrase_cnn.studies.{name}: {where} has a {name} already; a study names its own")
    if problems:
        return problems
    section["models"].update(studies)
    vectors = config.setdefault("sentence_vectors", {})
    for name in section["models"]:
        vectors.setdefault(name, {"paraphrase_cnn": name})
    config["runs"].update({name: {"stage": "head", "vectors": [name], "study": True} for name in studies})
    return []


def sentence_vector_source(name: str, entry: dict) -> tuple[str, object]:
    """(kind, value) of a ``sentence_vectors`` entry."""
    kinds = [kind for kind in SENTENCE_VECTOR_KINDS if kind in entry]
    if len(kinds) != 1:
        raise ValueError(
            f"sentence_vectors.{name}: give exactly one of {', '.join(SENTENCE_VECTOR_KINDS)} (got {kinds or 'none'})"
        )
    return kinds[0], entry[kinds[0]]


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


def seeded_run(config: dict, run: Run, seed: int) -> Run:
    """``<run>.seed<s>``: the run with every model it trains seeded ``s`` (stsynth.core.folds.seed_name: its
    paragram models and their folds, its tuned encoders; a fusion run's regressor and dev search too; a head
    run's head and the sources it reads that :func:`seeded_source` names, ``<source>.seed<s>``); a study run,
    never in ``all``. Refused for a run that trains nothing a seed reaches."""

    def seeded(encoders: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(seed_name(e, seed) if is_tuned(config, e) else e for e in encoders)

    encoder = seeded(run.encoder) if run.encoder else None
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
        more_encoders=tuple(seeded(pair) for pair in run.more_encoders),
        vectors=vectors,
        study=True,
        seed=seed,
        seed_of=run.name,
        chosen=None,  # the seed reaches the fusion's dev search too: its run searches again
    )
