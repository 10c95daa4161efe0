"""Zero-shot evaluation of sentence encoders on STS tasks, scored as MTEB scores them (`snakemake eval`).

Config ``eval`` (config.yaml): the encoders (``encoders``: named encoders of ``encoder.models``;
``models``: encoders given by where they are, :func:`location_entry`) and the tasks (``tasks``: an
MTEB-style task name -> the datasets it pools, ``year/name`` or a whole ``year``). No training,
no translation unless an es-en task is asked for (``crosslingual: true``; ``translate: never`` lets a
multilingual encoder read the Spanish side as it is).

What a task's scores are, per encoder (the scores table of stsynth.core.scoring, ``group`` = the task):
every dataset's Pearson and Spearman of the pair's score (``eval.similarity``: ``cosine``, MTEB's main
similarity, or ``model``, the model's own similarity function), the official weighted ALL, the mean,
the pooled correlation over every pair of the task (MTEB's scores: its STS12 is the five 2012 test sets
pooled), with bootstrap intervals. MTEB's TaskResult (:func:`task_result`) adds the pooled Pearson and
Spearman of the cosine, the negated Manhattan and Euclidean distances and the model's similarity, as
``mteb.evaluation.evaluators.STSEvaluator`` computes them; its main score is the cosine Spearman.

Similarity table schema (``results/eval/similarity/{encoder}/{year}/{dataset}.parquet``, row-aligned
with the pair table): ``year`` int16, ``dataset`` string, ``line`` int32, then float64 columns
:data:`SIMILARITIES`: ``cosine``, ``manhattan`` and ``euclidean`` (negated distances: larger is more
similar, as MTEB), ``dot``, ``model`` (the model's similarity function); NaN on the unscored lines (no
gold), whose sentences are never encoded.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import numpy as np
import pandas as pd

from ..core.datasets import Dataset
from ..core.similarity import cosines
from ..encoders.embedding_store import encoding_units, sentences_of
from ..encoders.encoder import encode_units, looks_like_path
from .mteb_results import model_identity

SIMILARITIES = ("cosine", "manhattan", "euclidean", "dot", "model")


class EvalConfigError(ValueError):
    """An ``eval`` setting that names nothing, or names it twice."""


# --- which encoders -----------------------------------------------------------------------------


def location_entry(
    location: str, where: str, is_dir=lambda p: Path(p).is_dir(), find_spec=importlib.util.find_spec
) -> tuple[str, dict]:
    """An encoder given by where it is (``eval.models``): a local folder (``path``), else an installed
    Python package with a ``model`` folder (``package``), else a hub name in the local cache
    (``hub``, ``org/name``). Returns the encoder's name (folder name; package name; hub name with
    ``/`` -> ``__``, MTEB's folder naming) and its ``encoder.models`` entry."""
    location = str(location).rstrip("/") or str(location)
    if is_dir(location):
        return _encoder_name(Path(location).name, where), {"path": location}
    if looks_like_path(location, is_dir):
        raise EvalConfigError(  # a path, not a hub name: its folder exists, the model in it does not
            f"{where}: {location!r} is no folder: {Path(location).parent} exists (relative paths are read from the "
            f"working directory, {Path.cwd()}) but holds no {Path(location).name}. Give the model folder's path "
            "(`make eval MODEL=...` and `stsynth eval -m` take it relative to where you run them)"
        )
    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", location) and find_spec(location) is not None:
        return _encoder_name(location, where), {"package": location}
    if re.fullmatch(r"[A-Za-z0-9][\w.-]*/[\w.-]+", location):
        return _encoder_name(location.replace("/", "__"), where), {"hub": location}
    raise EvalConfigError(
        f"{where}: {location!r} is no folder on this machine, no installed package and no hub name (org/name). "
        "Give a model folder (a sentence-transformers or transformers folder), an installed package whose "
        "`model` folder holds one, or a hub name in the local Hugging Face cache"
    )


def _encoder_name(name: str, where: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_-]", "-", name).strip("-_") or "model"
    if not re.match(r"[A-Za-z0-9]", name):
        raise EvalConfigError(f"{where}: cannot name an encoder after {name!r}")
    return name


