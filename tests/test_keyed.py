"""stsynth.core.keyed: one row-alignment check, one exception type, for every per-pair table."""

import pandas as pd
import pytest

from stsynth.core.datasets import InputFormatError
from stsynth.core.keyed import AlignmentError, check_aligned

PAIRS = pd.DataFrame(
    {
        "year": pd.Series([2016] * 3, dtype="int16"),
        "dataset": pd.Series(["news"] * 3, dtype="string"),
        "line": pd.Series([1, 2, 3], dtype="int32"),
    }
)


def test_a_table_with_the_pair_tables_rows_passes_whatever_its_key_dtypes():
    check_aligned(pd.DataFrame({"year": [2016] * 3, "dataset": ["news"] * 3, "line": [1, 2, 3]}), PAIRS, "t")
    check_aligned(pd.DataFrame({"line": [1, 2, 3], "cosine": [0.1, 0.2, 0.3]}), PAIRS, "t")  # the keys it has


@pytest.mark.parametrize(
    "table, message",
    [
        (PAIRS.iloc[:2], r"t.parquet: 2 rows, but the pair table has 3: not row-aligned"),
        (PAIRS.iloc[[0, 2, 1]], r"t.parquet: row 2 has line 3, the pair table has 2: not row-aligned"),
        (
            PAIRS.assign(dataset=["news", "headlines", "news"]),
            r"t.parquet: row 2 has dataset headlines, the pair table has news",
        ),
        (PAIRS.assign(year=[2016, 2016, 2015]), r"t.parquet: row 3 has year 2015"),
        (PAIRS.drop(columns="line"), r"t.parquet: no `line` column"),
    ],
)
def test_a_table_out_of_line_is_refused_naming_the_row(table, message):
    with pytest.raises(AlignmentError, match=message) as error:
        check_aligned(table.reset_index(drop=True), PAIRS, "t.parquet")
    assert isinstance(error.value, InputFormatError)  # bad input, as every reader reports it
