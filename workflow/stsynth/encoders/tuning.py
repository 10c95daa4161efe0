"""The paper's recipe on a modern encoder: fine-tuning all-MiniLM-L6-v2 with sentence-transformers.

A tuned model (config ``encoder.tuning.models``) starts from the zero-shot encoder, or from another
tuned model (``start``), and is trained with one sentence-transformers loss:

- ``cosent`` (CoSENTLoss), ``angle`` (AnglELoss: CoSENT's ranking on the angle difference in complex space,
  Li & Li 2024) or ``cosine`` (CosineSimilarityLoss): graded scores. Every scored pair of the ``gold_years``
  sets, label gold / 5.
- ``cross-bce``, ``cross-mse``: the same graded pairs, read by a cross-encoder (stsynth.encoders.cross).
- ``mnrl`` (MultipleNegativesRankingLoss, both directions): the paraphrase pair tables ``pairs``
  (task-internal: gold >= threshold; synthetic: a sentence and its round trip), no score used. Each
  s1 must rank its s2 above every other s2 of the batch and each s2 its s1 above every other s1:
  the in-batch, softmax form of the paper's two margin terms with negatives from the batch.

Batches: the pairs are shuffled (seeded per epoch), then sorted by length within chunks of 50
batches, so a batch pads little (twice the pairs per second on this CPU), and the batches are
shuffled. With ``mnrl`` no batch holds the same sentence twice (it would be its own false negative).
The optimiser is what sentence-transformers' trainer uses by default: AdamW (no weight decay),
linear warm-up then linear decay, gradients clipped to norm 1. The loop is written out here rather
than run through ``SentenceTransformerTrainer``, which needs the ``datasets`` and ``accelerate``
packages and would score the dev sets by pooled Pearson, not by the official weighted ALL.

``dev_years`` sets are scored before tuning and after every epoch (Pearson of 5 x cosine per set and
the official ALL, stsynth.core.scoring). Epochs table (``resources/models/{model}.epochs.parquet``, the
paragram models' columns): ``epoch`` int32 (0: before tuning), ``loss`` float64 (mean over the
epoch's batches), ``seconds`` float64, ``pairs`` int32, ``batches`` int32, and with dev sets
``dev_<year>_<name>`` and ``dev_ALL`` float64. The model is saved with ``SentenceTransformer.save``
(safetensors weights, loadable with ``SentenceTransformer(folder)``).
"""

from __future__ import annotations

import logging
import math
import time

import numpy as np
import pandas as pd

from ..core.correlations import correlations
from ..core.paraphrase_pairs import select_pairs
from ..core.progress import Progress
from ..core.similarity import predictions_from_cosines, unit_cosines
from .cross import CROSS_LOSSES, cross_scores, make_cross_loss

log = logging.getLogger(__name__)

SENTENCE_GRADED_LOSSES = ("cosent", "angle", "cosine")  # a bi-encoder's graded losses: frozen_layers takes these
GRADED_LOSSES = (*SENTENCE_GRADED_LOSSES, *CROSS_LOSSES)
LOSSES = (*GRADED_LOSSES, "mnrl")
CHUNK_BATCHES = 50  # batches per length-sorted chunk


def make_loss(model, name: str):
    from sentence_transformers.sentence_transformer.losses import (
        AnglELoss,
        CoSENTLoss,
        CosineSimilarityLoss,
        MultipleNegativesRankingLoss,
    )

    if name in CROSS_LOSSES:
        return make_cross_loss(model, name)
    if name == "cosent":
        return CoSENTLoss(model)
    if name == "angle":
        return AnglELoss(model)
    if name == "cosine":
        return CosineSimilarityLoss(model)
    if name == "mnrl":
        return MultipleNegativesRankingLoss(model, directions=("query_to_doc", "doc_to_query"))
    raise ValueError(f"loss {name!r} is not one of {', '.join(LOSSES)}")


