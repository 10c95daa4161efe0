"""Fine-tuning the encoder (stsynth.encoders.tuning) on a tiny BERT the tests build: pairs, batches,
the training loop with sentence-transformers' losses, the dev scores and the saved folder."""

import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd
import pytest

from conftest import (
    TEST_PAIRS,
    TINY_FUSION_GRID,
    Workspace,
    added_table,
    copy_of,
    make_workspace,
    snakemake_command,
)
from stsynth.core.paraphrase_pairs import fold_of
from stsynth.encoders.encoder import cosine_table, load_encoder
from stsynth.encoders.tuning import batches, make_loss, train, training_pairs
from test_encoder import save_tiny_model
from test_provenance import planned_jobs

GOLD = pd.DataFrame(
    {
        "year": [2012] * 6,
        "dataset": ["d"] * 6,
        "line": [1, 2, 3, 4, 5, 6],
        "s1": ["a man is playing guitar .", "the dog runs .", "a man is playing .", "the dog", "café", "a man runs ."],
        "s2": [
            "a man is playing guitar",
            "the dog is playing guitar .",
            "a man plays .",
            "the dogs",
            "the dog runs",
            "a man runs",
        ],
        "gold": [5.0, 1.0, 4.0, None, 0.0, 4.5],
    }
)


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    # without dropout a one-batch epoch is a plain gradient step: the loss must fall
    return save_tiny_model(
        tmp_path_factory.mktemp("tiny-bert"), hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0
    )


def settings(**changes):
    return {
        "loss": "cosent",
        "epochs": 2,
        "learning_rate": 1e-3,
        "batch_size": 3,
        "warmup": 0.1,
        "seed": 1,
        "holdout": None,
        **changes,
    }


def test_graded_losses_read_scored_gold_pairs_and_mnrl_the_paraphrase_pairs():
    graded = training_pairs(settings(), [GOLD], [GOLD.head(2)])
    assert graded["line"].tolist() == [1, 2, 3, 5, 6]  # line 4 has no gold
    assert graded["label"].tolist() == pytest.approx([1.0, 0.2, 0.8, 0.0, 0.9])
    mnrl = training_pairs(settings(loss="mnrl"), [GOLD], [GOLD.head(2)])
    assert mnrl["line"].tolist() == [1, 2] and (mnrl["label"] == 0).all()
    held_out = training_pairs(settings(holdout={"folds": 2, "fold": 1}), [GOLD], [])
    assert [fold_of(2012, "d", line, 2) for line in held_out["line"]] == [0] * len(held_out)
    assert 0 < len(held_out) < 5
    assert training_pairs(settings(), [], []).empty


def test_batches_cover_every_pair_once_sorted_by_length_and_seeded():
    rng = np.random.default_rng(0)
    words = ["a", "man", "dog", "runs", "is", "the", "playing", "guitar"]
    pairs = pd.DataFrame(
        {
            "s1": [" ".join(rng.choice(words, rng.integers(1, 12))) for _ in range(500)],
            "s2": [f"sentence {i}" for i in range(500)],
        }
    )
    epoch = batches(pairs, 8, seed=1, epoch=0, distinct_texts=False)
    assert sorted(np.concatenate(epoch).tolist()) == list(range(500)) and max(map(len, epoch)) == 8
    lengths = (pairs["s1"].str.len() + pairs["s2"].str.len()).to_numpy()
    # within a length-sorted chunk, a batch spans far less of the length range than a random one would
    assert np.mean([np.ptp(lengths[b]) for b in epoch]) < 0.5 * np.ptp(lengths)
    assert all(np.array_equal(a, b) for a, b in zip(epoch, batches(pairs, 8, 1, 0, False)))
    assert not all(np.array_equal(a, b) for a, b in zip(epoch, batches(pairs, 8, 1, 1, False)))


def test_mnrl_batches_never_hold_a_sentence_twice():
    # every sentence is in several pairs: an in-batch negative equal to the positive would be a false one
    pairs = pd.DataFrame({"s1": [f"s{i % 7}" for i in range(60)], "s2": [f"t{i % 5}" for i in range(60)]})
    epoch = batches(pairs, 4, seed=3, epoch=0, distinct_texts=True)
    assert sorted(np.concatenate(epoch).tolist()) == list(range(60))
    for batch in epoch:
        texts = pairs["s1"].iloc[batch].tolist() + pairs["s2"].iloc[batch].tolist()
        assert len(texts) == len(set(texts))


