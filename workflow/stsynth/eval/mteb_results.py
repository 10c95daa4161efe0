"""What `snakemake eval` writes in MTEB's terms: each task's TaskResult (the pooled correlations of every
similarity, as ``mteb``'s STS evaluator computes them; its main score the cosine Spearman), the model's
``model_meta.json``, the MTEB names of tasks and their dataset revisions, and the leaderboard of every
encoder evaluated in a tree.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from ..core.correlations import AGGREGATES, pearson, spearman
from ..core.datasets import Dataset
from ..core.paths import EVAL_MTEB_CACHE, eval_scores_path
from ..core.tables import markdown_rows

# What MTEB's STS evaluator names each pooled correlation (cosine_spearman is its main score).
MTEB_METRICS = {"cosine": "cosine", "manhattan": "manhattan", "euclidean": "euclidean", "model": ""}


MAIN_SCORE = "cosine_spearman"


NO_REVISION = "no_revision_available"  # MTEB's folder name for a model or dataset without a revision


# MTEB's language code of each track's task (its TaskResult's ``languages``).
TRACK_LANGUAGES = {"en": ["eng-Latn"], "es-en": ["spa-Latn", "eng-Latn"]}


# MTEB's STS tasks that are the SemEval sets this project knows, with the revision of the MTEB dataset
# (mteb 2.26.24's task metadata; an MTEB result records it), MTEB's number of test pairs and the subset
# (hf_subset) they are in MTEB: a task of ``eval.tasks`` with one of these names and that many scored pairs
# is recorded as that MTEB task. STS17 en-en is SemEval-2017 track 5.
MTEB_TASKS = {
    "STS12": ("a0d554a64d88156834ff5ae9920b964011b16384", 3108, "default"),
    "STS13": ("7e90230a92c190f1bf69ae9002b8cea547a64cca", 1500, "default"),
    "STS14": ("6031580fec1f6af667f0bd2da0a551cf4f0b2375", 3750, "default"),
    "STS15": ("ae752c7c21bf194d8b67fd573edf7ae58183cbe3", 3000, "default"),
    "STS16": ("4d8694f8f0e0100860b497b999b3dbed754a0513", 1186, "default"),
    "STS17": ("faeb762787bd10488a50c8b5be4a3b82e411949c", 250, "en-en"),
    "STSBenchmark": ("b0fddb56ed78048fa8b90373c8a3cfc37b684831", 1379, "default"),
}


def dataset_revision(task: str, sets: list[Dataset]) -> str:
    """The dataset revision a TaskResult records: the ``revision`` of its ``format: mteb`` sets (when
    they all name the same), else MTEB's own for one of :data:`MTEB_TASKS` whose sets have its number
    of pairs, else MTEB's ``no_revision_available``."""
    given = {d.revision for d in sets}
    if len(given) == 1 and None not in given:
        return given.pop()
    revision, pairs, _ = MTEB_TASKS.get(task, (None, None, None))
    return revision if revision and sum(d.scored or 0 for d in sets) == pairs else NO_REVISION


def task_subset(task: str, sets: list[Dataset]) -> str:
    """The TaskResult's ``hf_subset``: the sets' MTEB subset when they share one, else MTEB's for one of
    :data:`MTEB_TASKS` whose sets have its number of pairs (STS17's en-en), else ``default``."""
    subsets = {d.subset for d in sets}
    if len(subsets) == 1 and None not in subsets:
        return subsets.pop()
    _, pairs, subset = MTEB_TASKS.get(task, (None, None, None))
    return subset if subset and sum(d.scored or 0 for d in sets) == pairs else "default"


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


def model_identity(name: str, entry: dict) -> tuple[str, str]:
    """MTEB's (model name, revision) of an encoder: ``model_name`` or the hub name (else
    ``stsynth/<encoder>``), and the hub ``revision`` (else MTEB's ``no_revision_available``)."""
    return entry.get("model_name") or entry.get("hub") or f"stsynth/{name}", entry.get("revision") or NO_REVISION
