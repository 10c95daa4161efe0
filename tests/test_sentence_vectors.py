"""Sentence-vector tables: the mean of known word vectors, the table's round trip and its checks."""

import numpy as np
import pandas as pd
import pytest

from stsynth.core.keyed import AlignmentError
from stsynth.core.similarity import cosines
from stsynth.pipeline.plan import sentence_vector_table
from stsynth.pipeline.runs import sentence_vector_source
from stsynth.sts2017.sentence_vectors import encode_pairs, mean_vectors
from stsynth.sts2017.vector_tables import SentenceVectorError, concatenate, read_table, write_table
from stsynth.word_vectors.vectors import WordVectors, write_vectors

VECTORS = WordVectors(["a", "b", "c"], np.array([[1, 0], [0, 2], [3, 3]], dtype=np.float32), "toy")
KEYS = pd.DataFrame({"year": [2016, 2016], "dataset": ["x", "x"], "line": [1, 2]})


def test_mean_of_the_known_tokens_and_zero_where_none_is_known():
    vectors, empty = mean_vectors([["a", "b", "zzz"], ["zzz"], []], VECTORS)
    np.testing.assert_allclose(vectors, [[0.5, 1.0], [0, 0], [0, 0]])
    assert empty == 2 and vectors.dtype == np.float32


class JobInputs(dict):
    """A job's named inputs as a script sees them (snakemake.input: attributes and get)."""

    __getattr__ = dict.__getitem__


def test_a_mean_with_unknown_encode_adds_each_sets_own_unknown_words_first(tmp_path):
    write_vectors(VECTORS, tmp_path / "vectors.parquet")
    write_vectors(
        WordVectors(["zzz", "a"], np.array([[4, 4], [9, 9]], np.float32), "toy:unknown"), tmp_path / "u0.parquet"
    )
    write_vectors(WordVectors(["yyy"], np.array([[2, 0]], np.float32), "toy:unknown"), tmp_path / "u1.parquet")
    tokens = KEYS.assign(tokens1=[["a", "zzz"], ["yyy"]], tokens2=[["zzz"], ["b", "yyy"]])
    tokens.to_parquet(tmp_path / "tokens.parquet")
    inputs = JobInputs(vectors=str(tmp_path / "vectors.parquet"), tokens=[str(tmp_path / "tokens.parquet")] * 2)
    v1, v2, empty = encode_pairs("mean", inputs, None)(0, KEYS)
    np.testing.assert_allclose(v1, [[1, 0], [0, 0]])  # skip: "zzz" and "yyy" are left out
    assert empty == 2
    encode = encode_pairs(
        "mean", JobInputs(inputs, unknown=[str(tmp_path / "u0.parquet"), str(tmp_path / "u1.parquet")]), None
    )
    v1, v2, empty = encode(0, KEYS)  # set 0's table: "zzz" added, "a" kept as the source has it
    np.testing.assert_allclose(v1, [[2.5, 2], [0, 0]])
    np.testing.assert_allclose(v2, [[4, 4], [0, 2]])
    assert empty == 1
    v1, v2, empty = encode(1, KEYS)  # set 1's table: "yyy", not set 0's "zzz"
    np.testing.assert_allclose(v1, [[1, 0], [2, 0]])
    np.testing.assert_allclose(v2, [[0, 0], [1, 1]])
    assert empty == 1


def test_a_table_round_trips_and_is_checked_against_its_pairs(tmp_path):
    v1, v2 = np.array([[1, 2], [3, 4]], np.float32), np.array([[1, 2], [0, 0]], np.float32)
    write_table(KEYS, v1, v2, tmp_path / "t.parquet", "mean/toy", empty=1)
    keys, r1, r2, metadata = read_table(tmp_path / "t.parquet", KEYS)
    np.testing.assert_array_equal(r1, v1)
    np.testing.assert_array_equal(r2, v2)  # its own statement: assert_* returns None
    assert metadata == {"source": "mean/toy", "dim": 2, "sentences": 4, "empty": 1} and list(keys["line"]) == [1, 2]
    with pytest.raises(AlignmentError, match="row 2 has line 2"):
        read_table(tmp_path / "t.parquet", KEYS.assign(line=[1, 3]))
    with pytest.raises(SentenceVectorError, match="2 pairs but vectors of shapes"):
        write_table(KEYS, v1[:1], v2[:1], tmp_path / "u.parquet", "mean/toy")
    with pytest.raises(SentenceVectorError, match="non-finite"):
        write_table(KEYS, v1 * np.nan, v2, tmp_path / "u.parquet", "mean/toy")
    KEYS.to_parquet(tmp_path / "not-vectors.parquet")
    with pytest.raises(SentenceVectorError, match="not a sentence-vector table"):
        read_table(tmp_path / "not-vectors.parquet")


def test_sources_side_by_side_and_their_cosines():
    a = (np.ones((2, 3), np.float32), np.ones((2, 3), np.float32))
    b = (np.zeros((2, 2), np.float32), np.ones((2, 2), np.float32))
    v1, v2 = concatenate([a, b], ["pe", "ee"])
    assert v1.shape == (2, 5)
    with pytest.raises(SentenceVectorError, match="different numbers of pairs"):
        concatenate([a, (np.zeros((3, 2)), np.zeros((3, 2)))], ["pe", "ee"])
    np.testing.assert_allclose(cosines(np.array([[1.0, 0], [0, 0]]), np.array([[1.0, 1], [1, 1]])), [2**-0.5, 0])


def test_a_source_names_one_kind_and_its_protocol_model():
    assert sentence_vector_table("pe", {"paraphrase_cnn": {"final": "pe", "dev": "pe-dev"}}, "dev") == (
        "paraphrase_cnn",
        "pe-dev",
    )
    assert sentence_vector_table("w2v", {"mean": "word2vec"}, "final") == ("mean", "word2vec")
    with pytest.raises(ValueError, match="exactly one of"):
        sentence_vector_source("x", {"mean": "a", "events": "b"})
