"""Markdown tables, one writer for every ``*.md`` the workflow and the report produce.

Kept rather than ``DataFrame.to_markdown`` (tabulate): tabulate pads every cell to its column's width
(``| baseline     |``) and writes a missing correlation as ``nan``; these tables are compact, say ``n/a`` and
``—``, and every ``*.md`` of the build and the docs check would change byte for byte.
"""

from __future__ import annotations

import math

import pandas as pd


def cell(value, digits: int = 4) -> str:
    """A table cell: floats to ``digits`` places, NaN (a correlation that does not exist) as n/a,
    None (nothing to show) as a dash, anything else as its text."""
    if value is None or value is pd.NA:
        return "—"
    if isinstance(value, float):
        return "n/a" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def markdown_rows(header: list[str], rows: list[list], align: str | None = None, digits: int = 4) -> str:
    """A table from a header and rows; ``align``: one letter per column, l or r (default: first
    column left, the rest right)."""
    align = align or "l" + "r" * (len(header) - 1)
    rule = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(rule) + " |"]
    lines += ["| " + " | ".join(cell(value, digits) for value in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def markdown_table(table: pd.DataFrame, title: str | None = None, digits: int = 5) -> str:
    """A DataFrame as a table (numeric columns right-aligned), under a ``# title`` heading if given."""
    align = "".join(
        "r" if pd.api.types.is_numeric_dtype(table[c]) and not pd.api.types.is_bool_dtype(table[c]) else "l"
        for c in table.columns
    )
    rows = [
        [None if pd.isna(v) and not isinstance(v, float) else v for v in row]
        for row in table.astype(object).itertuples(index=False)
    ]
    body = markdown_rows([str(c) for c in table.columns], rows, align, digits)
    return f"# {title}\n\n{body}" if title else body
