"""Paraphrase embeddings (the SemEval-2017 system's CNN): shapes, shared weights, both training steps
on a tiny set, the files, and what is refused."""

import numpy as np
import pandas as pd
import pytest
import torch

from stsynth.sts2017.paraphrase_cnn import (
    ParaphraseCNN,
    Vocabulary,
    build,
    finetune,
    load,
    pad,
    pretrain,
    save,
    sentence_vectors,
    with_words,
)
from stsynth.sts2017.paraphrase_cnn_fit import fit, grid_table
from stsynth.word_vectors.vectors import WordVectors

WORDS = ["a", "man", "guy", "plays", "guitar", "woman", "cuts", "slices", "onion", "cat", "dog", "runs", "sleeps"]
SETTINGS = {
    "filters": 12,
    "width": 3,
    "dimension": 10,
    "input": "words",
    "seed": 2,
    "delta": 0.4,
    "lambda": 1e-6,
    "learning_rate": 0.05,
    "batch_size": 4,
    "epochs": 5,
    "head_hidden": 6,
    "finetune_epochs": 8,
    "finetune_learning_rate": 0.05,
    "finetune_word_vectors": True,
    "pairs": [],
    "ppdb_pairs": 0,
}


def toy_vectors(dim=8):
    return WordVectors(WORDS, np.random.default_rng(0).normal(size=(len(WORDS), dim)), "toy")


PAIRS = [
    ("a man plays guitar", "a guy plays guitar", 4.8),
    ("a woman cuts onion", "a woman slices onion", 4.5),
    ("a cat runs", "a cat runs", 5.0),
    ("a dog sleeps", "a dog sleeps", 4.9),
    ("a man cuts onion", "a cat sleeps", 0.2),
    ("a guy runs", "a man runs", 4.1),
    ("a woman plays guitar", "a dog runs", 0.4),
    ("a cat sleeps", "a man slices onion", 0.1),
]


def test_shapes_padding_and_the_unknown_row():
    model, vocabulary = build(toy_vectors(), SETTINGS)
    assert model.embeddings.weight.shape == (len(WORDS) + 2, 8)
    assert torch.equal(model.embeddings.weight[vocabulary.pad], torch.zeros(8))
    rows = [vocabulary.rows("a man plays guitar".split()), vocabulary.rows(["zyzzyva"]), []]
    assert rows[1] == [vocabulary.unknown]
    indices, mask = pad(rows, vocabulary.pad)
    assert indices.shape == (3, 4) and mask.tolist()[2] == [1, 0, 0, 0]  # an empty sentence keeps one position
    vectors = model(indices, mask)
    assert vectors.shape == (3, 10) and torch.isfinite(vectors).all()
    average, _ = build(toy_vectors(), {**SETTINGS, "input": "average"})
    assert average(indices, mask).shape == (3, 10)


def test_an_encoded_word_is_the_row_a_vocabulary_holding_it_would_have_given():
    """unknown: encode: with_words adds the words the model lacks, before its padding and unknown rows; the
    sentences of known words keep their vectors, and a sentence of added words gets what a model built on
    the larger table (the same network) gives it."""
    vectors = toy_vectors()
    known = WordVectors(WORDS[:-2], vectors.matrix[:-2], "toy")
    model, vocabulary = build(known, SETTINGS)
    extra = WordVectors(["cat", "runs", "sleeps"], vectors.matrix[[9, 11, 12]], "toy:unknown")  # "cat" it has
    extended, extended_vocabulary = with_words(model, vocabulary, extra)
    assert extended_vocabulary.words == WORDS[:-2] + ["runs", "sleeps"]
    assert extended.pad == len(WORDS) and extended_vocabulary.pad == len(WORDS)
    assert torch.equal(extended.embeddings.weight[len(WORDS) :], torch.zeros(2, 8))  # padding, then the unknown row
    sentences = ["a man plays guitar".split(), "a cat runs".split(), "dog sleeps".split()]
    before = sentence_vectors(model, [vocabulary.rows(t) for t in sentences])
    after = sentence_vectors(extended, [extended_vocabulary.rows(t) for t in sentences])
    np.testing.assert_array_equal(after[0], before[0])  # no unknown word: the same vector
    assert not np.allclose(after[1], before[1])  # "runs" was the unknown row, now its own vector
    whole, whole_vocabulary = build(vectors, SETTINGS)
    whole.load_state_dict(
        {**whole.state_dict(), **{k: v for k, v in extended.state_dict().items() if k != "embeddings.weight"}}
    )
    np.testing.assert_allclose(after, sentence_vectors(whole, [whole_vocabulary.rows(t) for t in sentences]), atol=1e-6)
    assert with_words(model, vocabulary, WordVectors(["cat"], vectors.matrix[[9]], "toy")) == (model, vocabulary)
    with pytest.raises(ValueError, match="4-d vectors for a model of 8-d word vectors"):
        with_words(model, vocabulary, WordVectors(["runs"], np.ones((1, 4)), "other"))


def test_padding_does_not_change_a_sentence_vector():
    model, vocabulary = build(toy_vectors(), SETTINGS)
    short = vocabulary.rows("a cat runs".split())
    alone = sentence_vectors(model, [short])
    padded = sentence_vectors(model, [short, vocabulary.rows("a man plays guitar".split())])
    np.testing.assert_allclose(alone[0], padded[0], atol=1e-6)