def training_pairs(settings: dict, gold_tables: list[pd.DataFrame], pair_tables: list[pd.DataFrame]) -> pd.DataFrame:
    """year, dataset, line, s1, s2, label: the scored gold pairs (label gold / 5) for a graded loss, the
    paraphrase pairs (label 0, unused) for mnrl; without the held-out fold (``holdout``)."""
    graded = settings["loss"] in GRADED_LOSSES
    tables = [t[t["gold"].notna()] for t in gold_tables] if graded else list(pair_tables)
    columns = ["year", "dataset", "line", "s1", "s2", "gold"]
    table = (
        pd.concat([t[columns] for t in tables], ignore_index=True) if tables else pd.DataFrame({c: [] for c in columns})
    )
    table = select_pairs(table, (), settings.get("holdout"))
    label = table["gold"].to_numpy(dtype=np.float64) / 5 if graded else np.zeros(len(table))
    return table.drop(columns="gold").assign(label=label, s1=table["s1"].astype(str), s2=table["s2"].astype(str))


def batches(pairs: pd.DataFrame, batch_size: int, seed: int, epoch: int, distinct_texts: bool) -> list[np.ndarray]:
    """One epoch's batches of row positions (module docstring)."""
    rng = np.random.default_rng([seed, epoch])
    order = rng.permutation(len(pairs))
    lengths = (pairs["s1"].str.len() + pairs["s2"].str.len()).to_numpy()
    s1, s2 = pairs["s1"].to_numpy(), pairs["s2"].to_numpy()
    out = []
    for start in range(0, len(order), batch_size * CHUNK_BATCHES):
        chunk = order[start : start + batch_size * CHUNK_BATCHES]
        remaining = list(chunk[np.argsort(lengths[chunk], kind="stable")])
        if not distinct_texts:
            out += [np.array(remaining[i : i + batch_size]) for i in range(0, len(remaining), batch_size)]
            continue
        while remaining:  # fill each batch in length order, deferring a pair whose sentence it already has
            batch, seen, deferred = [], set(), []
            for i in remaining:
                if len(batch) < batch_size and s1[i] not in seen and s2[i] not in seen:
                    batch.append(i)
                    seen.update((s1[i], s2[i]))
                else:
                    deferred.append(i)
            out.append(np.array(batch))
            remaining = deferred
    return [out[i] for i in rng.permutation(len(out))]


def dev_scores(
    model, dev_sets: list[tuple[str, pd.DataFrame]], batch_size: int = 64, cross: bool = False, lower=None
) -> dict[str, float]:
    """``dev_<year>_<name>`` and ``dev_ALL``: Pearson of 5 x cosine (a ``cross``-encoder: 5 x its score) on the
    scored pairs of each ((year, name), pair table), and the official ALL over them
    (stsynth.core.correlations.correlations). ``lower``: (k, states): the embeddings from the stored states after
    layer k (stsynth.encoders.lower_layers)."""
    from .encoder import embed
    from .lower_layers import embed_from_layer

    sets = []
    total = sum(int(pairs["gold"].notna().sum()) for _, pairs in dev_sets)
    with Progress(log, f"dev scores on {len(dev_sets)} sets", total, "pairs") as progress:
        for (year, name), pairs in dev_sets:
            scored = pairs[pairs["gold"].notna()]
            n, s1, s2 = len(scored), list(scored["s1"].astype(str)), list(scored["s2"].astype(str))
            if cross:
                predictions = 5 * cross_scores(model, s1, s2, batch_size)
            else:
                vectors = (
                    embed_from_layer(model, lower[0], s1 + s2, lower[1], batch_size)
                    if lower
                    else embed(s1 + s2, model, batch_size)
                )
                predictions = predictions_from_cosines(unit_cosines(vectors[:n], vectors[n:]))
            sets.append((f"{year}_{name}", predictions, scored["gold"].to_numpy()))
            progress.advance(n)
    return {f"dev_{name}": r for name, _, r in correlations(sets)}


