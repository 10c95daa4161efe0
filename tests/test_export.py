"""Paragram models as sentence-transformers folders: SentenceTransformer(path).encode reproduces the
pipeline's sentence vectors on real sentences wherever the exported tokenizer splits as Moses did,
and the share of sentences where it does not is measured, not hidden."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from stsynth.core.pairs import read_sentences
from stsynth.core.tokens import tokenize
from stsynth.dcu2016.export import export_check, moses_like_tokens, to_sentence_transformer
from stsynth.dcu2016.sentence_model import SentenceModel, word_weights
from stsynth.word_vectors.paragram import Paragram

SETTINGS = {"weighting": "sif", "sif_a": 1e-3, "punctuation_frequency": 1e-2, "remove_components": 1}


def real_model(sentences: list[list[str]], unknown: str) -> SentenceModel:
    """Random vectors over the sentences' words minus every 10th (unknown words), SIF weights, 1 component."""
    words = sorted({t for s in sentences for t in s})[::1]
    words = [w for i, w in enumerate(words) if i % 10]
    rng = np.random.default_rng(0)
    paragram = Paragram(
        torch.from_numpy(rng.normal(size=(len(words), 16)).astype(np.float32)),
        torch.from_numpy(word_weights(words, SETTINGS)),
    )
    model = SentenceModel(paragram, words, 3 if unknown == "rare" else None, SETTINGS)
    model.fit_components(sentences)
    return model


@pytest.mark.parametrize("unknown", ["rare", "skip"])
def test_exported_model_reproduces_the_pipeline_on_real_sentences(shared_corpus, tmp_path, unknown):
    from sentence_transformers import SentenceTransformer

    pairs = read_sentences(shared_corpus / "STS2016-test/STS2016.input.headlines.txt", 4)[:300]
    sentences = [s for pair in pairs for s in pair]
    tokens = [tokenize(s) for s in sentences]
    model = real_model(tokens, unknown)
    to_sentence_transformer(model, tmp_path / "exported")
    loaded = SentenceTransformer(str(tmp_path / "exported"), device="cpu")  # no stsynth code involved
    exported, pipeline = loaded.encode(sentences, convert_to_numpy=True), model.vectors(tokens)
    alike = np.array([moses_like_tokens(s) == t for s, t in zip(sentences, tokens)])
    assert alike.mean() > 0.95, f"only {alike.mean():.1%} of the sentences tokenized as Moses does"
    np.testing.assert_allclose(exported[alike], pipeline[alike], atol=1e-5)
    unknown_rows = [i for i, t in enumerate(tokens) if alike[i] and any(w not in model.index for w in t)]
    assert len(unknown_rows) > 50  # the unknown-word rule is exercised, not only known words


def test_export_check_measures_tokenization_and_the_cosines(tmp_path):
    import pandas as pd

    sentences = [
        ("A man is playing a guitar.", "A man plays the guitar."),
        ("Sen. Smith spoke today.", "Smith spoke today."),
        ("Two dogs run.", "A cat sleeps."),
        ("It's raining.", "It rains a lot."),
    ]
    tokens = pd.DataFrame(
        {"tokens1": [tokenize(a) for a, _ in sentences], "tokens2": [tokenize(b) for _, b in sentences]}
    )
    model = real_model(list(tokens["tokens1"]) + list(tokens["tokens2"]), "rare")
    transformer = to_sentence_transformer(model, tmp_path / "exported")
    pairs = pd.DataFrame(
        {"s1": [a for a, _ in sentences], "s2": [b for _, b in sentences], "gold": [4.0, 5.0, 0.5, 3.0]}
    )
    similarity = pd.DataFrame({"cosine": model.cosines(list(tokens["tokens1"]), list(tokens["tokens2"]))})
    check = export_check(transformer, [("2016/toy", pairs, tokens, similarity)]).iloc[0]
    assert check["same_tokens"] == pytest.approx(7 / 8)  # Moses keeps "sen." (a non-breaking prefix)
    assert check["max_difference"] < 1e-5
    assert not np.isnan(check["pearson_exported"])
