"""stsynth.pipeline.reproducibility: the build-tree comparison the README's reproducibility check uses."""

import sqlite3
from contextlib import closing

import pytest

from stsynth.pipeline.reproducibility import CACHE, compare, main


def tree(root, predictions: str, cache_rows):
    (root / "results/predictions/run/2016").mkdir(parents=True)
    (root / "results/predictions/run/2016/set.txt").write_text(predictions)
    (root / CACHE).parent.mkdir(parents=True)
    with closing(sqlite3.connect(root / CACHE)) as db:
        db.execute("CREATE TABLE translations (backend, version, direction, source, target)")
        db.executemany("INSERT INTO translations VALUES (?, ?, ?, ?, ?)", cache_rows)
        db.commit()
    return root


ROWS = [("apertium", "v", "en-es", "a cat", "un gato"), ("apertium", "v", "en-es", "a dog", "un perro")]


def test_same_outputs_in_another_insertion_order_agree(tmp_path):
    a = tree(tmp_path / "a", "1.5\n2\n", ROWS)
    b = tree(tmp_path / "b", "1.5\n2\n", ROWS[::-1])
    lines, same = compare(a, b, ["results/predictions/**/*.txt"])
    assert same and "1 identical, 0 different" in lines[0] and "identical rows" in lines[1]


@pytest.mark.subprocess
def test_a_changed_prediction_or_translation_is_named(tmp_path, capsys):
    a = tree(tmp_path / "a", "1.5\n2\n", ROWS)
    b = tree(tmp_path / "b", "1.5\n2.1\n", [ROWS[0], ("apertium", "v", "en-es", "a dog", "un perrito")])
    assert main([str(a), str(b), "results/predictions/**/*.txt"]) == 1
    out = capsys.readouterr().out
    assert "differs: results/predictions/run/2016/set.txt" in out and "different rows" in out


def test_a_partial_build_is_compared_on_what_both_have(tmp_path):
    a = tree(tmp_path / "a", "1.5\n", ROWS)
    b = tree(tmp_path / "b", "1.5\n", ROWS)
    (a / "results/predictions/run/2016/only-in-a.txt").write_text("3\n")
    assert not compare(a, b, ["results/predictions/**/*.txt"])[1]
    assert compare(a, b, ["results/predictions/**/*.txt"], common_only=True)[1]