def eval_encoders(config: dict) -> dict[str, dict]:
    """Encoder name -> its ``encoder.models`` entry, for every encoder ``eval`` evaluates: those named in
    ``eval.encoders``, then those given by location in ``eval.models`` (which are added to
    ``encoder.models`` by :func:`add_location_encoders`)."""
    models, settings = config["encoder"]["models"], config["eval"]
    chosen = {}
    for index, name in enumerate(settings["encoders"]):
        if name not in models:
            raise EvalConfigError(
                f"eval.encoders[{index}]: {name!r} is not a named encoder (encoder.models: "
                f"{', '.join(models)}); add it there, or give its folder in eval.models"
            )
        chosen[name] = models[name]
    return chosen


def add_location_encoders(config: dict, **probes) -> list[str]:
    """Turn ``eval.models`` (locations) into ``encoder.models`` entries and ``eval.encoders`` names
    (before the input checks, which then check them like any named encoder). Returns the names."""
    names = []
    for index, location in enumerate(config["eval"].get("models") or []):
        where = f"eval.models[{index}]"
        name, entry = location_entry(location, where, **probes)
        existing = config["encoder"]["models"].get(name)
        if existing is not None and existing != entry:
            raise EvalConfigError(
                f"{where}: {location!r} would be named {name!r}, which encoder.models already "
                f"names for {existing}; give it a name of its own there and list it in eval.encoders"
            )
        config["encoder"]["models"][name] = entry
        if name not in config["eval"]["encoders"]:
            config["eval"]["encoders"] = [*config["eval"]["encoders"], name]
        names.append(name)
    return names


def mteb_folders(encoders: dict[str, dict]) -> dict[str, str]:
    """MTEB folder (:func:`mteb_folder`) -> encoder, for every encoder evaluated; two encoders whose results
    would land in one folder (one ``model_name`` and revision) are refused, naming both."""
    folders = {}
    for name, entry in encoders.items():
        folder = mteb_folder(name, entry)
        if folder in folders:
            raise EvalConfigError(
                f"encoder.models.{name}: its MTEB results would be written to {folder}, as those of "
                f"encoder {folders[folder]} (the same model_name and revision); give one a model_name "
                "of its own"
            )
        folders[folder] = name
    return folders


def mteb_folder(name: str, entry: dict) -> str:
    """The model's folder below an MTEB results root: ``{name with / as __}/{revision}``."""
    model, revision = model_identity(name, entry)
    return f"{model.replace('/', '__').replace(' ', '_')}/{revision}"


# --- which tasks ----------------------------------------------------------------------------------


def resolve_tasks(settings: dict, datasets: list[Dataset]) -> tuple[dict[str, list[Dataset]], list[str]]:
    """Task -> its datasets (``eval.tasks``), in the order given, and notes. A dataset is ``year/name``,
    or a year (every dataset of it). A task with an es-en set only when ``eval.crosslingual`` is true;
    a task none of whose datasets is declared (config.yaml's STS12 in a config of other datasets) is left
    out with a note, so a trimmed config still runs `all`; one that names some of them is refused."""
    by_key = {f"{d.year}/{d.name}": d for d in datasets}
    tasks, seen, notes = {}, {}, []
    for task, references in settings["tasks"].items():
        found = {
            index: [by_key[str(r)]] if str(r) in by_key else [d for d in datasets if str(d.year) == str(r)]
            for index, r in enumerate(references)
        }
        if not any(found.values()):
            notes.append(
                f"eval.tasks.{task}: none of its datasets ({', '.join(map(str, references))}) is declared; "
                "the task is left out"
            )
            continue
        chosen = []
        for index, sets in found.items():
            where = f"eval.tasks.{task}[{index}]"
            if not sets:
                raise EvalConfigError(
                    f"{where}: {references[index]!r} names no dataset (datasets: year/name, e.g. "
                    f"{next(iter(by_key), '2016/headlines')}, or a year)"
                )
            for d in sets:
                key = f"{d.year}/{d.name}"
                if not d.has_gold:
                    raise EvalConfigError(f"{where}: {key} has no gold scores; a task scores only sets with gold")
                if key in seen:
                    raise EvalConfigError(f"{where}: {key} is in task {seen[key]} already; a set belongs to one task")
                seen[key] = task
                chosen.append(d)
        if len({d.track for d in chosen}) > 1:
            raise EvalConfigError(
                f"eval.tasks.{task}: mixes tracks ({', '.join(sorted({d.track for d in chosen}))}); "
                "give each track its own task"
            )
        if chosen[0].track == "en" or settings["crosslingual"]:
            tasks[task] = chosen
    return tasks, notes


