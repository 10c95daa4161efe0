"""Fine-tuning over the lower layers computed once: a tuned encoder's ``frozen_layers: k``.

With ``k`` > 0 the embeddings and the lower ``k`` transformer layers stay as the start model has them, so the
hidden states after layer ``k`` of a sentence are those of the start model, whatever the training does above.
They are computed once per sentence (:func:`lower_states`: the embeddings and layers ``0 .. k-1`` run once, in
eval mode, no gradient), kept by content in the embedding store's folder (:func:`layer_store`: the start model's
identity, ``k``, what shapes its embeddings, and the sentences), and every training step and dev score runs only the
layers above ``k`` from them (:func:`from_layer`). Where the store holds a unit's states after a lower layer
``j`` (another grid cell's), only layers ``j .. k-1`` run, from them: the same batches, the same bytes
(tests/test_lower_layers.py), a fraction of the time. Most of a step's forward is in the layers below ``k``, so the
step costs a fraction of a full one (docs/benchmarks.md).

:func:`from_layer` runs the model's own code: the embeddings module is replaced by one that hands over the
stored states and the layer list is cut to the layers above ``k``, so the attention mask is prepared as the
model prepares it and a model with a relative position bias (MPNet) computes it per batch, from the padded
length, as in a full forward; padded positions hold zeros, which the mask keeps out of every real token's
attention. The embedding it gives equals a full forward's to float rounding (tests/test_lower_layers.py).
Architectures: those whose transformer keeps its layers in ``encoder.layer`` and its embeddings in
``embeddings`` (BERT, MPNet, RoBERTa and their kin); another is refused by name.
"""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING

import numpy as np

from .embedding_store import EmbeddingStore, encoder_key, store_folder
from .encoder import encode_units, special_token_ids

if TYPE_CHECKING:
    import torch

log = logging.getLogger(__name__)

STATES_BATCH = 32  # sentences per forward through the lower layers (sorted by length within a unit)
TOKEN_FEATURES = ("input_ids", "attention_mask", "token_type_ids")  # what the lower layers read of a batch


def transformer_parts(model):
    """(the Hugging Face model, its list of layers) of a sentence-transformers model's first module."""
    module = model[0]
    transformer = getattr(module, "auto_model", None) or getattr(module, "model", None)
    encoder = getattr(transformer, "encoder", None)
    layers = getattr(encoder, "layer", None)
    if transformer is None or layers is None or not hasattr(transformer, "embeddings"):
        raise ValueError(
            f"frozen_layers: a {type(transformer).__name__} keeps no encoder.layer list and embeddings module "
            "(BERT, MPNet and RoBERTa-like models do); tune it with frozen_layers: 0"
        )
    return transformer, layers


def freeze_lower(model, k: int) -> list[str]:
    """Freeze the embeddings and the lower ``k`` layers in place; the names of the parameters frozen."""
    transformer, layers = transformer_parts(model)
    if not 0 < k < len(layers):
        raise ValueError(f"frozen_layers: {k} for a model of {len(layers)} layers (0 < k < {len(layers)})")
    frozen = []
    for prefix, module in [("embeddings", transformer.embeddings), *((f"layer.{i}", layers[i]) for i in range(k))]:
        for name, parameter in module.named_parameters():
            parameter.requires_grad_(False)
            frozen.append(f"{prefix}.{name}")
    return frozen


def _stored_states_module():
    import torch

    class StoredStates(torch.nn.Module):
        """Stands in for the embeddings module inside :func:`from_layer`: the states a batch's features carry
        (``inputs_embeds``) are the input of the first layer above ``k``."""

        def forward(self, input_ids=None, position_ids=None, token_type_ids=None, inputs_embeds=None, **kwargs):
            return inputs_embeds

    return StoredStates()


@contextlib.contextmanager
def from_layer(model, k: int, until: int | None = None):
    """Within it, ``model`` runs from the hidden states after layer ``k`` (to the last layer, or to the states
    after layer ``until``): its features are :func:`batch_of`'s (the states as ``inputs_embeds``, zeros where the
    attention mask is 0), its output the usual one (``sentence_embedding`` among it); on leaving, the model is whole
    again."""
    import torch

    transformer, layers = transformer_parts(model)
    embeddings = transformer.embeddings
    upper = torch.nn.ModuleList(list(layers)[k:until])
    transformer.embeddings, transformer.encoder.layer = _stored_states_module(), upper
    try:
        yield
    finally:
        transformer.embeddings, transformer.encoder.layer = embeddings, layers