def train(
    model,
    pairs: pd.DataFrame,
    settings: dict,
    dev_sets: list[tuple[tuple[int, str], pd.DataFrame]] = (),
    states_store=None,
) -> pd.DataFrame:
    """Fine-tune ``model`` in place on ``pairs`` (:func:`training_pairs`); the epochs table (epoch 0:
    the dev scores before tuning). ``frozen_layers: k`` > 0: the embeddings and lower k layers frozen, every
    sentence's states after layer k computed once (read from ``states_store`` where it holds them) and only the
    layers above run (stsynth.encoders.lower_layers)."""
    import torch
    from sentence_transformers.util import batch_to_device
    from transformers import get_linear_schedule_with_warmup

    from .lower_layers import batch_of, freeze_lower, from_layer, lower_states, training_units

    torch.manual_seed(settings["seed"])
    loss_function = make_loss(model, settings["loss"])
    cross = settings["loss"] in CROSS_LOSSES
    frozen, lower = settings.get("frozen_layers", 0), None
    if frozen:
        if settings["loss"] not in SENTENCE_GRADED_LOSSES:
            raise ValueError(
                f"frozen_layers: {frozen} with loss {settings['loss']!r}: only {', '.join(SENTENCE_GRADED_LOSSES)}"
            )
        freeze_lower(model, frozen)
        units = training_units(pairs, dev_sets)
        with Progress(log, f"states after layer {frozen}", sum(map(len, units)), "sentences") as progress:
            lower = (frozen, lower_states(model, units, frozen, states_store, progress))
    plan = [
        batches(pairs, settings["batch_size"], settings["seed"], epoch, settings["loss"] == "mnrl")
        for epoch in range(settings["epochs"])
    ]
    steps = sum(len(epoch) for epoch in plan)
    trained = [parameter for parameter in model.parameters() if parameter.requires_grad]
    optimizer = torch.optim.AdamW(trained, lr=settings["learning_rate"], weight_decay=0.0)
    schedule = get_linear_schedule_with_warmup(optimizer, math.ceil(settings["warmup"] * steps), max(steps, 1))
    s1, s2 = pairs["s1"].tolist(), pairs["s2"].tolist()
    labels = torch.tensor(pairs["label"].to_numpy(), dtype=torch.float32)
    model.eval()
    records = [
        {
            "epoch": 0,
            "loss": math.nan,
            "seconds": 0.0,
            "pairs": len(pairs),
            "batches": 0,
            **(dev_scores(model, dev_sets, cross=cross, lower=lower) if dev_sets else {}),
        }
    ]
    progress = Progress(log, f"fine-tuning ({settings['loss']}, {len(pairs)} pairs)", steps, "steps")
    for epoch, epoch_batches in enumerate(plan, start=1):
        model.train()
        start, losses = time.perf_counter(), []
        for batch in epoch_batches:
            texts = ([s1[i] for i in batch], [s2[i] for i in batch])
            if lower:  # the layers above k, from each side's stored states
                with from_layer(model, frozen):
                    inputs = [batch_of([lower[1][text] for text in side], model.device) for side in texts]
                    loss = loss_function(inputs, labels[batch].to(model.device))
                    loss.backward()
            else:  # a cross-encoder's loss reads the pairs' texts; a bi-encoder's, each side's features
                inputs = list(texts) if cross else [batch_to_device(model.preprocess(t), model.device) for t in texts]
                loss = loss_function(inputs, labels[batch].to(model.device))
                loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            optimizer.zero_grad()
            losses.append(loss.item())
            progress.advance()
        seconds = time.perf_counter() - start
        model.eval()
        records.append(
            {
                "epoch": epoch,
                "loss": float(np.mean(losses)) if losses else math.nan,
                "seconds": seconds,
                "pairs": len(pairs),
                "batches": len(epoch_batches),
                **(dev_scores(model, dev_sets, cross=cross, lower=lower) if dev_sets else {}),
            }
        )
        log.info(
            "epoch %d: %d pairs in %d batches, %.1f s (%.1f pairs/s), mean loss %.4f%s",
            epoch,
            len(pairs),
            len(epoch_batches),
            seconds,
            len(pairs) / seconds,
            records[-1]["loss"],
            f", dev ALL {records[-1]['dev_ALL']:.4f}" if dev_sets else "",
        )
    progress.finish()
    table = pd.DataFrame(records)
    return table.astype(
        {"epoch": "int32", "pairs": "int32", "batches": "int32", "loss": "float64", "seconds": "float64"}
    )