def _sentences_through(model) -> list[set[int]]:
    """The word rows of every batch that passes the model's own embeddings (a forward hook; a copy of the
    model carries the hook along, so a batch through a copy is recorded as an empty set)."""
    seen = []
    embeddings = model.embeddings
    embeddings.register_forward_hook(
        lambda module, args, out: seen.append(set(args[0].flatten().tolist()) if module is embeddings else set())
    )
    return seen


@pytest.mark.training
@pytest.mark.parametrize("step", ["pretrain", "finetune"])
def test_both_sides_of_a_pair_go_through_the_one_network_in_training(step):
    """Siamese weights (the paper's shared CNN): in every batch of either step the second sentences pass
    the same embeddings and convolution as the first. A word only second sides hold (slices) makes
    a second network, or a side left out, visible."""
    settings = {**SETTINGS, "epochs": 1, "finetune_epochs": 1, "batch_size": 8}  # one batch holds every pair
    model, vocabulary = build(toy_vectors(), settings)
    first = [vocabulary.rows(a.split()) for a, _, g in PAIRS if g > 3]
    second = [vocabulary.rows(b.split()) for _, b, g in PAIRS if g > 3]
    only_second = {vocabulary.index["slices"]}
    assert only_second.isdisjoint(set().union(*map(set, first)))
    seen = _sentences_through(model)
    before = model.convolution.weight.detach().clone()
    if step == "pretrain":
        pretrain(model, list(zip(first, second)), settings)
    else:
        finetune(model, first, second, np.array([g for *_, g in PAIRS if g > 3]), settings)
    # each batch calls the network once per side, first sides then second sides
    assert len(seen) % 2 == 0 and len(seen) >= 2 and all(seen)
    assert only_second <= set().union(*seen[1::2]) and only_second.isdisjoint(set().union(*seen[0::2]))
    assert not torch.equal(model.convolution.weight, before)  # the shared weights were trained


def test_an_even_width_or_an_unknown_input_is_refused():
    with pytest.raises(ValueError, match="must be odd"):
        ParaphraseCNN(torch.zeros(5, 3), 4, 2, 4)
    with pytest.raises(ValueError, match="not one of words, average"):
        ParaphraseCNN(torch.zeros(5, 3), 4, 3, 4, input="letters")


@pytest.mark.training
def test_both_steps_lower_their_loss_and_repeat_exactly():
    model, vocabulary = build(toy_vectors(), SETTINGS)
    pairs = [(vocabulary.rows(a.split()), vocabulary.rows(b.split())) for a, b, g in PAIRS if g > 3]
    records = pretrain(model, pairs, SETTINGS)
    assert records[0]["epoch"] == 0 and records[-1]["loss"] < records[1]["loss"]
    rows1 = [vocabulary.rows(a.split()) for a, _, _ in PAIRS]
    rows2 = [vocabulary.rows(b.split()) for _, b, _ in PAIRS]
    gold = np.array([g for *_, g in PAIRS])
    head, steps = finetune(model, rows1, rows2, gold, SETTINGS)
    assert steps[-1]["loss"] < steps[1]["loss"]
    again, _ = build(toy_vectors(), SETTINGS)
    pretrain(again, pairs, SETTINGS)
    finetune(again, rows1, rows2, gold, SETTINGS)
    np.testing.assert_array_equal(sentence_vectors(model, rows1), sentence_vectors(again, rows1))


def test_fit_scores_dev_sets_per_epoch_and_the_files_round_trip(tmp_path):
    tokens = [(a.split(), b.split()) for a, b, _ in PAIRS]
    gold = ([a for a, _ in tokens], [b for _, b in tokens], np.array([g for *_, g in PAIRS]))
    dev = [("2015/toy", gold[0][:6], gold[1][:6], gold[2][:6])]
    model, vocabulary, epochs = fit(toy_vectors(), tokens[:4], gold, dev, SETTINGS)
    assert list(epochs["step"].unique()) == ["pretrain", "finetune"]
    assert {"dev_2015_toy", "dev_ALL"} <= set(epochs.columns) and epochs["dev_ALL"].notna().all()
    save(model, vocabulary, SETTINGS, tmp_path / "pe.safetensors")
    loaded, loaded_vocabulary, settings = load(tmp_path / "pe.safetensors")
    assert settings == SETTINGS and loaded_vocabulary.words == WORDS
    rows = [vocabulary.rows(a) for a in gold[0]]
    np.testing.assert_array_equal(sentence_vectors(model, rows), sentence_vectors(loaded, rows))
    pd.DataFrame({"word": WORDS[:-1]}).to_parquet(tmp_path / "pe.vocab.parquet", index=False)
    with pytest.raises(ValueError, match="disagree"):
        load(tmp_path / "pe.safetensors")
    table = grid_table([(SETTINGS, epochs)])
    assert table.loc[0, "best_finetune_dev_ALL"] == epochs[epochs["step"] == "finetune"]["dev_ALL"].iloc[1:].max()


def test_without_pairs_or_epochs_nothing_is_trained():
    model, vocabulary, epochs = fit(toy_vectors(), [], ([], [], np.zeros(0)), [], SETTINGS)
    assert list(epochs["step"]) == ["none"]
    fresh, _ = build(toy_vectors(), SETTINGS)
    assert torch.equal(model.convolution.weight, fresh.convolution.weight)
    assert isinstance(vocabulary, Vocabulary)