def batch_of(states: list[np.ndarray], device) -> dict[str, torch.Tensor]:
    """The features of a batch for a model :func:`from_layer`: sentences' stored states padded with zeros to the
    longest (``inputs_embeds``), and their attention mask."""
    import torch

    longest, hidden = max(len(s) for s in states), states[0].shape[1]
    padded = np.zeros((len(states), longest, hidden), dtype=np.float32)
    mask = np.zeros((len(states), longest), dtype=np.int64)
    for row, sentence in enumerate(states):
        padded[row, : len(sentence)] = sentence
        mask[row, : len(sentence)] = 1
    return {"inputs_embeds": torch.from_numpy(padded).to(device), "attention_mask": torch.from_numpy(mask).to(device)}


def embed_from_layer(model, k: int, sentences: list[str], states: dict, batch_size: int = 64) -> np.ndarray:
    """The embeddings of ``sentences`` from their stored states (:func:`lower_states`), as
    stsynth.encoders.encoder.embed gives them from a full forward: L2-normalised float32, in input order."""
    import torch

    order = sorted(range(len(sentences)), key=lambda i: -len(states[sentences[i]]))
    out = np.zeros((len(sentences), 0), dtype=np.float32)
    training = model.training
    model.eval()
    try:
        with torch.no_grad(), from_layer(model, k):
            for start in range(0, len(order), batch_size):
                rows = order[start : start + batch_size]
                vectors = model(batch_of([states[sentences[i]] for i in rows], model.device))["sentence_embedding"]
                if out.shape[1] == 0:
                    out = np.zeros((len(sentences), vectors.shape[1]), dtype=np.float32)
                out[rows] = vectors.float().cpu().numpy()
    finally:
        model.train(training)
    return out / np.linalg.norm(out, axis=1, keepdims=True)


def sentence_units(tables) -> list[list[str]]:
    """The units a job's sentences are computed in: per pair table (a training set, a dev set), its distinct
    sentences (every s1, then every s2), so two jobs that read a set share its states."""
    return [unit for unit in (list(dict.fromkeys([*map(str, t["s1"]), *map(str, t["s2"])])) for t in tables) if unit]


def _in_batches(model, unit: list[str], run_batch, progress=None) -> list[np.ndarray]:
    """A unit's states, in eval mode with no gradient, in batches of :data:`STATES_BATCH` sorted by length (a fixed
    plan per unit, so its floats are the same in every job and from any layer): ``run_batch(rows)`` gives a batch's
    last hidden states and each row's word pieces; each sentence is cut to its own; ``progress`` advances by each
    batch's sentences."""
    import torch

    order = sorted(range(len(unit)), key=lambda i: -len(unit[i]))
    out: list[np.ndarray | None] = [None] * len(unit)
    training = model.training
    model.eval()
    try:
        with torch.no_grad():
            for start in range(0, len(order), STATES_BATCH):
                rows = order[start : start + STATES_BATCH]
                states, lengths = run_batch(rows)
                for row, i in enumerate(rows):
                    out[i] = states[row, : lengths[row]].float().cpu().numpy()
                if progress is not None:
                    progress.advance(len(rows))
    finally:
        model.train(training)
    return out


def _compute(model, unit: list[str], k: int, progress=None) -> list[np.ndarray]:
    """The states after layer ``k`` of a unit's sentences: the embeddings and lower layers run (:func:`_in_batches`)."""
    import torch

    transformer, layers = transformer_parts(model)

    def run_batch(rows):
        features = model.preprocess([unit[i] for i in rows])
        inputs = {key: value.to(model.device) for key, value in features.items() if key in TOKEN_FEATURES}
        return transformer(**inputs).last_hidden_state, [int(n) for n in features["attention_mask"].sum(1)]

    transformer.encoder.layer = torch.nn.ModuleList(list(layers)[:k])
    try:
        return _in_batches(model, unit, run_batch, progress)
    finally:
        transformer.encoder.layer = layers


def _continue(model, unit: list[str], below: list[np.ndarray], j: int, k: int, progress=None) -> list[np.ndarray]:
    """The states after layer ``k`` of a unit from its states after layer ``j`` < ``k``: layers ``j .. k-1`` only, in
    :func:`_compute`'s batches (the same order and padded lengths, so each real token's floats are those a run from
    the embeddings gives; the padded positions, zeros here, are masked out of every one)."""
    transformer, _ = transformer_parts(model)

    def run_batch(rows):
        features = batch_of([below[i] for i in rows], model.device)
        return transformer(**features).last_hidden_state, [len(below[i]) for i in rows]

    with from_layer(model, j, k):
        return _in_batches(model, unit, run_batch, progress)


class LayerStore(EmbeddingStore):
    """The states after one layer of a start model (:func:`layer_store`), and the stores of the layers below it
    (``below``: (layer, store), highest first), whose states a unit it lacks is continued from."""

    def __init__(self, root, key: str, description: dict, below: list[tuple[int, EmbeddingStore]]):
        super().__init__(root, key, description)
        self.below = below


