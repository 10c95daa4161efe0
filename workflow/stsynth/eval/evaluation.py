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
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

from ..core.pairs import Dataset
from ..core.paths import EVAL_MTEB_CACHE, eval_scores_path
from ..core.scoring import AGGREGATES, pearson, spearman
from ..core.similarity import cosines
from ..core.tables import markdown_rows
from ..encoders.encoder import LOAD_SETTINGS, SOURCES, batch_progress, looks_like_path, sentences_of

SIMILARITIES = ("cosine", "manhattan", "euclidean", "dot", "model")
# What MTEB's STS evaluator names each pooled correlation (cosine_spearman is its main score).
MTEB_METRICS = {"cosine": "cosine", "manhattan": "manhattan", "euclidean": "euclidean", "model": ""}
MAIN_SCORE = "cosine_spearman"
NO_REVISION = "no_revision_available"  # MTEB's folder name for a model or dataset without a revision
# MTEB's language code of each track's task (its TaskResult's ``languages``).
TRACK_LANGUAGES = {"en": ["eng-Latn"], "es-en": ["spa-Latn", "eng-Latn"]}


# MTEB's STS tasks that are the SemEval sets this project knows, with the revision of the MTEB dataset
# (mteb 2.26.24's task metadata; an MTEB result records it) and MTEB's number of test pairs: a task of
# ``eval.tasks`` with one of these names and that many scored pairs is recorded as that MTEB task.
MTEB_TASKS = {
    "STS12": ("a0d554a64d88156834ff5ae9920b964011b16384", 3108),
    "STS13": ("7e90230a92c190f1bf69ae9002b8cea547a64cca", 1500),
    "STS14": ("6031580fec1f6af667f0bd2da0a551cf4f0b2375", 3750),
    "STS15": ("ae752c7c21bf194d8b67fd573edf7ae58183cbe3", 3000),
    "STS16": ("4d8694f8f0e0100860b497b999b3dbed754a0513", 1186),
    "STSBenchmark": ("b0fddb56ed78048fa8b90373c8a3cfc37b684831", 1379),
}


def dataset_revision(task: str, sets: list[Dataset]) -> str:
    """The dataset revision a TaskResult records: the ``revision`` of its ``format: mteb`` sets (when
    they all name the same), else MTEB's own for one of :data:`MTEB_TASKS` whose sets have its number
    of pairs, else MTEB's ``no_revision_available``."""
    given = {d.revision for d in sets}
    if len(given) == 1 and None not in given:
        return given.pop()
    revision, pairs = MTEB_TASKS.get(task, (None, None))
    return revision if revision and sum(d.scored or 0 for d in sets) == pairs else NO_REVISION


def task_subset(sets: list[Dataset]) -> str:
    """The TaskResult's ``hf_subset``: the sets' MTEB subset when they share one, else ``default``."""
    subsets = {d.subset for d in sets}
    return subsets.pop() or "default" if len(subsets) == 1 else "default"


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


def model_identity(name: str, entry: dict) -> tuple[str, str]:
    """MTEB's (model name, revision) of an encoder: ``model_name`` or the hub name (else
    ``stsynth/<encoder>``), and the hub ``revision`` (else MTEB's ``no_revision_available``)."""
    return entry.get("model_name") or entry.get("hub") or f"stsynth/{name}", entry.get("revision") or NO_REVISION


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
    """Every :data:`SIMILARITIES` of row-aligned embeddings, as MTEB's STS evaluator computes them."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return {
        "cosine": cosines(a, b),
        "manhattan": -np.abs(a - b).sum(axis=1),
        "euclidean": -np.sqrt(((a - b) ** 2).sum(axis=1)),
        "dot": (a * b).sum(axis=1),
        "model": np.asarray(model_similarity, dtype=np.float64),
    }


def cache_settings(entry: dict, max_length: int) -> dict:
    """What besides the model's files shapes an encoder's embeddings (the embedding cache's key, with
    :func:`cache_encoder`): every loading and encoding setting. The device is left out: it moves the
    floats in their last digits only (docs/reproducibility.md, GPU)."""
    keep = {*LOAD_SETTINGS, "normalize"} - {"similarity"}  # the similarity function is applied after the cache
    return {**{key: entry[key] for key in sorted(keep) if key in entry}, "max_length": max_length}


def cache_encoder(entry: dict) -> dict:
    """The encoder in the embedding cache's key: its name and where its folder comes from (with the model's
    identity, stsynth.core.digests: two hub models never share an entry, whatever their files' paths)."""
    return {"name": entry["name"], **{key: entry[key] for key in SOURCES if key in entry}}