def check_tasks(tasks: dict) -> None:
    """`snakemake eval` needs a task (asked only when eval is a target)."""
    if not tasks:
        raise EvalConfigError(
            "eval.tasks: no task to evaluate: none names a declared dataset with gold, or every "
            "one is es-en while eval.crosslingual is false"
        )


# --- similarities and scores --------------------------------------------------------------------


def pair_similarities(a: np.ndarray, b: np.ndarray, model_similarity: np.ndarray) -> dict[str, np.ndarray]:
    """Every :data:`SIMILARITIES` of row-aligned embeddings, as MTEB's STS evaluator computes them. Ours, not
    scikit-learn's paired distances (which MTEB calls): theirs differ in the last bits (cosine, euclidean:
    up to 1.5e-15), and the similarity tables keep their bytes."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return {
        "cosine": cosines(a, b),
        "manhattan": -np.abs(a - b).sum(axis=1),
        "euclidean": -np.sqrt(((a - b) ** 2).sum(axis=1)),
        "dot": (a * b).sum(axis=1),
        "model": np.asarray(model_similarity, dtype=np.float64),
    }


def encode_pairs(
    model, tables: list[pd.DataFrame], store, batch_size: int, normalize: bool, progress=None
) -> tuple[list[pd.DataFrame], int, int]:
    """The similarity table of every pair table, its scored lines' sentences encoded as one unit per table
    (stsynth.encoders.embedding_store: the bytes a pipeline job gives them) and read from ``store`` where it
    holds them; returns the tables, how many sentences were encoded and how many were read from the store.
    ``progress`` advances by each batch the model encodes."""
    import torch

    similarity, encoded, stored = [], 0, 0
    for table in tables:
        scored = table["gold"].notna().to_numpy()
        units = encode_units(model, encoding_units(table, every_line=False), batch_size, store, progress=progress)
        encoded, stored = encoded + units.encoded, stored + units.stored
        n = int(scored.sum())
        matrix = (units.vectors if normalize else units.raw)[units.rows(sentences_of(table[scored]))]
        with torch.no_grad():
            model_scores = model.similarity_pairwise(torch.from_numpy(matrix[:n]), torch.from_numpy(matrix[n:]))
        values = pair_similarities(matrix[:n], matrix[n:], model_scores.numpy())
        full = {name: np.full(len(table), np.nan) for name in SIMILARITIES}  # unscored lines: NaN
        for name in SIMILARITIES:
            full[name][scored] = values[name]
        similarity.append(similarity_table(table, full))
    return similarity, encoded, stored


def similarity_table(pairs: pd.DataFrame, similarities: dict[str, np.ndarray]) -> pd.DataFrame:
    table = pd.DataFrame(
        {
            "year": pairs["year"].to_numpy(),
            "dataset": pairs["dataset"].to_numpy(),
            "line": pairs["line"].to_numpy(),
            **{name: similarities[name] for name in SIMILARITIES},
        }
    )
    return table.astype(
        {"year": "int16", "dataset": "string", "line": "int32", **{name: "float64" for name in SIMILARITIES}}
    )


def read_task_tables(tasks: dict[str, list[str]], pair_paths, table_paths) -> tuple[dict, dict]:
    """``year/name`` -> pair table and -> similarity table, in the order the tasks list their sets (the
    order eval's rules give their inputs in)."""
    keys = [key for sets in tasks.values() for key in sets]
    return (
        dict(zip(keys, map(pd.read_parquet, pair_paths), strict=True)),
        dict(zip(keys, map(pd.read_parquet, table_paths), strict=True)),
    )


def task_sets(
    tasks: dict[str, list[str]], pairs: dict[str, pd.DataFrame], similarity: dict[str, pd.DataFrame], column: str
) -> dict[tuple[str, str], list]:
    """(track, task) -> ``[(year/name, scores, gold), ...]``: stsynth.core.scoring.score_sets' input."""
    return {
        (pairs[keys[0]]["track"].iat[0], task): [
            (key, similarity[key][column].to_numpy(), pairs[key]["gold"].to_numpy(dtype=np.float64)) for key in keys
        ]
        for task, keys in tasks.items()
    }


# --- the leaderboard --------------------------------------------------------------------------