def layer_store(config: dict, identity: str, k: int, shaping: dict, description: dict) -> LayerStore:
    """Where the states after layer ``k`` of a start model are kept: the embedding store's folder, under a key of
    its own: the model's identity, ``k`` and what shapes its states as it shapes an embedding (``shaping``:
    stsynth.encoders.encoder.embedding_settings, the word-piece limit and the dtype among them)."""

    def store(layer: int) -> EmbeddingStore:
        settings = {**shaping, "layer_states": layer}
        return EmbeddingStore(store_folder(config), encoder_key(identity, settings), {**description, **settings})

    top = store(k)
    return LayerStore(top.folder.parent, top.folder.name, top.description, [(j, store(j)) for j in range(k - 1, 0, -1)])


def _from_lower(model, unit: list[str], k: int, below, progress=None) -> list[np.ndarray]:
    """A unit's states after layer ``k``: continued from the highest lower layer whose states ``below`` holds
    (:func:`_continue`), else computed from the embeddings (:func:`_compute`)."""
    for j, store in below:
        if (held := store.get_states(unit)) is not None:
            log.info("states after layer %d of %d sentences: from those after layer %d", k, len(unit), j)
            return _continue(model, unit, held, j, k, progress)
    return _compute(model, unit, k, progress)


def lower_states(model, units: list[list[str]], k: int, store: EmbeddingStore | None, progress=None) -> dict:
    """sentence -> its states after layer ``k`` ([word pieces, hidden] float32), for every sentence of ``units``:
    read from ``store`` where it holds the unit, else continued from the highest lower layer's states the store
    holds (:func:`_continue`) or computed (:func:`_compute`), and kept there."""
    states, computed, read = {}, 0, 0
    for unit in units:
        held = store.get_states(unit) if store is not None else None
        if held is None:
            held = _from_lower(model, unit, k, getattr(store, "below", ()), progress)
            if store is not None:
                store.put_states(unit, held)
            computed += len(unit)
        else:
            read += len(unit)
            if progress is not None:
                progress.advance(len(unit))
        states.update(zip(unit, held))
    log.info("states after layer %d: %d sentences computed, %d read from the store", k, computed, read)
    return states


def encode_units_from_layer(model, k: int, units: list[list[str]], store: EmbeddingStore | None, progress=None):
    """stsynth.encoders.encoder.encode_units for a model tuned above frozen layer ``k``: every unit's states after
    layer ``k`` read from ``store`` where it holds them (its tuning and dev jobs kept those of their sets) or
    computed and kept (:func:`lower_states`), then each unit through the layers above ``k`` only
    (:func:`_upper_layers`), as a full forward gives it to float rounding. ``progress`` advances by the states'
    sentences, then by the upper layers'."""
    states = lower_states(model, units, k, store, progress)
    return encode_units(
        model, units, STATES_BATCH, tokens=True, encode=lambda unit: _upper_layers(model, k, unit, states, progress)
    )


def _upper_layers(model, k: int, unit: list[str], states: dict, progress=None):
    """One unit from its states after layer ``k``, in batches of :data:`STATES_BATCH` sorted by length: the
    embeddings as the model gives them, and each sentence's L2-normalised last-layer token states without the
    special tokens (found by tokenizing: the store keeps no token ids)."""
    import torch

    special = special_token_ids(model)
    order = sorted(range(len(unit)), key=lambda i: -len(states[unit[i]]))
    raw, tokens = np.zeros((len(unit), model.get_sentence_embedding_dimension()), dtype=np.float32), [None] * len(unit)
    training = model.training
    model.eval()
    try:
        with torch.no_grad(), from_layer(model, k):
            for start in range(0, len(order), STATES_BATCH):
                rows = order[start : start + STATES_BATCH]
                ids = model.preprocess([unit[i] for i in rows])["input_ids"].numpy()
                output = model(batch_of([states[unit[i]] for i in rows], model.device))
                raw[rows] = output["sentence_embedding"].float().cpu().numpy()
                pieces = torch.nn.functional.normalize(output["token_embeddings"].float(), p=2, dim=2).cpu().numpy()
                for position, i in enumerate(rows):
                    real = len(states[unit[i]])
                    tokens[i] = pieces[position, :real][~np.isin(ids[position, :real], special)]
                if progress is not None:
                    progress.advance(len(rows))
    finally:
        model.train(training)
    return raw, tokens


def training_units(pairs, dev_sets=()) -> list[list[str]]:
    """The units of a tuning job: one per training set of its pairs (year, dataset), then one per dev set (its
    scored pairs)."""
    tables = [table for _, table in pairs.groupby(["year", "dataset"], sort=False)]
    return sentence_units([*tables, *(dev[dev["gold"].notna()] for _, dev in dev_sets)])
