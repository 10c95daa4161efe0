"""The embedding store (stsynth.encoders.embedding_store): a table's sentences are encoded in units fixed by the
table alone, kept by content, read back with the bytes a cold encoding gives; a stale, foreign or damaged
entry is never read."""

import logging
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import run_snakemake
from stsynth.encoders.embedding_store import STORE_VARIABLE, EmbeddingStore, encoder_key, encoding_units, unit_key
from stsynth.encoders.encoder import cosine_table, embed, encode_units, load_encoder
from test_encoder import save_tiny_model


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    return load_encoder(save_tiny_model(tmp_path_factory.mktemp("tiny-bert")))


def pair_table(s1, s2, gold):
    n = len(s1)
    return pd.DataFrame(
        {"year": [2016] * n, "dataset": ["x"] * n, "line": range(1, n + 1), "s1": s1, "s2": s2, "gold": gold}
    )


PAIRS = pair_table(
    ["a man is playing guitar .", "the dog runs .", "a man plays", "the dog"],
    ["a man is playing", "café", "the dog runs .", "a man plays"],
    [5.0, None, 1.0, None],
)


def test_a_tables_units_are_its_scored_sentences_then_the_other_lines_new_ones():
    assert encoding_units(PAIRS, every_line=False) == [
        ["a man is playing guitar .", "a man plays", "a man is playing", "the dog runs ."]
    ]
    assert encoding_units(PAIRS, every_line=True)[1] == ["the dog", "café"]  # "the dog runs ." is in the first
    scored = PAIRS.assign(gold=1.0)  # every line scored: one unit, what a job encoded before units
    assert encoding_units(scored, every_line=True) == [list(dict.fromkeys([*scored["s1"], *scored["s2"]]))]
    assert encoding_units(PAIRS.drop(columns="gold"), every_line=True) == [
        list(dict.fromkeys([*PAIRS["s1"], *PAIRS["s2"]]))
    ]
    assert encoding_units(PAIRS.iloc[[1, 3]], every_line=False) == []  # nothing scored: no unit


def test_stored_embeddings_and_token_states_come_back_bit_for_bit(tmp_path):
    store = EmbeddingStore(tmp_path, "k1", {"what": "test"})
    unit = ["b", "a", "c"]
    rng = np.random.default_rng(0)
    embeddings = rng.normal(size=(3, 4)).astype(np.float32)
    states = [rng.normal(size=(n, 4)).astype(np.float32) for n in (2, 0, 5)]
    assert not store.has(unit) and store.get(unit) is None
    store.put(unit, embeddings)
    assert store.has(unit) and not store.has(unit, tokens=True) and store.get(unit, tokens=True) is None
    store.put(unit, embeddings, states)
    again = EmbeddingStore(tmp_path, "k1", {})
    held, held_states = again.get(unit, tokens=True)
    assert held.dtype == np.float32 and np.array_equal(held, embeddings)
    assert [s.shape for s in held_states] == [(2, 4), (0, 4), (5, 4)]
    assert all(np.array_equal(a, b) for a, b in zip(held_states, states))
    assert again.get(["a", "b", "c"]) is None  # another order is another unit
    assert EmbeddingStore(tmp_path, "k2", {}).get(unit) is None  # another key: nothing shared
    assert not list(tmp_path.rglob("*.tmp"))
    assert encoder_key("sha", {"max_length": 8}) != encoder_key("sha", {"max_length": 9})


def test_a_damaged_or_foreign_entry_is_set_aside_and_never_read(tmp_path, caplog):
    store = EmbeddingStore(tmp_path, "k", {})
    store.put(["a", "b"], np.ones((2, 3), dtype=np.float32))
    store.put(["c", "d"], np.zeros((2, 3), dtype=np.float32))
    files = {unit: tmp_path / "k" / f"{unit_key(list(unit))}.embeddings.parquet" for unit in ("ab", "cd")}
    files["ab"].write_bytes(files["ab"].read_bytes()[:20])  # a copy cut short
    # an entry copied over another unit's name: its sentences are not the unit's
    store.put(["e", "f"], np.full((2, 3), 7, dtype=np.float32))
    foreign = tmp_path / "k" / f"{unit_key(['e', 'f'])}.embeddings.parquet"
    files["cd"].write_bytes(foreign.read_bytes())
    with caplog.at_level(logging.WARNING):
        assert store.get(["a", "b"]) is None and store.get(["c", "d"]) is None
    assert "set aside" in caplog.text and "not its unit's" in caplog.text
    assert sorted(p.name for p in (tmp_path / "k").glob("*.unreadable")) == sorted(
        f.name + ".unreadable" for f in files.values()
    )
    assert np.array_equal(store.get(["e", "f"])[0], np.full((2, 3), 7))


WRITER = """
import sys, numpy as np
from stsynth.encoders.embedding_store import EmbeddingStore
store = EmbeddingStore(sys.argv[1], "k", {})
for i in range(10_000):  # until killed: each unit's embeddings a few MB, so the kill lands inside a write
    store.put([f"u{i}-{j}" for j in range(4)], np.full((4, 400_000), i, dtype=np.float32))
    print(i, flush=True)
"""


