"""Fine-tuning over the lower layers computed once (stsynth.encoders.lower_layers, a tuned encoder's
``frozen_layers``): a forward from the stored states after layer k gives a full forward's embedding, on a tiny BERT
and a tiny MPNet (its relative position bias computed per batch); the frozen layers do not move when the model
is tuned; the states are kept by content (another start model or another k is another key)."""

import numpy as np
import pandas as pd
import pytest
import torch

from stsynth.encoders import lower_layers
from stsynth.encoders.embedding_store import EmbeddingStore
from stsynth.encoders.encoder import embed, encode_units, load_encoder
from stsynth.encoders.lower_layers import (
    embed_from_layer,
    encode_units_from_layer,
    freeze_lower,
    layer_store,
    lower_states,
    sentence_units,
    transformer_parts,
)
from stsynth.encoders.tuning import train, training_pairs
from test_encoder import WORDS, save_tiny_model

SENTENCES = [
    "a man is playing guitar .",
    "the dog runs .",
    "a man plays",
    "the dogs",
    "café",
    "a man is playing the guitar and the dog runs .",
]
TOLERANCE = 1e-6  # float32 rounding: a batch's padding and kernels move the last digits only


def save_tiny_mpnet(folder):
    from transformers import MPNetConfig, MPNetModel, MPNetTokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    vocab = folder / "vocab.txt"
    vocab.write_text("\n".join(["<s>", "<pad>", "</s>", "<unk>", "<mask>", "[UNK]", *WORDS]) + "\n")
    tokenizer = MPNetTokenizerFast(vocab=str(vocab), do_lower_case=True, strip_accents=False)
    torch.manual_seed(0)
    config = MPNetConfig(
        vocab_size=len(tokenizer),
        hidden_size=16,
        num_hidden_layers=4,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=66,
    )
    MPNetModel(config).eval().save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module", params=["bert", "mpnet"])
