"""Parse a released STS input/gold file pair into one pair table.

Pair table schema (one Parquet per dataset, ``resources/pairs/{year}/{dataset}.parquet``):

==========  ========  ===================================================================
column      type      meaning
==========  ========  ===================================================================
year        int16     release year
dataset     string    dataset name as declared in config.yaml
track       string    ``en`` or ``es-en`` (s1 is the Spanish side on es-en)
line        int32     1-based line number in the released input file
s1, s2      string    the two sentences (fields 1 and 2; later fields are never read)
gold        float64   gold score in [0, 5]; null where the gold line is blank (unscored)
==========  ========  ===================================================================
"""
from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

log = logging.getLogger(__name__)

PAIR_COLUMNS = ["year", "dataset", "track", "line", "s1", "s2", "gold"]


class InputFormatError(ValueError):
    """Bad input, always naming the file and (where there is one) the line."""


@dataclass(frozen=True)
class Dataset:
    year: int
    name: str
    track: str
    role: str
    input: str
    gold: str
    fields: int
    scored: int | None = None  # known number of scored pairs, checked when given

    @classmethod
    def from_config(cls, entry: dict) -> "Dataset":
        return cls(entry["year"], entry["name"], entry["track"], entry["role"], entry["input"],
                   entry["gold"], entry["fields"], entry.get("scored"))


BOM = b"\xef\xbb\xbf"


def _decoded_lines(path: str | Path) -> list[str]:
    raw = Path(path).read_bytes()
    if raw.startswith(BOM):
        log.info("%s starts with a UTF-8 byte-order mark: removed, not part of the first line", path)
        raw = raw[len(BOM):]
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # the final newline ends the last line rather than starting another
    decoded = []
    for lineno, line in enumerate(lines, start=1):
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as err:
            raise InputFormatError(f"{path}:{lineno}: not valid UTF-8 ({err.reason} at byte {err.start})") from err
        decoded.append(text[:-1] if text.endswith("\r") else text)  # the es-en files end lines in CRLF
    return decoded


def read_field_lines(path: str | Path, fields: int) -> list[list[str]]:
    """The tab-separated fields of every line of a released input file, each line checked for ``fields``."""
    lines = []
    for lineno, line in enumerate(_decoded_lines(path), start=1):
        parts = line.split("\t")
        if len(parts) != fields:
            raise InputFormatError(f"{path}:{lineno}: expected {fields} tab-separated fields, found {len(parts)}")
        lines.append(parts)
    return lines


def read_sentences(path: str | Path, fields: int) -> list[tuple[str, str]]:
    # fields 3+ are source notes or third-party MT: no run reads them (stsynth.mt_quality compares one)
    return [(parts[0], parts[1]) for parts in read_field_lines(path, fields)]


def read_gold(path: str | Path) -> list[float | None]:
    scores: list[float | None] = []
    for lineno, line in enumerate(_decoded_lines(path), start=1):
        text = line.strip()
        if not text:
            scores.append(None)
            continue
        try:
            value = float(text)
        except ValueError:
            raise InputFormatError(f"{path}:{lineno}: gold score {text!r} is not a number") from None
        if not (0.0 <= value <= 5.0) or math.isnan(value):
            raise InputFormatError(f"{path}:{lineno}: gold score {value} is outside [0, 5]")
        scores.append(value)
    return scores


def is_blank(sentence) -> bool:
    """Empty or only white space (Unicode white space: a no-break space counts)."""
    return not str(sentence).strip()


def blank_counts(table: pd.DataFrame) -> dict[str, int]:
    """Lines of a pair table whose s1 / s2 is blank, and how many of those are scored."""
    blank1, blank2 = table["s1"].map(is_blank), table["s2"].map(is_blank)
    return {"blank_s1": int(blank1.sum()), "blank_s2": int(blank2.sum()),
            "blank_scored": int(((blank1 | blank2) & table["gold"].notna()).sum())}


def pair_table(dataset: Dataset, input_path: str | Path, gold_path: str | Path) -> pd.DataFrame:
    sentences = read_sentences(input_path, dataset.fields)
    gold = read_gold(gold_path)
    if len(sentences) != len(gold):
        raise InputFormatError(
            f"{input_path} has {len(sentences)} lines but {gold_path} has {len(gold)}; they must match line for line")
    scored = sum(g is not None for g in gold)
    if dataset.scored is not None and scored != dataset.scored:
        raise InputFormatError(f"{gold_path}: {scored} scored pairs, config.yaml expects {dataset.scored}")
    log.info("%s/%s: read %d lines, %d scored, %d unscored", dataset.year, dataset.name,
             len(sentences), scored, len(sentences) - scored)
    for side in (0, 1):
        blank = [number for number, pair in enumerate(sentences, start=1) if is_blank(pair[side])]
        if blank:
            log.warning("%s: %d lines whose s%d is empty or only white space (kept: each still gets a "
                        "prediction), lines %s", input_path, len(blank), side + 1,
                        ", ".join(map(str, blank[:20])) + (", ..." if len(blank) > 20 else ""))
    table = pd.DataFrame({
        "year": pd.Series([dataset.year] * len(sentences), dtype="int16"),
        "dataset": pd.Series([dataset.name] * len(sentences), dtype="string"),
        "track": pd.Series([dataset.track] * len(sentences), dtype="string"),
        "line": pd.Series(range(1, len(sentences) + 1), dtype="int32"),
        "s1": pd.Series([s for s, _ in sentences], dtype="string"),
        "s2": pd.Series([s for _, s in sentences], dtype="string"),
        "gold": pd.Series(gold, dtype="float64"),
    })
    return table
