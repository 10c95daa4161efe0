"""Any encoder through the workflow: named encoders side by side (a tiny transformer the test builds and
the project's own paragram export, a word-embedding folder), compared on yearless JSON Lines and
Parquet test sets, the released model with its card, and a hub name that is not cached offline."""

import hashlib
import json

import numpy as np
import pandas as pd
import pytest

from conftest import TINY_DATASETS
from stsynth.core.tokens import tokenize

# MTEB-style test sets without a year: each its own group, its tables under 0/.
YEARLESS = [
    ("A man is playing a guitar.", "A man plays the guitar.", 4.8),
    ("A woman is slicing an onion.", "A man is dancing.", 0.2),
    ("Two dogs run in the park.", "Two dogs are running in a park.", 4.6),
    ("The stock market fell sharply.", "Stocks dropped a lot.", 3.9),
    ("A cat sleeps on the sofa.", "The weather is cold.", 0.0),
    ("A boy kicks a ball.", "A child is kicking a ball.", 4.2),
]


@pytest.mark.workflow
def test_two_named_encoders_a_word_embedding_folder_and_yearless_sets_end_to_end(workspace, tmp_path):
    from test_encoder import save_tiny_model
    from test_paragram import write_tiny_paragram_zip

    sentences = [s for d in TINY_DATASETS for s1, s2, _ in d.pairs for s in (s1, s2)]
    words = sorted({t for s in sentences + [s for s1, s2, _ in YEARLESS for s in (s1, s2)] for t in tokenize(s)})
    write_tiny_paragram_zip(tmp_path / "paragram.zip", words)
    tiny = save_tiny_model(tmp_path / "tiny-bert")
    weights = next(name for name in ("model.safetensors", "pytorch_model.bin") if (tiny / name).is_file())
    fast = {"epochs": 1, "batch_size": 4}
    workspace.write_config(
        {
            "vectors": {"paragram-xxl": {"url": (tmp_path / "paragram.zip").as_uri()}},
            "paragram": {
                "defaults": {"vectors": "paragram-xxl", "unknown": "rare"},
                "presets": {"dev-chosen": fast, "paper": fast},
            },
            "encoder": {
                "models": {
                    "tiny": {
                        "path": str(tiny),
                        "sha256": {weights: hashlib.sha256((tiny / weights).read_bytes()).hexdigest()},
                    },
                    # the project's own paragram export, made by rule paragram_export in this working directory
                    "words": {"path": "resources/models/task-internal.sentence-transformers"},
                }
            },
        }
    )
    workspace.keep_runs(
        {
            "task-internal": {"stage": "paragram", "model": "task-internal"},
            "tiny": {"stage": "encoder", "encoder": "tiny"},
            "words": {"stage": "encoder", "encoder": "words"},
        }
    )
    jsonl = tmp_path / "sick.jsonl"
    jsonl.write_text("".join(json.dumps({"sentence1": a, "sentence2": b, "score": s}) + "\n" for a, b, s in YEARLESS))
    pd.DataFrame(YEARLESS, columns=["first", "second", "label"]).to_parquet(tmp_path / "export.parquet")
    columns = {"sentence1": "sentence1", "sentence2": "sentence2", "score": "score"}
    workspace.config["datasets"] += [
        {"name": "sick-like", "role": "test", "track": "en", "format": "jsonl", "path": str(jsonl), "columns": columns},
        {
            "name": "hf-export",
            "role": "test",
            "track": "en",
            "format": "parquet",
            "path": str(tmp_path / "export.parquet"),
            "columns": {"sentence1": "first", "sentence2": "second", "score": "label"},
        },
    ]
    workspace.write_config()
    targets = ["results/scores/compare/words/tiny.md", "results/scores/tiny.md", "results/models/task-internal"]
    workspace.snakemake(*targets)
    work = workspace.path
    # releasing a model touches nothing the model's own jobs read: the next run has nothing to do
    again = workspace.snakemake("-n", *targets)
    assert "Nothing to be done" in again.stdout + again.stderr

    # the word-embedding folder scores like the pipeline's own paragram cosines (same vectors, weights,
    # component removal; its tokenizer approximates Moses)
    words_predictions = np.loadtxt(work / "results/predictions/words/2016/tinytest.txt")
    paragram_predictions = np.loadtxt(work / "results/predictions/task-internal/2016/tinytest.txt")
    assert np.corrcoef(words_predictions, paragram_predictions)[0, 1] > 0.99
    table = pd.read_parquet(work / "resources/encoder/words/2016/tinytest.parquet")
    # its token states are its word vectors (the word-level tokenizer adds no special tokens)
    assert table["encoder_token_f1"].between(-1, 1 + 1e-9).all() and table["encoder_token_f1"].abs().sum() > 0
    # one job per encoder and group of test sets, for the sets a run reads: only the test sets, each once
    assert sorted(p.name for p in (work / "resources/encoder/tiny").rglob("*.parquet")) == sorted(
        ["tinytest.parquet", "tinynews.parquet", "sick-like.parquet", "hf-export.parquet"]
    )
    assert all("sha256 " in log.read_text() for log in (work / "logs/encoder_similarity").glob("tiny.*.log"))

    # yearless sets: tables under 0/, each its own group with its own ALL row
    assert (work / "resources/pairs/0/sick-like.parquet").is_file()
    scores = pd.read_parquet(work / "results/scores/tiny.parquet")
    own = scores[scores["group"] == "sick-like"]
    assert set(own["dataset"]) == {"sick-like", "ALL", "ALL (mean)", "ALL (pooled)"} and (own["pairs"] == 6).all()
    assert own.set_index("dataset")["pearson_ci_low"].notna()[["sick-like", "ALL"]].all()
    # the paired bootstrap of any two runs, Pearson and Spearman, without building anything else
    compared = pd.read_parquet(work / "results/scores/compare/words/tiny.parquet")
    assert set(compared["metric"]) == {"pearson", "spearman"}
    assert set(zip(compared["run"], compared["against"])) == {("words", "tiny")}
    assert not (work / "results/scores/comparisons.parquet").exists()

    # the released model: the export's files, linked, and a card with the run's scores
    release = work / "results/models/task-internal"
    card = (release / "README.md").read_text()
    assert card.startswith("---\nlanguage:\n- en\n- es\nlibrary_name: sentence-transformers\n")
    assert "## Training data" in card and "with gold ≥ 3.8" in card and "| en | sick-like | sick-like | 6 |" in card
    export = work / "resources/models/task-internal.sentence-transformers"
    assert (release / "model.safetensors").stat().st_ino == (export / "model.safetensors").stat().st_ino
    assert len(card) < 20_000  # not the library's generated card, which lists the whole vocabulary


@pytest.mark.workflow
def test_a_hub_name_not_in_the_local_cache_fails_offline_naming_the_model_and_the_fix(workspace, tmp_path):
    workspace.write_config({"encoder": {"models": {"hubbed": {"hub": "sentence-transformers/all-mpnet-base-v2"}}}})
    workspace.keep_runs({"hubbed": {"stage": "encoder", "encoder": "hubbed"}})
    workspace.write_config()
    for args in (("results/scores/hubbed.md",), ("-n", "results/scores/hubbed.md")):  # before any job, every time
        result = workspace.snakemake(
            *args, check=False, env={"HF_HOME": str(tmp_path / "hf-home"), "HF_HUB_OFFLINE": "1"}
        )
        output = result.stdout + result.stderr
        assert result.returncode != 0 and not (workspace.path / "logs/encoder_similarity").exists()
        assert (
            "encoder 'hubbed' (encoder.models.hubbed.hub): hub model 'sentence-transformers/all-mpnet-base-v2' is "
            "not in the local Hugging Face cache"
            in output
            and "hf download sentence-transformers/all-mpnet-base-v2" in output
        )