def encode_pairs(
    model, tables: list[pd.DataFrame], cache, batch_size: int, normalize: bool, progress=None, chunk: int = 4096
) -> tuple[list[pd.DataFrame], int]:
    """The similarity table of every pair table, encoding only the sentences ``cache``
    (stsynth.eval.embedding_cache.EmbeddingCache) does not hold; returns the tables and how many sentences
    were encoded. Sentences go to the model in chunks, each kept in the cache as it is done (a killed job
    loses one chunk at most); ``progress`` advances by each batch the model encodes."""
    import torch

    new = cache.missing(scored_sentences(tables))
    with batch_progress(model, progress):
        for start in range(0, len(new), chunk):
            part = new[start : start + chunk]
            cache.add(
                part,
                model.encode(
                    part,
                    batch_size=batch_size,
                    normalize_embeddings=normalize,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                ).astype(np.float32),
            )
    similarity = []
    for table in tables:
        scored = table["gold"].notna().to_numpy()
        n, matrix = int(scored.sum()), cache.matrix(sentences_of(table[scored]))
        with torch.no_grad():
            model_scores = model.similarity_pairwise(torch.from_numpy(matrix[:n]), torch.from_numpy(matrix[n:]))
        values = pair_similarities(matrix[:n], matrix[n:], model_scores.numpy())
        full = {name: np.full(len(table), np.nan) for name in SIMILARITIES}  # unscored lines: NaN
        for name in SIMILARITIES:
            full[name][scored] = values[name]
        similarity.append(similarity_table(table, full))
    return similarity, len(new)


def scored_sentences(tables: list[pd.DataFrame]) -> list[str]:
    """The sentences of the scored pairs (gold given): what a task scores, and all an eval job encodes
    (STS 2015's and 2016's input files hold 3-8 times more unscored pairs than scored ones)."""
    return [s for table in tables for s in sentences_of(table[table["gold"].notna()])]


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


def mteb_scores(keys: list[str], pairs: dict[str, pd.DataFrame], similarity: dict[str, pd.DataFrame]) -> dict:
    """The pooled correlations of one task's scored pairs, named as MTEB's TaskResult names them."""
    gold = np.concatenate([pairs[k]["gold"].to_numpy(dtype=np.float64) for k in keys])
    scored = ~np.isnan(gold)
    scores = {}
    for column, prefix in MTEB_METRICS.items():
        values = np.concatenate([similarity[k][column].to_numpy() for k in keys])[scored]
        scores[f"{prefix}_pearson" if prefix else "pearson"] = pearson(values, gold[scored])
        scores[f"{prefix}_spearman" if prefix else "spearman"] = spearman(values, gold[scored])
    scores["main_score"] = scores[MAIN_SCORE]
    return scores


def task_result(
    task: str,
    scores: dict,
    track: str,
    revision: str,
    evaluation_time: float,
    split: str = "test",
    subset: str = "default",
):
    """MTEB's TaskResult of one STS task, built by mteb (its ``mteb_version``, ``date`` and layout are
    mteb's; ``ResultCache.save_to_cache`` writes it). NaN scores (a constant similarity) are None, as JSON
    has no NaN."""
    import datetime

    from mteb.results import TaskResult

    clean = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in scores.items()}
    return TaskResult(
        dataset_revision=revision,
        task_name=task,
        mteb_version=_mteb_version(),
        scores={split: [{**clean, "hf_subset": subset, "languages": TRACK_LANGUAGES[track]}]},
        evaluation_time=evaluation_time,
        date=datetime.datetime.now(datetime.timezone.utc),
    )


def _mteb_version() -> str:
    from importlib.metadata import version

    return version("mteb")