@pytest.mark.training
@pytest.mark.parametrize("loss", ["cosent", "angle", "cosine", "mnrl"])
def test_training_lowers_the_loss_and_scores_the_dev_sets_every_epoch(tiny_model, loss):
    model = load_encoder(tiny_model)
    before = cosine_table(GOLD, model)["encoder"].to_numpy()
    pairs = training_pairs(settings(loss=loss), [GOLD], [GOLD])
    fit = settings(loss=loss, epochs=30, batch_size=8, learning_rate=3e-3)  # one batch per epoch
    epochs = train(model, pairs, fit, [((2015, "dev"), GOLD)])
    assert epochs["epoch"].tolist() == list(range(31)) and np.isnan(epochs["loss"].iat[0])
    assert {"dev_2015_dev", "dev_ALL"} <= set(epochs.columns) and epochs["dev_ALL"].notna().all()
    assert epochs["dev_ALL"].iat[0] == pytest.approx(epochs["dev_2015_dev"].iat[0])  # one dev set: ALL is it
    assert epochs["loss"].iat[-1] < 0.9 * epochs["loss"].iat[1]  # it learns
    assert not np.allclose(cosine_table(GOLD, model)["encoder"], before)
    again = load_encoder(tiny_model)
    repeated = train(again, training_pairs(settings(loss=loss), [GOLD], [GOLD]), fit, [((2015, "dev"), GOLD)])
    np.testing.assert_allclose(repeated["loss"], epochs["loss"], rtol=1e-6)  # seeded: the same run twice


def test_a_tuned_model_is_a_sentence_transformers_folder_without_pickles(tiny_model, tmp_path):
    model = load_encoder(tiny_model)
    train(model, training_pairs(settings(), [GOLD], []), settings(epochs=1))
    model.save(str(tmp_path / "tuned"))
    files = {p.name for p in (tmp_path / "tuned").rglob("*")}
    assert "model.safetensors" in files and "modules.json" in files
    assert not any(name.endswith((".bin", ".pt", ".pkl", ".pickle")) for name in files)
    from sentence_transformers import SentenceTransformer

    loaded = SentenceTransformer(str(tmp_path / "tuned"), device="cpu")
    np.testing.assert_allclose(cosine_table(GOLD, loaded)["encoder"], cosine_table(GOLD, model)["encoder"], atol=1e-6)


def test_an_unknown_loss_is_named(tiny_model):
    with pytest.raises(
        ValueError, match="loss .triplet. is not one of cosent, angle, cosine, cross-bce, cross-mse, mnrl"
    ):
        make_loss(load_encoder(tiny_model), "triplet")


TUNED_TARGETS = [
    "results/scores/encoder-sts.parquet",
    "results/scores/encoder-frozen.parquet",
    "results/scores/fusion-tuned.parquet",
    "results/encoder_tuning/dev_check.md",
    "results/fusion/fusion-tuned/ablation.parquet",
]
PROGRESS_EVERY_STEP = {"STSYNTH_PROGRESS_SECONDS": "0"}  # a progress line per step


@pytest.fixture(scope="module")
def tuned_build(tmp_path_factory) -> Workspace:
    """The real Snakefile on the tiny corpus, built once for this file's end-to-end tests, which read it and
    change only copies of it: a tuned encoder run, its dev check, and a fusion run whose training rows read the
    tuned encoder out of fold (2 fold models per protocol)."""
    root = tmp_path_factory.mktemp("tuned")
    workspace = make_workspace(root)
    tiny = str(save_tiny_model(root / "tiny-bert"))
    fast = {"epochs": 2, "batch_size": 4, "learning_rate": 1.0e-3}
    workspace.write_config(
        {
            "encoder": {
                # a word-piece limit of its own: a frozen model's similarity job must cut the states as its tuning did
                "models": {"tiny": {"path": tiny, "max_length": 48}},
                "default": "tiny",
                "tuning": {
                    "threads": 1,
                    "defaults": fast,
                    "dev_check": ["minilm-sts"],  # its twin minilm-sts-dev (the tiny protocol's 2012 -> 2015)
                    "models": {"minilm-sts": {}, "minilm-frozen": {"frozen_layers": 1}},
                },
            },
            "decisions": str(root / "none.yaml"),  # no recorded choice: the fusion's dev search runs
            "fusion": {
                "encoder_folds": 2,
                "grid": TINY_FUSION_GRID,
            },
        }
    )
    workspace.config["encoder"]["tuning"]["grid"] = {}  # no dev grid: a merge would keep config.yaml's cells
    workspace.keep_runs(
        {
            "encoder-sts": {"stage": "encoder", "model": "minilm-sts"},
            "encoder-frozen": {"stage": "encoder", "model": "minilm-frozen"},
            "fusion-tuned": {"stage": "fusion", "groups": ["ngrams", "encoder"], "encoder": "minilm-sts"},
        }
    )
    workspace.write_config()
    workspace.snakemake(*TUNED_TARGETS, env=PROGRESS_EVERY_STEP)
    return workspace