@pytest.mark.subprocess
def test_a_job_killed_while_it_writes_an_entry_leaves_none_half_written(tmp_path):
    """A process killed (SIGKILL: no clean-up of its own) in the middle of writing entries: every entry under its
    own name reads back whole, and what it was writing is a temporary file that a reader never takes."""
    import signal
    import subprocess
    import sys
    import time

    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    for _ in range(3):  # three entries written whole
        writer.stdout.readline()
    deadline = time.monotonic() + 30
    while not list((tmp_path / "k").glob("*.tmp")):  # the fourth on its way: killed inside its write
        assert time.monotonic() < deadline and writer.poll() is None
    writer.send_signal(signal.SIGKILL)
    writer.wait(timeout=30)
    assert len(list((tmp_path / "k").glob("*.tmp"))) == 1  # what a killed writer leaves: a temporary file
    store = EmbeddingStore(tmp_path, "k", {})
    whole = sorted((tmp_path / "k").glob("*.embeddings.parquet"))
    assert len(whole) >= 3
    for i in range(len(whole) + 1):
        unit = [f"u{i}-{j}" for j in range(4)]
        held = store.get(unit)
        if i < len(whole):
            assert held is not None and np.array_equal(held[0], np.full((4, 400_000), i, dtype=np.float32))
        else:  # the unit the kill cut short: not in the store, so encoded again
            assert held is None and not store.has(unit)
    assert not list((tmp_path / "k").glob("*.unreadable"))


def test_a_table_from_the_store_has_the_bytes_of_a_cold_encoding(tiny_model, tmp_path):
    store = EmbeddingStore(tmp_path, "k", {})
    cold = cosine_table(PAIRS, tiny_model, batch_size=2)
    first = encode_units(tiny_model, encoding_units(PAIRS, True), 2, store, tokens=True)
    again = encode_units(tiny_model, encoding_units(PAIRS, True), 2, store, tokens=True)
    assert (first.encoded, first.stored, again.encoded, again.stored) == (6, 0, 0, 6)  # distinct sentences
    pd.testing.assert_frame_equal(cosine_table(PAIRS, tiny_model, batch_size=2, store=store), cold, check_exact=True)
    # a table whose every line is scored is one unit: exactly what embed encodes of its distinct sentences
    scored = PAIRS.assign(gold=1.0)
    units = encode_units(tiny_model, encoding_units(scored, True), 2, store)
    sentences = [*scored["s1"], *scored["s2"]]
    assert np.array_equal(units.vectors[units.rows(sentences)], embed(sentences, tiny_model, 2))
    # a set's embeddings do not depend on the other sets a job encodes: the units are the set's own
    other = pair_table(["birds fly high"] * 2, ["a cat", "the cat runs"], [1.0, 2.0])
    alone = encode_units(tiny_model, encoding_units(other, False), 2)
    beside = encode_units(tiny_model, encoding_units(PAIRS, False) + encoding_units(other, False), 2)
    assert np.array_equal(beside.raw[beside.rows(list(alone.row))], alone.raw)


@pytest.mark.workflow
def test_one_store_serves_eval_and_another_working_directory_with_a_cold_builds_bytes(workspace, tmp_path):
    """The zero-shot encoder's sentences, encoded once by `all`'s similarity job, are read back by `eval` and by
    the same job in another working directory (another target's), which encode nothing and write the bytes
    a cold build of theirs writes."""
    env = {STORE_VARIABLE: str(tmp_path / "store")}
    workspace.keep_runs({"encoder": {"stage": "encoder"}})
    workspace.config["eval"] = {
        **workspace.config["eval"],
        "encoders": ["minilm"],
        "tasks": {"TINY16": ["2016/tinytest"]},
    }
    workspace.write_config()
    target, table = "results/scores/encoder.parquet", "resources/encoder/minilm/2016/tinytest.parquet"
    # eval's encode job, the one that reads the store (its scores, MTEB's results and the leaderboard read its tables)
    eval_table = "results/eval/similarity/minilm/2016/tinytest.parquet"
    workspace.snakemake(target, env=env)
    pairs = pd.read_parquet(workspace.path / "resources/pairs/2016/tinytest.parquet")
    assert pairs["gold"].isna().any()  # unscored lines: the set is two units, its scored sentences first
    assert (
        ", 0 read from the embedding store" in (workspace.path / "logs/encoder_similarity/minilm.2016.log").read_text()
    )
    workspace.snakemake(eval_table, env=env)
    scored = len(encoding_units(pairs, every_line=False)[0])
    assert (
        f"0 sentences encoded, {scored} read from the embedding store"
        in (workspace.path / "logs/eval/encode/minilm.log").read_text()
    )

    def other_directory(name: str, *targets: str, store: str) -> Path:
        folder = tmp_path / name
        folder.mkdir()
        shutil.copyfile(workspace.path / "config.yaml", folder / "config.yaml")
        run_snakemake(folder, *targets, env={STORE_VARIABLE: str(tmp_path / store)})
        return folder

    shared = other_directory("shared", target, store="store")
    log = (shared / "logs/encoder_similarity/minilm.2016.log").read_text()
    assert "datasets: 0 sentences encoded" in log and "read from the embedding store" in log
    cold = other_directory("cold", target, eval_table, store="fresh")
    for folder in (workspace.path, shared):
        for path in (table, eval_table):
            if (folder / path).exists():
                pd.testing.assert_frame_equal(
                    pd.read_parquet(folder / path), pd.read_parquet(cold / path), check_exact=True
                )
    assert (shared / table).exists() and (workspace.path / eval_table).exists()