def save_results(
    cache: str, results: list, meta, outputs: list[str], meta_output: str, identity: str | None = None
) -> None:
    """Write TaskResults and their ModelMeta with mteb's own ``ResultCache.save_to_cache`` (it also keeps
    ``run_settings.jsonl`` beside them), refusing when mteb would put them elsewhere than the rule's outputs
    (``mteb_folder`` and mteb's ``model_name_as_path`` disagreeing). ``identity``: the model's files' digest
    (stsynth.core.digests), added to model_meta.json as ``stsynth_model_sha256`` (mteb's ``load_results`` reads
    the file with it; only a strict ``ModelMeta`` validation of the file would refuse the extra key)."""
    import json

    from mteb.cache import ResultCache

    store = ResultCache(cache)
    for result, output in zip(results, outputs, strict=True):
        where = store.get_task_result_path(result.task_name, meta)
        if Path(where) != Path(output):
            raise ValueError(f"mteb would write {result.task_name} to {where}, not {output}")
        store.save_to_cache(result, meta)
    if Path(meta_output) != Path(where).parent / "model_meta.json":
        raise ValueError(f"mteb writes model_meta.json beside {where}, not at {meta_output}")
    if identity:
        with open(meta_output, "w", encoding="utf-8") as handle:
            json.dump({**meta.to_dict(), "stsynth_model_sha256": identity}, handle, default=str, indent=4)


def model_meta(name: str, entry: dict, facts: dict | None = None):
    """mteb's ModelMeta of an evaluated encoder (or a run of `all`, ``facts`` None): mteb's registry entry
    when mteb knows the model by its name (all-MiniLM-L6-v2, all-mpnet-base-v2, ...), else what mteb reads
    off a sentence-transformers model, from ``facts`` (the encoding job's: dimension, max tokens, the model's
    similarity function); either way under the name and revision this project writes it at
    (:func:`model_identity`); :func:`save_results` adds the model's identity (its files' digest)."""
    from mteb.models import ModelMeta
    from mteb.models.get_model_meta import get_model_meta

    model_name, revision = model_identity(name, entry)
    try:
        meta = get_model_meta(model_name)
    except KeyError:  # a model mteb does not know: what the loaded model says of itself
        from mteb.models import SentenceTransformerEncoderWrapper
        from mteb.models.model_meta import ScoringFunction

        known = facts or {}
        meta = ModelMeta.create_empty(
            overwrites={
                "loader": SentenceTransformerEncoderWrapper if facts else None,
                "max_tokens": known.get("max_tokens"),
                "embed_dim": known.get("embed_dim"),
                "similarity_fn_name": ScoringFunction.from_str(known["similarity_fn_name"])
                if known.get("similarity_fn_name")
                else None,
                "framework": ["Sentence Transformers", "PyTorch"] if facts else [],
            }
        )
    return meta.model_copy(update={"name": model_name, "revision": revision})


def run_task_scores(scores: pd.DataFrame, keys: list[str]) -> tuple[str, dict] | None:
    """A run's pooled scores on one task (``year/name`` keys), from its scores table: the track and the
    pooled row of the (track, group) whose sets are exactly the task's, named as a TaskResult names a
    model's own similarity (``pearson``, ``spearman``; the main score is the Spearman); None when no
    group is."""
    for (track, _), group in scores.groupby(["track", "group"], sort=False):
        sets = group[~group["dataset"].isin(AGGREGATES)]
        if sorted(f"{year}/{name}" for year, name in zip(sets["year"], sets["dataset"])) == sorted(keys):
            pooled = group[group["dataset"] == AGGREGATES[2]].iloc[0]
            return track, {
                "pearson": float(pooled["pearson"]),
                "spearman": float(pooled["spearman"]),
                "main_score": float(pooled["spearman"]),
            }
    return None


def model_facts(name: str, entry: dict, model, identity: str, folder) -> dict:
    """What an encoding job says of the model it opened (``results/eval/similarity/{encoder}/model.json``):
    its names, its files' identity (stsynth.core.digests), and what mteb's ModelMeta takes from a loaded model."""
    model_name, revision = model_identity(name, entry)
    return {
        "encoder": name,
        "model_name": model_name,
        "revision": revision,
        "model_sha256": identity,
        "folder": str(folder),
        "embed_dim": model.get_embedding_dimension(),
        "max_tokens": model.max_seq_length,
        "similarity_fn_name": entry.get("similarity") or model.similarity_fn_name,
    }


# --- the leaderboard --------------------------------------------------------------------------


