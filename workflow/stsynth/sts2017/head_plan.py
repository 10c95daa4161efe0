"""What the SemEval-2017 system's jobs read, worked out from config.yaml: the paraphrase-embedding
models' settings and inputs (stsynth.sts2017.paraphrase_cnn), the sentence-vector tables
(stsynth.sts2017.sentence_vectors) and, per regression-head run (stage ``head``; stsynth.sts2017.head), its
splits and settings.

A head run has four splits, as a fusion run has (stsynth.dcu2016.fusion_plan), from the protocol's sets
(stsynth.pipeline.protocol.split_sets): ``dev_train`` and ``dev_validate`` read each source's dev-protocol table;
``train`` (the final sets) and ``test`` (the test sets) read the final ones.
Its settings are a preset's (``head.presets``: fixed, nothing chosen) or, without one, every point
of ``head.grid`` over ``head.defaults`` with the number of epochs, all chosen on ``dev_validate``.
"""

from __future__ import annotations

import itertools

from ..core.datasets import Dataset, select
from ..core.folds import seed_model, seed_name
from ..core.paths import (
    corpus_copy,
    english_pairs_path,
    english_tokens_path,
    pairs_path,
    paraphrase_table,
    sentence_vectors_path,
    unknown_vectors_path,
    vectors_path,
)
from ..pipeline.plan import SENTENCE_VECTOR_PROTOCOLS, layered_settings, sentence_vector_table
from ..pipeline.protocol import model_sets, split_sets
from ..pipeline.runs import Run, runs_of

# --- paraphrase-embedding models ------------------------------------------------------------------


def pe_settings(config: dict, name: str) -> dict:
    """A paraphrase-embedding model's settings: paraphrase_cnn.defaults, then its entry (``<model>.seed<s>``:
    then seed s, a head run's seed study)."""
    section = config["paraphrase_cnn"]
    base, seed = seed_model(name)
    if base not in section["models"]:
        raise KeyError(f"{name!r} is not a paraphrase-embedding model (paraphrase_cnn.models)")
    return layered_settings(section["defaults"], section["models"][base], model_sets(config, base), seed=seed)


def pe_inputs(config: dict, settings: dict, datasets: list[Dataset]) -> dict[str, list[str] | str]:
    """What a paraphrase-embedding training job reads: its word vectors, step 1's paraphrase pair
    tables (and the PPDB lexical pairs when it draws some), step 2's gold pair and token tables, and
    its dev sets' pair and token tables; with ``unknown: encode``, the gold and dev sets' unknown-word
    vectors (a paraphrase pair table's words the vocabulary lacks share the unknown-word row: the
    gold-threshold tables come from training sets, whose words the default vocabulary holds)."""
    gold = select(datasets, role="train", years=settings["gold_years"]) if settings["gold_years"] else []
    dev = select(datasets, role="train", years=settings["dev_years"]) if settings["dev_years"] else []
    ppdb = config["vectors"]["ppdb"]["pairs"]
    return {
        "vectors": vectors_path(settings["vectors"]),
        "pairs": [paraphrase_table(table) for table in settings["pairs"]],
        "ppdb": [corpus_copy(ppdb)] if settings["ppdb_pairs"] else [],
        "gold_pairs": [english_pairs_path(d) for d in gold],
        "gold_tokens": [english_tokens_path(d) for d in gold],
        "dev_pairs": [english_pairs_path(d) for d in dev],
        "dev_tokens": [english_tokens_path(d) for d in dev],
        "unknown": list(dict.fromkeys(unknown_vectors_path(d) for d in [*gold, *dev]))
        if settings["unknown"] == "encode"
        else [],
    }


def pe_grid_points(config: dict) -> list[dict]:
    """The dev grid of step 1 (paraphrase_cnn.grid): the grid model's settings at every (δ, λ)."""
    grid = config["paraphrase_cnn"]["grid"]
    base = pe_settings(config, grid["model"])
    return [
        layered_settings(base, {"delta": delta, "lambda": lam})
        for delta, lam in itertools.product(grid["delta"], grid["lambda"])
    ]


# --- sentence-vector tables -----------------------------------------------------------------------


