"""One paraphrase-embedding model from its inputs, both training steps (rules paraphrase_cnn_train and
paraphrase_cnn_grid): the training pairs it reads (paraphrase pair tables, a seeded subset of PPDB lexical pairs,
gold pairs for step 2, dev sets scored per epoch), :func:`fit`, and the paper's δ × λ grid table. The network
and its two steps: stsynth.sts2017.paraphrase_cnn.
"""

from __future__ import annotations

import logging

import numpy as np
import pandas as pd

from ..word_vectors.vectors import WordVectors, read_ppdb_lexical
from .paraphrase_cnn import (
    ParaphraseCNN,
    Vocabulary,
    build,
    dev_scores,
    finetune,
    head_scores,
    pe_cosines,
    pretrain,
)

log = logging.getLogger(__name__)


def ppdb_subset(
    pairs: list[tuple[str, str]], vocabulary: Vocabulary, count: int, seed: int
) -> list[tuple[list[str], list[str]]]:
    """A seeded subset of ``count`` PPDB lexical pairs whose two words have vectors, as one-word sentences."""
    usable = [(a, b) for a, b in pairs if a in vocabulary.index and b in vocabulary.index]
    log.info(
        "PPDB: %d of %d lexical pairs have both words in the vocabulary; %d used",
        len(usable),
        len(pairs),
        min(count, len(usable)),
    )
    if count < len(usable):
        chosen = np.random.default_rng(seed).choice(len(usable), size=count, replace=False)
        usable = [usable[i] for i in sorted(chosen)]
    return [([a], [b]) for a, b in usable]


def scored_sides(pairs: pd.DataFrame, tokens: pd.DataFrame) -> tuple[list, list, np.ndarray]:
    """The token lists of s1 and s2 and the gold of a dataset's scored pairs."""
    scored = pairs["gold"].notna().to_numpy()
    return (
        [list(t) for t in tokens["tokens1"][scored]],
        [list(t) for t in tokens["tokens2"][scored]],
        pairs["gold"].to_numpy(dtype=np.float64)[scored],
    )


def load_training_data(inputs, settings: dict, vectors: WordVectors, ppdb_seed: int):
    """A training job's data from its named inputs (stsynth.sts2017.head_plan.pe_inputs): step 1's token pairs
    (the pair tables', then the PPDB subset), step 2's gold sides (every scored pair of the gold sets)
    and the dev sets, as :func:`fit` takes them."""
    tables = [pd.read_parquet(path) for path in inputs.pairs]
    pairs = [(list(a), list(b)) for table in tables for a, b in zip(table["tokens1"], table["tokens2"])]
    log.info("step 1: %d pairs from %s", len(pairs), ", ".join(map(str, inputs.pairs)) or "no table")
    if settings["ppdb_pairs"]:
        pairs += ppdb_subset(
            read_ppdb_lexical(inputs.ppdb[0]), Vocabulary(vectors.words), settings["ppdb_pairs"], ppdb_seed
        )
    sides = [
        scored_sides(pd.read_parquet(p), pd.read_parquet(t))
        for p, t in zip(inputs.gold_pairs, inputs.gold_tokens, strict=True)
    ]
    gold = (
        [t for s in sides for t in s[0]],
        [t for s in sides for t in s[1]],
        np.concatenate([s[2] for s in sides]) if sides else np.zeros(0),
    )
    dev = []
    for p, t in zip(inputs.dev_pairs, inputs.dev_tokens, strict=True):
        table = pd.read_parquet(p)
        dev.append((f"{table['year'].iat[0]}/{table['dataset'].iat[0]}", *scored_sides(table, pd.read_parquet(t))))
    return pairs, gold, dev