@pytest.mark.workflow
def test_a_model_tuned_above_frozen_layers_keeps_them_and_its_states_by_content(tuned_build):
    """frozen_layers: 1 through the Snakefile: the tuned model's embeddings and layer 0 are the start model's, its
    layer 1 moved; the states after layer 0 were computed once and kept in the store's folder, and its similarity
    job runs from them."""
    work = tuned_build.path
    start = load_encoder(tuned_build.config["encoder"]["models"]["tiny"]["path"])[0].auto_model.state_dict()
    tuned = load_encoder(work / "resources/models/minilm-frozen")[0].auto_model.state_dict()
    lower = [name for name in start if name.startswith(("embeddings.", "encoder.layer.0."))]
    upper = [name for name in start if name.startswith("encoder.layer.1.")]
    assert lower and all(torch_equal(start[name], tuned[name]) for name in lower)
    assert upper and not all(torch_equal(start[name], tuned[name]) for name in upper)
    log = (work / "logs/encoder_tune/minilm-frozen.log").read_text()
    assert re.search(r"states after layer 1: \d+ sentences computed, 0 read from the store", log), log
    kept = {path.parent for path in (work / "resources/embeddings").glob("*/*.layer.parquet")}
    assert len(kept) == 1  # one key: the start model's states after layer 1, cut as its tuning cut them
    # its similarity tables run layer 1 only, from the states (the test sets' computed and kept beside the
    # training sets'), and equal a full forward's
    similarity_log = (work / "logs/encoder_similarity/minilm-frozen.2016.log").read_text()
    assert re.search(r"states after layer 1: [1-9]\d* sentences computed", similarity_log), similarity_log
    assert len(list(next(iter(kept)).glob("*.layer.parquet"))) > 2
    pairs = pd.read_parquet(work / "resources/pairs/2016/tinytest.parquet")
    table = pd.read_parquet(work / "resources/encoder/minilm-frozen/2016/tinytest.parquet")
    full = cosine_table(pairs, load_encoder(work / "resources/models/minilm-frozen"))
    for column in ("encoder", "encoder_token_f1"):
        np.testing.assert_allclose(table[column], full[column], atol=1e-6)
    scores = pd.read_parquet(work / "results/scores/encoder-frozen.parquet")
    assert scores["pearson"].notna().all()


def torch_equal(a, b) -> bool:
    import torch

    return bool(torch.equal(a, b))