def four_layers(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp(request.param)
    return save_tiny_model(folder, num_hidden_layers=4) if request.param == "bert" else save_tiny_mpnet(folder)


@pytest.mark.parametrize("k", [1, 3])
def test_a_forward_from_the_stored_states_after_layer_k_is_a_full_forward(four_layers, k):
    model = load_encoder(four_layers)
    full = embed(SENTENCES, model, batch_size=4)
    states = lower_states(model, sentence_units([pd.DataFrame({"s1": SENTENCES, "s2": SENTENCES})]), k, None)
    assert set(states) == set(SENTENCES) and all(s.dtype == np.float32 for s in states.values())
    from_states = embed_from_layer(model, k, SENTENCES, states, batch_size=4)
    assert from_states.shape == full.shape
    assert np.abs(from_states - full).max() < TOLERANCE
    assert len(transformer_parts(model)[1]) == 4  # the model is whole again
    assert np.array_equal(embed(SENTENCES, model, batch_size=4), full)


def test_a_similarity_jobs_units_from_the_stored_states_are_a_full_forwards_with_their_token_states(
    four_layers, tmp_path
):
    """A tuned model's similarity tables from layer k: embeddings and token states (special tokens left out) as
    encode_units gives them from every layer; a unit the store holds is read, not computed."""
    model, k = load_encoder(four_layers), 2
    units = [SENTENCES[:4], SENTENCES[4:]]
    full = encode_units(model, units, batch_size=4, tokens=True)
    store = EmbeddingStore(tmp_path / "store", "key", {})
    lower_states(model, units[:1], k, store)  # the tuning job kept the first unit's states
    from_states = encode_units_from_layer(model, k, units, store)
    assert from_states.row == full.row
    assert np.abs(from_states.raw - full.raw).max() < TOLERANCE
    assert np.abs(from_states.vectors - full.vectors).max() < TOLERANCE
    assert [s.shape for s in from_states.states] == [s.shape for s in full.states]
    assert max(np.abs(a - b).max() for a, b in zip(from_states.states, full.states) if a.size) < TOLERANCE
    assert all(store.get_states(unit) is not None for unit in units)  # the second unit's states are kept too
    assert len(transformer_parts(model)[1]) == 4


GOLD = pd.DataFrame(
    {
        "year": [2012] * 6,
        "dataset": ["d"] * 6,
        "line": range(1, 7),
        "s1": SENTENCES,
        "s2": ["a man plays guitar", "the dog is running", "a man is playing", "the dog", "the café", "a dog"],
        "gold": [4.5, 4.0, 3.5, 2.0, 1.0, 0.5],
    }
)


@pytest.mark.training
@pytest.mark.parametrize("loss", ["cosine", "angle"])
def test_tuning_above_layer_k_leaves_the_frozen_layers_as_they_were_and_moves_the_rest(four_layers, loss, tmp_path):
    model = load_encoder(four_layers)
    before = {name: p.detach().clone() for name, p in model.named_parameters()}
    settings = {
        "loss": loss,
        "epochs": 2,
        "learning_rate": 1e-2,
        "batch_size": 3,
        "warmup": 0.1,
        "seed": 1,
        "holdout": None,
        "frozen_layers": 2,
    }
    store = EmbeddingStore(tmp_path / "store", "k2", {})
    epochs = train(model, training_pairs(settings, [GOLD], []), settings, [((2012, "d"), GOLD)], store)
    assert epochs["epoch"].tolist() == [0, 1, 2] and epochs["dev_ALL"].notna().all()
    frozen = [n for n in before if "embeddings" in n or any(f"layer.{i}." in n for i in range(2))]
    moved = [n for n, p in model.named_parameters() if not torch.equal(p, before[n])]
    assert frozen and not set(frozen) & set(moved)
    assert any("layer.2." in n for n in moved) and any("layer.3." in n for n in moved)
    assert all(p.requires_grad is False for n, p in model.named_parameters() if n in frozen)
    # the states were kept: a second job on the same sets reads them rather than computing them
    units = sentence_units([GOLD])
    assert store.get_states(units[0]) is not None


def test_the_states_are_kept_by_the_start_models_identity_k_and_what_shapes_them(tmp_path):
    config = {"encoder": {"embedding_store": str(tmp_path)}}
    keys = {
        layer_store(config, identity, k, shaping, {}).folder.name
        for identity, k, shaping in [
            ("a", 2, {"max_length": 128}),
            ("b", 2, {"max_length": 128}),  # another start model
            ("a", 3, {"max_length": 128}),  # another k
            ("a", 2, {"max_length": 64}),  # another word-piece limit
            ("a", 2, {"max_length": 128, "dtype": "float16"}),  # another dtype
        ]
    }
    assert len(keys) == 5 and layer_store(config, "a", 2, {"max_length": 128}, {}).folder.name in keys
    with pytest.raises(ValueError, match=r"frozen_layers: 4 for a model of 4 layers \(0 < k < 4\)"):
        freeze_lower(load_encoder(save_tiny_model(tmp_path / "m", num_hidden_layers=4)), 4)


def test_states_after_layer_k_continued_from_a_lower_layers_stored_ones_are_the_same_bytes(
    four_layers, tmp_path, monkeypatch
):
    """A grid cell at k = 3 beside one at k = 1 runs layers 1-2 only, from the k = 1 states the store holds, and
    keeps what a run from the embeddings would: the same batches give each real token the same floats."""
    model = load_encoder(four_layers)
    config = {"encoder": {"embedding_store": str(tmp_path)}}
    units = sentence_units([pd.DataFrame({"s1": SENTENCES, "s2": SENTENCES[::-1]})])
    direct = lower_states(model, units, 3, None)
    lower_states(model, units, 1, layer_store(config, "tiny", 1, {"max_length": 128}, {}))  # the k = 1 cell's
    upper = layer_store(config, "tiny", 3, {"max_length": 128}, {})
    assert [j for j, _ in upper.below] == [2, 1] and upper.get_states(units[0]) is None
    monkeypatch.setattr(lower_layers, "_compute", None)  # from the embeddings no more: layers 1-2 run alone
    continued = lower_states(model, units, 3, upper)
    assert all(np.array_equal(continued[s], direct[s]) for s in SENTENCES)
    assert all(np.array_equal(a, direct[s]) for s, a in zip(units[0], upper.get_states(units[0])))  # kept at k = 3
    assert len(transformer_parts(model)[1]) == 4  # the model is whole again
