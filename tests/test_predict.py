"""stsynth.results.predict: a run's predictions from its stage's table; stsynth.core.tables: the Markdown writer."""

import numpy as np
import pandas as pd
import pytest

from stsynth.core.datasets import InputFormatError
from stsynth.core.tables import cell, markdown_rows, markdown_table
from stsynth.results.predict import run_predictions

PAIRS = pd.DataFrame(
    {
        "year": [2016] * 3,
        "dataset": ["news"] * 3,
        "track": ["en"] * 3,
        "line": [1, 2, 3],
        "s1": ["a b", "c", "d e"],
        "s2": ["a b", "x", "d"],
        "gold": [5.0, np.nan, 2.0],
    }
)


def keyed(**columns):
    return pd.DataFrame({"year": [2016] * 3, "dataset": ["news"] * 3, "line": [1, 2, 3], **columns})


def test_each_stage_reads_its_own_column():
    assert list(run_predictions("paragram", PAIRS, keyed(cosine=[1.0, 0.5, 0.0]), "t")) == [5.0, 2.5, 0.0]
    assert list(
        run_predictions("encoder", PAIRS, keyed(encoder=[0.2, 0.4, 0.6], encoder_token_f1=[0, 0, 0]), "t")
    ) == pytest.approx([1.0, 2.0, 3.0])
    other = pd.DataFrame({"year": [2016], "dataset": ["headlines"], "line": [1], "prediction": [9.0]})
    fusion = pd.concat([other, keyed(prediction=[4.5, 3.0, 1.0])], ignore_index=True)  # one table, every test set
    assert list(run_predictions("fusion", PAIRS, fusion, "t")) == [4.5, 3.0, 1.0]
    assert list(run_predictions("baseline", PAIRS, PAIRS, "t")) == pytest.approx([1.0, 0.0, 2**-0.5])  # word-set cosine


def test_a_source_table_out_of_line_with_the_pairs_is_named():
    with pytest.raises(
        InputFormatError, match=r"similarity.parquet \(its rows for 2016/news\): 2 rows, but the pair table has 3"
    ):
        run_predictions("paragram", PAIRS, keyed(cosine=[1.0, 0.5, 0.0]).iloc[:2], "similarity.parquet")
    shuffled = keyed(cosine=[1.0, 0.5, 0.0]).iloc[[1, 0, 2]]
    with pytest.raises(InputFormatError, match="row 1 has line 2, the pair table has 1: not row-aligned"):
        run_predictions("paragram", PAIRS, shuffled, "similarity.parquet")


@pytest.mark.parametrize(
    "content, message",
    [
        ("4.5\n3\n", r"other.txt: 2 predictions for 3 input lines"),
        ("4.5\nnan\n1\n", r"other.txt:2: prediction 'nan' is not a number"),
        ("4.5\n0_5\n1\n", r"other.txt:2: prediction '0_5' is not a number"),
        ("4.5\n\n1\n", r"other.txt:2: prediction '' is not a number"),
    ],
)
def test_an_external_runs_file_is_checked_like_our_own(tmp_path, content, message):
    path = tmp_path / "other.txt"
    path.write_text("4.5\t(a note the scorer ignores)\n2e-1\n1\n")
    assert list(run_predictions("external", PAIRS, None, str(path))) == [4.5, 0.2, 1.0]
    path.write_text(content)
    with pytest.raises(InputFormatError, match=message):
        run_predictions("external", PAIRS, None, str(path))


def test_one_markdown_writer():
    assert [cell(0.123456), cell(float("nan")), cell(None), cell(3), cell(0.5, 2)] == [
        "0.1235",
        "n/a",
        "—",
        "3",
        "0.50",
    ]
    assert markdown_rows(["a", "b"], [["x", 1.0]]) == "| a | b |\n| --- | ---: |\n| x | 1.0000 |\n"
    table = pd.DataFrame({"name": ["x"], "r": [0.5], "n": [3]})
    assert markdown_table(table, "T") == "# T\n\n| name | r | n |\n| --- | ---: | ---: |\n| x | 0.50000 | 3 |\n"