@pytest.mark.workflow
def test_tuned_encoder_runs_and_fusion_end_to_end(tuned_build, tmp_path):
    targets, work = TUNED_TARGETS, tuned_build.path
    # every long job says how far it is: done/total, rate, time left (stsynth.core.progress)
    tuning_log = (work / "logs/encoder_tune/minilm-sts.log").read_text()
    assert re.search(
        r"fine-tuning \(cosine, \d+ pairs\): 1/\d+ steps \(\d+%\), [\d.e+]+ steps/s, .* elapsed, "
        r".* left",
        tuning_log,
    ), tuning_log
    assert re.search(r"fine-tuning \(cosine, \d+ pairs\): done, (\d+)/\1 steps in ", tuning_log)
    assert re.search(
        r"encoding \d+ datasets: \d+/\d+ sentences \(\d+%\)",
        (work / "logs/encoder_similarity/minilm-sts.log").read_text(),
    )
    assert re.search(r"fusion dev grid: 1/1 fits \(100%\)", (work / "logs/fusion/fusion-tuned/dev.log").read_text())
    folder = work / "resources/models/minilm-sts"
    assert (folder / "model.safetensors").is_file() and (folder / "modules.json").is_file()
    epochs = pd.read_parquet(work / "resources/models/minilm-sts-dev.epochs.parquet")
    assert epochs["epoch"].tolist() == [0, 1, 2] and "dev_2015_tinydev" in epochs
    assert "| minilm-sts-dev | ALL |" in (work / "results/encoder_tuning/dev_check.md").read_text()
    tuned = pd.read_parquet(work / "resources/encoder/minilm-sts/2016/tinytest.parquet")
    np.testing.assert_allclose(
        np.loadtxt(work / "results/predictions/encoder-sts/2016/tinytest.txt"), 5 * tuned["encoder"], rtol=1e-12
    )
    from sentence_transformers import SentenceTransformer  # the folder loads as any sentence-transformers model

    pairs = pd.read_parquet(work / "resources/pairs/2016/tinytest.parquet")
    np.testing.assert_allclose(
        cosine_table(pairs, SentenceTransformer(str(folder), device="cpu"))["encoder"], tuned["encoder"], atol=1e-6
    )
    # training rows: each from the fold model that never saw its pair; the fold of minilm-sts-dev
    # that held out fold 1 starts, like every fold model, from the zero-shot encoder
    for fold in range(2):
        assert (work / f"resources/models/minilm-sts.fold{fold}of2.epochs.parquet").is_file()
        assert (work / f"resources/encoder/minilm-sts-dev.fold{fold}of2/2012/tinytrain.parquet").is_file()
    assert "held out" not in (work / "logs/encoder_tune/minilm-sts.log").read_text()
    assert "holdout {'folds': 2, 'fold': 1}" in (work / "logs/encoder_tune/minilm-sts.fold1of2.log").read_text()
    scores = pd.read_parquet(work / "results/scores/fusion-tuned.parquet").set_index("dataset")
    assert scores["pearson"].notna().all()
    ablation = pd.read_parquet(work / "results/fusion/fusion-tuned/ablation.parquet")
    assert {"none", "encoder", "ngrams", "encoder in-sample"} == set(ablation["removed"])
    assert "Nothing to be done" in tuned_build.snakemake(*targets).stderr
    # a test set added beside the protocol (role: test) is predicted and scored in a group of its own, and every
    # file of the other sets stays as it was, byte for byte: no model reads it (on a copy: the build is shared)
    workspace = copy_of(tuned_build, tmp_path / "added")
    work = workspace.path
    kept = {path: path.read_bytes() for path in (work / "results/predictions").rglob("*.txt")}
    kept |= {path: path.read_bytes() for path in (work / "resources/models").rglob("*") if path.is_file()}
    before = {run: pd.read_parquet(work / f"results/scores/{run}.parquet") for run in ("encoder-sts", "fusion-tuned")}
    added = added_table(tmp_path / "koala.tsv", "koala", [pair for pair in TEST_PAIRS if pair[2] is not None])
    workspace.write_config({"extra_datasets": [added]})
    planned = planned_jobs(workspace.snakemake("-n", *targets))
    # no model refitted, no table of another set written again: the added set's jobs are a part of their own
    assert not {"encoder_tune", "paragram_train", "fusion_fit", "features", "paragram_similarity"} & set(planned)
    assert planned["features__koala"] == 1 and planned["fusion_predict"] == 1
    workspace.snakemake(*targets)
    assert [str(path) for path, content in kept.items() if path.read_bytes() != content] == []
    for run, table in before.items():
        after = pd.read_parquet(work / f"results/scores/{run}.parquet")
        assert set(after["group"]) == set(table["group"]) | {"koala"}
        pd.testing.assert_frame_equal(after[after["group"] != "koala"].reset_index(drop=True), table)
    assert (work / "results/predictions/fusion-tuned/0/koala.txt").is_file()


def stopped_by(
    workspace: Workspace, sent: signal.Signals, to_group: bool, when: Callable[[], bool], log: Path
) -> subprocess.Popen:
    """The build's own command started, and stopped with ``sent`` once ``when()`` holds (polled every 20 ms): to
    the whole process group as a terminal's Ctrl-C sends SIGINT, or to Snakemake alone as ``kill`` sends SIGTERM."""
    with log.open("w") as output:
        build = subprocess.Popen(
            snakemake_command(workspace.path, *TUNED_TARGETS),
            stdout=output,
            stderr=subprocess.STDOUT,
            env={**os.environ, **PROGRESS_EVERY_STEP},
            start_new_session=True,  # its own process group: Ctrl-C's reaches Snakemake and its jobs, not pytest
        )
        deadline = time.monotonic() + 600
        while not when():
            assert build.poll() is None, f"the build ended before it was stopped:\n{log.read_text()[-3000:]}"
            assert time.monotonic() < deadline, "the job to stop never started"
            time.sleep(0.02)
        if to_group:
            os.killpg(build.pid, sent)
        else:
            build.send_signal(sent)
        build.wait(timeout=300)
    try:  # nothing of the stopped build goes on writing once Snakemake has exited
        os.killpg(build.pid, 0)
        pytest.fail(f"processes of the stopped build still run after {sent.name}:\n{log.read_text()[-3000:]}")
    except ProcessLookupError:
        pass
    return build