def mteb_main_scores(cache: str, facts: list[dict]) -> dict[str, dict[str, float]]:
    """Encoder -> task -> main score, read back from the MTEB results under ``cache`` through mteb's own
    ``ResultCache.load_results`` (what anyone loading these results with mteb sees), each encoder found by
    the MTEB name and revision its encoding job recorded (``facts``)."""
    from mteb.cache import ResultCache

    loaded = ResultCache(cache).load_results(include_remote=False, require_model_meta=False)
    by_model = {(m.model_name, m.model_revision): m for m in loaded.model_results}
    mains = {}
    for fact in facts:
        key = (fact["model_name"], fact.get("revision") or NO_REVISION)
        if key not in by_model:
            raise ValueError(
                f"{cache}: mteb found no results of {key[0]} at revision {key[1]} (encoder {fact['encoder']})"
            )
        mains[fact["encoder"]] = {r.task_name: r.scores["test"][0]["main_score"] for r in by_model[key].task_results}
    return mains


def leaderboard(scores: list[pd.DataFrame], facts: dict[str, dict], mains: dict[str, dict[str, float]]) -> pd.DataFrame:
    """One row per encoder (its scores table; ``run`` = the encoder) with its MTEB model name and the
    identity of its model's files (``facts``, the encoding job's): per task, MTEB's main score as mteb
    reads it back (``mains``, :func:`mteb_main_scores`: the pooled Spearman of the cosine) and the official
    ALL (Pearson, from the scores table); ``mean``: the plain mean of the main scores of the tasks it has.
    Best mean first."""
    rows = []
    for table in scores:
        encoder = table["run"].iat[0]
        row = {
            "encoder": encoder,
            "model": facts[encoder]["model_name"],
            "model_sha256": facts[encoder].get("model_sha256", ""),
        }
        for (track, task), group in table.groupby(["track", "group"], sort=False):
            by_row = group.set_index("dataset")
            if task not in mains[encoder]:
                raise ValueError(f"encoder {encoder}: task {task} is in its scores but not in its MTEB results")
            row[f"{task} main"] = float(mains[encoder][task])
            row[f"{task} ALL"] = float(by_row.at[AGGREGATES[0], "pearson"])
        rows.append(row)
    board = pd.DataFrame(rows)
    mains_columns = [c for c in board.columns if c.endswith(" main")]
    board["mean"] = board[mains_columns].mean(axis=1)
    return board.sort_values("mean", ascending=False, kind="stable").reset_index(drop=True)


def leaderboard_rows(board: pd.DataFrame) -> tuple[list[str], list[list]]:
    """The leaderboard's main-score table: header and rows (also the README's, stsynth.results.docs)."""
    tasks = [c[: -len(" main")] for c in board.columns if c.endswith(" main")]
    return (
        ["encoder", "model (MTEB name)", *tasks, "mean"],
        [[r["encoder"], r["model"], *[r[f"{t} main"] for t in tasks], r["mean"]] for _, r in board.iterrows()],
    )


def leaderboard_markdown(board: pd.DataFrame) -> str:
    tasks = [c[: -len(" main")] for c in board.columns if c.endswith(" main")]
    header, rows = leaderboard_rows(board)
    official = [[r["encoder"], *[r[f"{t} ALL"] for t in tasks]] for _, r in board.iterrows()]
    return (
        "# Zero-shot STS leaderboard\n\nMain score: Spearman of the cosine over every pair of the task "
        "(MTEB's main STS score; its STS12 pools the five 2012 test sets).\n\n"
        + markdown_rows(header, rows, "ll" + "r" * (len(tasks) + 1), digits=4)
        + "\nThe official SemEval score of each task: Pearson per set, mean weighted by scored pairs (ALL).\n\n"
        + markdown_rows(["encoder", *tasks], official, "l" + "r" * len(tasks), digits=4)
        + "\nThe model each encoder read, known by its bytes (SHA-256 over its folder's files, "
        "stsynth.core.digests):\n\n"
        + markdown_rows(
            ["encoder", "model files sha256"], [[r["encoder"], r["model_sha256"]] for _, r in board.iterrows()], "ll"
        )
        + f"\nPer set, with 95% bootstrap intervals: {eval_scores_path('{encoder}', 'md')}; MTEB TaskResult JSON: "
        f"{EVAL_MTEB_CACHE}/results/.\n"
    )