def head_runs(config: dict) -> list[Run]:
    return [run for run in runs_of(config).values() if run.stage == "head"]


def run_tables(config: dict, run: Run, protocol: str) -> list[tuple[str, str]]:
    """(kind, model) of each source of a head run, in the run's order, under a protocol; a seed study's
    ``<source>.seed<s>`` (runs.seeded_source: PE, EE, W2V, the paragram stand-ins) reads the tables of its
    models or vectors seeded s."""
    tables = []
    for source in run.vectors:
        base, seed = seed_model(source)
        kind, model = sentence_vector_table(base, config["sentence_vectors"][base], protocol)
        tables.append((kind, seed_name(model, seed)))
    return tables


def vector_tables(config: dict) -> list[tuple[str, str]]:
    """Every sentence-vector table a head run reads (both protocols), each once."""
    return list(
        dict.fromkeys(
            table
            for run in head_runs(config)
            for protocol in SENTENCE_VECTOR_PROTOCOLS
            for table in run_tables(config, run, protocol)
        )
    )


def tables_of_kind(config: dict, kind: str) -> list[str]:
    return [name for table_kind, name in vector_tables(config) if table_kind == kind]


def mean_unknown(config: dict, source: str) -> str:
    """How the mean table of a word-vector source treats a word the source lacks (``skip`` or ``encode``):
    the ``unknown`` of the sentence_vectors entries that average it (one table per source, so they must
    agree: stsynth.pipeline.config_checks refuses entries that do not); a seed study's
    ``<source>.seed<s>`` as its source."""
    base = seed_model(source)[0]
    return next(
        (entry.get("unknown", "skip") for entry in config["sentence_vectors"].values() if entry.get("mean") == base),
        "skip",
    )


def sentence_vector_unknown_inputs(config: dict, kind: str, name: str, datasets: list[Dataset]) -> list[str]:
    """Every set's unknown-word vectors (in dataset order) when the ``kind`` table of ``name`` encodes the
    words its source lacks (a mean with ``unknown: encode``, a paraphrase-embedding model with
    ``unknown: encode``); else none."""
    encode = (mean_unknown(config, name) if kind == "mean" else pe_settings(config, name)["unknown"]) == "encode"
    return [unknown_vectors_path(d) for d in datasets] if encode else []


def head_split_sets(config: dict, datasets: list[Dataset]) -> dict[str, tuple[list[Dataset], str]]:
    """split -> (datasets, protocol) of every head run (module docstring)."""
    splits = split_sets(config)
    train = select(datasets, role="train")
    return {
        "dev_train": (select(train, years=splits["dev_train"]), "dev"),
        "dev_validate": (select(train, years=splits["dev_validate"]), "dev"),
        "train": (select(train, years=splits["final"]), "final"),
        "test": (select(datasets, role="test"), "final"),
    }


def head_splits(config: dict, run: Run, datasets: list[Dataset]) -> dict[str, list[dict]]:
    """split -> one plain dict per dataset (a rule param): its year, name, pair table and the run's
    sentence-vector tables, in source order."""
    return {
        split: [
            {
                "year": d.year,
                "dataset": d.name,
                "pairs": pairs_path(d),
                "vectors": [sentence_vectors_path(kind, name, d) for kind, name in run_tables(config, run, protocol)],
            }
            for d in sets
        ]
        for split, (sets, protocol) in head_split_sets(config, datasets).items()
    }


def split_files(entries: list[dict]) -> list[str]:
    return list(dict.fromkeys(path for entry in entries for path in [entry["pairs"], *entry["vectors"]]))


def head_settings(config: dict, run: Run) -> dict:
    """The run's settings (a rule param): ``points``, the settings the dev job tries, and ``choose_epochs``
    (False for a preset: its epochs are fixed)."""
    head = config["head"]
    if run.preset:
        return {
            "points": [layered_settings(head["defaults"], head["presets"][run.preset], seed=run.seed)],
            "choose_epochs": False,
        }
    grid = head["grid"]
    keys = list(grid)
    points = [
        layered_settings(head["defaults"], dict(zip(keys, values)), seed=run.seed)
        for values in itertools.product(*(grid[k] for k in keys))
    ]
    return {"points": points, "choose_epochs": True}