def tree_files(root: Path) -> dict[str, Path]:
    """Every file a build wrote under results/ and resources/, by its path in the tree."""
    return {
        str(path.relative_to(root)): path
        for folder in ("results", "resources")
        for path in sorted((root / folder).rglob("*"))
        if path.is_file()
    }


RUNS_OF_THE_TUNED_ENCODER = [
    f"results/{kind}/{run}{end}"
    for run in ("encoder-sts", "fusion-tuned")
    for kind, end in (("predictions", ""), ("scores", ".parquet"))
]
TIMINGS = ["seconds"]  # the only columns a rerun may change: how long an epoch took


@pytest.mark.workflow
@pytest.mark.training
def test_a_build_stopped_by_sigint_or_sigterm_mid_job_resumes_to_the_same_bytes(tuned_build, tmp_path):
    """On a copy of the shared build with the tuned encoder gone: stopped by Ctrl-C (SIGINT to the process group:
    Snakemake kills its jobs) while the encoder_tune job runs (its inputs read, the start model opening), started
    again with the same command and stopped by SIGTERM (to Snakemake: it lets the running jobs end and starts no
    other) while the tuned encoder's similarity job runs, then started once more, the build finishes, and every
    output equals the uninterrupted build's, byte for byte but the epochs' timings; no process of a stopped build
    outlives it."""
    workspace = copy_of(tuned_build, tmp_path / "stopped")
    work = workspace.path
    # the tuned encoder and what reads it (Snakemake rebuilds a missing file only where a target needs it)
    for output in ["resources/models/minilm-sts", "resources/encoder/minilm-sts", *RUNS_OF_THE_TUNED_ENCODER]:
        shutil.rmtree(work / output) if (work / output).is_dir() else (work / output).unlink()
    tune_log, similarity_log = (
        work / "logs/encoder_tune/minilm-sts.log",
        work / "logs/encoder_similarity/minilm-sts.log",
    )
    tune_log.unlink()
    similarity_log.unlink()
    tuning = lambda: tune_log.exists() and "settings: " in tune_log.read_text()
    first = stopped_by(workspace, signal.SIGINT, True, tuning, tmp_path / "first.log")
    assert first.returncode != 0
    assert not (work / "resources/models/minilm-sts").exists(), "the stopped job's output is left"
    encoding = lambda: similarity_log.exists() and similarity_log.stat().st_size > 0
    second = stopped_by(workspace, signal.SIGTERM, False, encoding, tmp_path / "second.log")
    assert second.returncode != 0
    assert (work / "resources/models/minilm-sts/model.safetensors").is_file()  # the job the first stop cut short
    # SIGTERM is Snakemake's graceful stop: the running job ends, whole, and no other starts
    stopped = (tmp_path / "second.log").read_text()
    assert "Will exit after finishing currently running jobs" in stopped
    assert re.search(r"Finished jobid: \d+ \(Rule: encoder_similarity_minilm_sts\)", stopped), stopped[-3000:]
    # and no job started after it (which ran before it is the scheduler's order: the test sets' table, predict and
    # score_run may come before the training sets' table)
    after_signal = stopped.split("Will exit after finishing currently running jobs", 1)[1]
    assert not re.search(r"^(local)?rule \S+:$", after_signal, re.MULTILINE), after_signal[-3000:]
    workspace.snakemake(*TUNED_TARGETS, env=PROGRESS_EVERY_STEP)
    assert "Nothing to be done" in workspace.snakemake(*TUNED_TARGETS).stderr
    built, resumed = tree_files(tuned_build.path), tree_files(work)
    assert sorted(resumed) == sorted(built)
    differ = [name for name, path in resumed.items() if path.read_bytes() != built[name].read_bytes()]
    for name in differ:
        assert name.endswith(".epochs.parquet"), f"{name} differs from the uninterrupted build's"
        pd.testing.assert_frame_equal(
            pd.read_parquet(resumed[name]).drop(columns=TIMINGS), pd.read_parquet(built[name]).drop(columns=TIMINGS)
        )
    assert differ == ["resources/models/minilm-sts.epochs.parquet"]  # the one job run again that logs its timing
