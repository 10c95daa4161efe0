"""Cross-encoders (stsynth.encoders.cross): a tuned encoder whose loss is cross-bce or cross-mse trains a
sentence-transformers CrossEncoder from an encoder folder's transformer, scores every epoch on the dev sets,
saves a folder the encoder jobs recognise, and gives the encoder table's schema (its score in [0, 1], no
token F1)."""

from __future__ import annotations

import numpy as np
import pytest

from stsynth.encoders.cross import cross_table, is_cross_encoder, load_cross_encoder
from stsynth.encoders.encoder import open_encoder
from stsynth.encoders.tuning import train, training_pairs
from test_encoder import save_tiny_model
from test_encoder_tuning import GOLD, settings


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    # without dropout a one-batch epoch is a plain gradient step
    return save_tiny_model(
        tmp_path_factory.mktemp("tiny-bert"), hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0
    )


@pytest.mark.training
@pytest.mark.parametrize("loss", ["cross-bce", "cross-mse"])
def test_a_cross_encoder_learns_the_gold_pairs_and_saves_a_folder_the_jobs_open(tiny_bert, tmp_path, loss):
    model = load_cross_encoder(tiny_bert, 64, "cpu", fresh_head=True, seed=1)
    pairs = training_pairs(settings(loss=loss), [GOLD], [])
    assert pairs["label"].tolist() == pytest.approx([1.0, 0.2, 0.8, 0.0, 0.9])  # graded: gold / 5
    fit = settings(loss=loss, epochs=30, batch_size=8, learning_rate=3e-3)  # one batch per epoch
    epochs = train(model, pairs, fit, [((2015, "dev"), GOLD)])
    # it learns (binary cross-entropy on soft labels has their entropy as its floor: the dev ALL tells)
    assert epochs["dev_ALL"].notna().all() and epochs["loss"].iat[-1] < epochs["loss"].iat[1]
    assert epochs["dev_ALL"].iat[-1] > epochs["dev_ALL"].iat[0] + 0.5
    model.save(str(tmp_path / "cross"))
    assert is_cross_encoder(tmp_path / "cross") and not is_cross_encoder(tiny_bert)
    files = {p.name for p in (tmp_path / "cross").rglob("*")}
    assert "model.safetensors" in files and not any(name.endswith((".bin", ".pt", ".pkl")) for name in files)
    # the encoder jobs open it as a cross-encoder (stsynth.encoders.encoder.open_encoder) and score every pair
    loaded = open_encoder({"tuned": "cross"}, tmp_path / "cross", 64)
    table = cross_table(GOLD, loaded)
    assert table["encoder"].between(0, 1).all() and table["encoder_token_f1"].isna().all()
    np.testing.assert_allclose(table["encoder"], cross_table(GOLD, model)["encoder"], atol=1e-6)
    scored = cross_table(GOLD, loaded, every_line=False)
    assert scored["encoder"].isna().tolist() == GOLD["gold"].isna().tolist()  # only the scored lines
    # seeded: the head's initialisation and the batches, the same run twice
    again = load_cross_encoder(tiny_bert, 64, "cpu", fresh_head=True, seed=1)
    np.testing.assert_allclose(train(again, pairs, fit, [((2015, "dev"), GOLD)])["loss"], epochs["loss"], rtol=1e-6)