def fit(
    vectors: WordVectors,
    paraphrase_pairs: list[tuple[list[str], list[str]]],
    gold: tuple[list, list, np.ndarray],
    dev: list[tuple[str, list, list, np.ndarray]],
    settings: dict,
) -> tuple[ParaphraseCNN, Vocabulary, pd.DataFrame]:
    """Build a model on ``vectors`` and train both steps: step 1 on token pairs (none or 0 epochs: skipped),
    step 2 on ``gold`` (token lists of s1, s2 and scores; none or 0 epochs: skipped); ``dev``: (name,
    tokens1, tokens2, gold) scored before and after every epoch. Returns the model, its vocabulary
    and the epochs table (schema: module docstring)."""
    model, vocabulary = build(vectors, settings)
    unknown, total = vocabulary.unknown_share([t for a, b in paraphrase_pairs for t in (a, b)] + gold[0] + gold[1])
    log.info(
        "training tokens: %d, unknown to %s: %d (%.2f%%)", total, vectors.source, unknown, 100 * unknown / max(total, 1)
    )
    dev_rows = [
        (name, [vocabulary.rows(t) for t in t1], [vocabulary.rows(t) for t in t2], g) for name, t1, t2, g in dev
    ]
    records = []
    if paraphrase_pairs and settings["epochs"]:
        rows = [(vocabulary.rows(a), vocabulary.rows(b)) for a, b in paraphrase_pairs]
        records += pretrain(model, rows, settings, lambda: dev_scores(dev_rows, pe_cosines(model)))
    if len(gold[2]) and settings["finetune_epochs"]:
        model.embeddings.weight.requires_grad_(settings["finetune_word_vectors"])
        _, steps = finetune(
            model,
            [vocabulary.rows(t) for t in gold[0]],
            [vocabulary.rows(t) for t in gold[1]],
            gold[2],
            {**settings, "learning_rate": settings["finetune_learning_rate"]},
            lambda head: dev_scores(dev_rows, head_scores(model, head)),
        )
        records += steps
        model.embeddings.weight.requires_grad_(True)
    if not records:
        records = [
            {
                "step": "none",
                "epoch": 0,
                "loss": float("nan"),
                "seconds": 0.0,
                "pairs": 0,
                **dev_scores(dev_rows, pe_cosines(model)),
            }
        ]
    epochs = pd.DataFrame(records).astype({"step": "string", "epoch": "int32", "pairs": "int32"})
    return model, vocabulary, epochs


def grid_table(results: list[tuple[dict, pd.DataFrame]]) -> pd.DataFrame:
    """The step-1 grid (rule paraphrase_cnn_grid): per point, its δ and λ, the dev ALL of the PE cosine
    after step 1 and of step 2's head after its last epoch and at its best epoch.

    Schema (``results/paraphrase_cnn/grid.parquet``): ``delta``, ``lambda`` float64, ``pretrain_dev_ALL``,
    ``finetune_dev_ALL``, ``best_finetune_dev_ALL`` float64, ``best_finetune_epoch`` int32, ``seconds`` float64,
    ``chosen`` bool: the best point by the dev ALL of the model as trained (after step 2 when it has one,
    else the PE cosine after step 1).
    """
    rows = []
    for settings, epochs in results:
        pretrain, tuned = (
            epochs[epochs["step"] == "pretrain"],
            epochs[(epochs["step"] == "finetune") & (epochs["epoch"] > 0)],
        )
        best = tuned.loc[tuned["dev_ALL"].idxmax()] if len(tuned) else None
        rows.append(
            {
                "delta": settings["delta"],
                "lambda": settings["lambda"],
                "pretrain_dev_ALL": pretrain["dev_ALL"].iat[-1] if len(pretrain) else np.nan,
                "finetune_dev_ALL": tuned["dev_ALL"].iat[-1] if len(tuned) else np.nan,
                "best_finetune_dev_ALL": best["dev_ALL"] if best is not None else np.nan,
                "best_finetune_epoch": int(best["epoch"]) if best is not None else 0,
                "seconds": float(epochs["seconds"].sum()),
            }
        )
    table = pd.DataFrame(rows).astype({"best_finetune_epoch": "int32"})
    criterion = table["finetune_dev_ALL"].where(table["finetune_dev_ALL"].notna(), table["pretrain_dev_ALL"])
    table["chosen"] = table.index == criterion.fillna(-np.inf).idxmax()
    return table
