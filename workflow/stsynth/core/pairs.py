"""Read a dataset, in any of the formats people have, into one checked pair table.

Formats (a dataset entry's ``format``; every one goes through the same checks, each failure naming
the file and line: field count, decoding, no NUL byte, no field over MAX_FIELD_CHARS characters, a
score that is a plain decimal number (``3.8``, ``-1``, ``.5``; not ``0_5``, ``1e0`` or ``nan``)
inside the declared range, at least one line; blank sentences logged with their lines):

* ``sts`` (default): a SemEval STS release: an input file of tab-separated lines (``fields`` per
  line, s1 and s2 the first two; later fields never read) and a gold file, one score per line
  (blank = unscored). Without ``gold`` the dataset is a *predict* set.
* ``stsb``: the STS Benchmark CSVs: tab-separated, no header, no quoting; genre, file, years, id,
  score, s1, s2 (fields 1-7); the license notes some lines carry after s2 are never read.
* ``table``: any delimited file with a header row: ``columns`` maps ``sentence1``, ``sentence2`` and
  optionally ``score`` to header names; ``delimiter``, ``quoting`` (``minimal``: csv quoting;
  ``none``: no quote characters) and ``encoding`` are entry keys; ``score_range`` (default [0, 5])
  is the scale the scores are on, checked and mapped linearly onto 0-5 (correlations do not
  change; the gold threshold of the paraphrase filter stays on the STS scale). Without a ``score``
  column the dataset is a predict set. An empty score cell is an unscored line.
* ``mteb``: a local folder of an MTEB STS task (``path``; stsynth.core.datasets.mteb_task_file finds the ``split`` file,
  in the ``subset`` folder if given; ``.jsonl.gz``, ``.jsonl`` or Parquet), columns sentence1, sentence2,
  score unless ``columns`` says otherwise; ``revision`` records which revision of the task it is.
* ``parquet`` and ``jsonl``: what MTEB and Hugging Face dataset exports hold (Parquet; JSON Lines, one
  object per line), with ``columns`` and ``score_range`` as ``table``. Sentences must be strings;
  a score is a number, a plain-decimal string, or null/absent (unscored). ``line`` is the 1-based
  row (Parquet) or line (JSON Lines), and errors name it.

A dataset's file is a corpus file (``input``/``gold``: paths in the corpus manifest, fetched and
verified by stsynth.core.corpus) or a local file (``path``/``gold_path``), whose sha256 the workflow
records in ``results/datasets.lock.tsv`` the first time it is read (stsynth.core.local_files).

Pair table schema (one Parquet per dataset, ``resources/pairs/{year}/{dataset}.parquet``):

==========  ========  ===================================================================
column      type      meaning
==========  ========  ===================================================================
year        int16     release year
dataset     string    dataset name as declared in config.yaml
track       string    ``en`` or ``es-en`` (s1 is the Spanish side on es-en)
line        int32     1-based line of the input file (``table``: data row after the header)
s1, s2      string    the two sentences
gold        float64   gold score on the 0-5 scale; null where unscored (all null: a predict set)
==========  ========  ===================================================================
"""

from __future__ import annotations

import csv
import io
import json
import logging
import re
from pathlib import Path

import numpy as np
import pandas as pd

from .datasets import FORMATS, Dataset, InputFormatError
from .wording import counted

log = logging.getLogger(__name__)

PAIR_COLUMNS = ["year", "dataset", "track", "line", "s1", "s2", "gold"]


# The csv module's default field limit, applied to every format: no sentence of any STS release
# comes near it, and a field this long is a quoting error (a stray quote swallowing lines).
MAX_FIELD_CHARS = 131072
# What a score may look like: Python's float() also takes "0_5", "1e0", "inf", "nan" and other scripts'
# digits ("٣.٥", "３.５"), which \d would match too: ASCII digits only.
PLAIN_DECIMAL = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)")
STSB_FIELDS = 7  # genre, file, years, id, score, s1, s2 (license notes may follow: never read)


BOM = b"\xef\xbb\xbf"


def _decoded_lines(path: str | Path) -> list[str]:
    raw = Path(path).read_bytes()
    if str(path).endswith(".gz"):  # MTEB's {split}.jsonl.gz
        import gzip

        raw = gzip.decompress(raw)
    if raw.startswith(BOM):
        log.info("%s starts with a UTF-8 byte-order mark: removed, not part of the first line", path)
        raw = raw[len(BOM) :]
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # the final newline ends the last line rather than starting another
    decoded = []
    for lineno, line in enumerate(lines, start=1):
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as err:
            raise InputFormatError(
                f"{path}:{lineno}: not valid UTF-8 ({err.reason} at byte {err.start}): save the file as UTF-8"
            ) from None
        decoded.append(text[:-1] if text.endswith("\r") else text)  # the es-en files end lines in CRLF
    return decoded


def check_fields(parts: list[str], where: str) -> list[str]:
    """The fields of one line, refused when one holds a NUL byte (the MT engines use it as a
    separator) or is longer than MAX_FIELD_CHARS."""
    for number, field in enumerate(parts, start=1):
        if "\0" in field:
            raise InputFormatError(
                f"{where}: field {number} contains a NUL byte (at character {field.index(chr(0)) + 1})"
            )
        if len(field) > MAX_FIELD_CHARS:
            raise InputFormatError(
                f"{where}: field {number} has {len(field)} characters, more than the {MAX_FIELD_CHARS} a field may have"
            )
    return parts


def read_field_lines(path: str | Path, fields: int) -> list[list[str]]:
    """The tab-separated fields of every line of a released input file, each line checked for ``fields``."""
    lines = []
    for lineno, line in enumerate(_decoded_lines(path), start=1):
        parts = line.split("\t")
        if len(parts) != fields:
            raise InputFormatError(f"{path}:{lineno}: expected {fields} tab-separated fields, found {len(parts)}")
        lines.append(check_fields(parts, f"{path}:{lineno}"))
    return lines


def read_sentences(path: str | Path, fields: int) -> list[tuple[str, str]]:
    # fields 3+ are source notes or third-party MT: no run reads them (stsynth.translation.mt_quality compares one)
    return [(parts[0], parts[1]) for parts in read_field_lines(path, fields)]


def read_gold(path: str | Path, score_range: tuple | None = None) -> list[float | None]:
    """A SemEval gold file's scores (a blank line: unscored); on ``score_range`` (low, high), mapped onto 0-5."""
    low, high = score_range or (0.0, 5.0)
    scores = [
        _score(line.strip(), f"{path}:{lineno}", low, high, what="gold score") if line.strip() else None
        for lineno, line in enumerate(_decoded_lines(path), start=1)
    ]
    if score_range is None:
        return scores
    log.info("%s: scores on [%g, %g] mapped linearly onto [0, 5]", path, low, high)
    return [None if score is None else to_sts_scale(score, low, high) for score in scores]


def is_blank(sentence) -> bool:
    """Empty or only white space (Unicode white space: a no-break space counts)."""
    return not str(sentence).strip()


def blank_counts(table: pd.DataFrame) -> dict[str, int]:
    """Lines of a pair table whose s1 / s2 is blank, and how many of those are scored."""
    blank1, blank2 = table["s1"].map(is_blank), table["s2"].map(is_blank)
    return {
        "blank_s1": int(blank1.sum()),
        "blank_s2": int(blank2.sum()),
        "blank_scored": int(((blank1 | blank2) & table["gold"].notna()).sum()),
    }


def encoded_lines(pairs: pd.DataFrame, every_line: bool = True) -> np.ndarray:
    """Which rows of a pair table an encoder's similarity table scores (a boolean mask): every line, or
    only the scored ones (gold not null)."""
    return np.ones(len(pairs), dtype=bool) if every_line else pairs["gold"].notna().to_numpy()


def read_sts(dataset: Dataset, input_path, gold_path) -> tuple[list[tuple[str, str]], list[float | None]]:
    sentences = read_sentences(input_path, dataset.fields)
    if gold_path is None:
        return sentences, [None] * len(sentences)
    gold = read_gold(gold_path, dataset.score_range)
    if len(sentences) != len(gold):
        raise InputFormatError(
            f"{input_path} has {len(sentences)} lines but {gold_path} has {len(gold)}; they must match line for line"
        )
    return sentences, gold


def _score(text: str, where: str, low: float = 0.0, high: float = 5.0, what: str = "score") -> float:
    if not PLAIN_DECIMAL.fullmatch(text):
        raise InputFormatError(
            f"{where}: {what} {text!r} is not a number written as a plain decimal (3.8, .5, -1; not 0_5, 1e0, nan)"
        )
    value = float(text)
    if not low <= value <= high:
        raise InputFormatError(f"{where}: {what} {value} is outside [{low:g}, {high:g}]")
    return value


def read_stsb(path) -> tuple[list[tuple[str, str]], list[float | None]]:
    sentences, gold, extra = [], [], 0
    for lineno, line in enumerate(_decoded_lines(path), start=1):
        parts = line.split("\t")
        if len(parts) < STSB_FIELDS:
            raise InputFormatError(
                f"{path}:{lineno}: expected at least {STSB_FIELDS} tab-separated fields "
                f"(genre, file, years, id, score, s1, s2), found {len(parts)}"
            )
        extra += len(parts) > STSB_FIELDS
        check_fields(parts[:STSB_FIELDS], f"{path}:{lineno}")
        gold.append(_score(parts[4], f"{path}:{lineno}"))
        sentences.append((parts[5], parts[6]))
    log.info("%s: %d lines carry fields after s2 (license notes), not read", path, extra)
    return sentences, gold


def read_table(dataset: Dataset, path) -> tuple[list[tuple[str, str]], list[float | None]]:
    raw = Path(path).read_bytes()
    try:
        text = raw.decode(dataset.encoding)
    except UnicodeDecodeError as err:
        lineno = raw[: err.start].count(b"\n") + 1
        raise InputFormatError(
            f"{path}:{lineno}: not valid {dataset.encoding} "
            f"({err.reason} at byte {err.start}): give the file's encoding as the dataset's "
            "`encoding`, or save it as one"
        ) from None
    if text.startswith("\ufeff"):
        log.info("%s starts with a byte-order mark: removed, not part of the header", path)
        text = text[1:]
    quoting = {"minimal": csv.QUOTE_MINIMAL, "none": csv.QUOTE_NONE}[dataset.quoting]
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=dataset.delimiter, quoting=quoting)
    rows = _table_rows(reader, path)
    header = next(rows, None)
    if header is None:
        raise InputFormatError(f"{path}: empty file, expected a header row")
    where = f"{path}:{reader.line_num}"
    if repeated := named_twice(header):
        raise InputFormatError(
            f"{where}: the header names a column more than once ("
            + "; ".join(f"{name!r} as columns {', '.join(map(str, at))}" for name, at in repeated.items())
            + "): which one a key means would be a guess"
        )
    columns = dataset.column_names or {}
    missing = [f"{key}: {name!r}" for key, name in columns.items() if name not in header]
    if missing:
        raise InputFormatError(f"{where}: header {header} lacks the configured column(s) {', '.join(missing)}")
    check_columns_distinct(columns, where, "header column")
    index = {key: header.index(name) for key, name in columns.items()}
    low, high = dataset.score_range or (0.0, 5.0)
    sentences, gold = [], []
    for row in rows:
        where = f"{path}:{reader.line_num}"
        if len(row) != len(header):
            raise InputFormatError(f"{where}: expected {len(header)} fields (as the header), found {len(row)}")
        check_fields(row, where)
        sentences.append((row[index["sentence1"]], row[index["sentence2"]]))
        if "score" not in index or not row[index["score"]].strip():
            gold.append(None)
        else:
            gold.append(to_sts_scale(_score(row[index["score"]].strip(), where, low, high), low, high))
    if "score" in index and (low, high) != (0.0, 5.0):
        log.info("%s: scores on [%g, %g] mapped linearly onto [0, 5]", path, low, high)
    return sentences, gold


def named_twice(names) -> dict:
    """Each name given more than once -> the keys (of a mapping) or 1-based positions (of a list) giving it."""
    given: dict = {}
    for key, name in names.items() if isinstance(names, dict) else enumerate(names, start=1):
        given.setdefault(name, []).append(key)
    return {name: keys for name, keys in given.items() if len(keys) > 1}


def check_columns_distinct(columns: dict, where: str, noun: str = "column") -> None:
    """``columns`` (sentence1, sentence2[, score] -> column name) must name three different columns."""
    if shared := named_twice(columns):
        raise InputFormatError(
            f"{where}: "
            + "; ".join(f"columns {' and '.join(keys)} name the same {noun} {name!r}" for name, keys in shared.items())
        )


def to_sts_scale(value: float, low: float, high: float) -> float:
    """A score on [low, high] mapped linearly onto the STS scale 0-5."""
    return 5.0 * (value - low) / (high - low)


def _scaled(value, where: str, low: float, high: float) -> float | None:
    """A score cell of a typed format (JSON, Parquet) on the 0-5 scale: a number or a plain-decimal
    string; null (JSON null, a Parquet null) and "" are unscored; NaN is refused, as in every format."""
    if value is None or value == "":
        return None
    if isinstance(value, float) and value != value:
        raise InputFormatError(f"{where}: score NaN is not a number (an unscored pair has a null score)")
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise InputFormatError(f"{where}: score {value!r} is not a number")
    if isinstance(value, str):
        value = _score(value.strip(), where, low, high)
    elif not low <= value <= high:  # also refuses inf
        raise InputFormatError(f"{where}: score {value} is outside [{low:g}, {high:g}]")
    return to_sts_scale(float(value), low, high)


def read_records(dataset: Dataset, path, records) -> tuple[list[tuple[str, str]], list[float | None]]:
    """Sentences and 0-5 scores from (where, mapping) records of a typed format, by the dataset's columns."""
    columns = dataset.column_names or {}
    check_columns_distinct(columns, str(path))
    low, high = dataset.score_range or (0.0, 5.0)
    sentences, gold = [], []
    for where, record in records:
        pair = []
        for key in ("sentence1", "sentence2"):
            if columns[key] not in record:
                raise InputFormatError(f"{where}: no {columns[key]!r} ({key}); it has {sorted(record)}")
            if not isinstance(value := record[columns[key]], str):
                raise InputFormatError(f"{where}: {columns[key]!r} ({key}) is {value!r}, not a string")
            pair.append(value)
        sentences.append(tuple(check_fields(pair, where)))
        gold.append(_scaled(record.get(columns["score"]), where, low, high) if "score" in columns else None)
    if "score" in columns and (low, high) != (0.0, 5.0):
        log.info("%s: scores on [%g, %g] mapped linearly onto [0, 5]", path, low, high)
    return sentences, gold


def _strict_json(text: str, where: str):
    """JSON as the standard has it: Python's reader also takes NaN and Infinity and keeps the last of two
    equal keys; both are refused, naming the line."""

    def constant(name):
        raise InputFormatError(f"{where}: {name} is not JSON (a number must be finite; an unscored pair has null)")

    def unique(pairs):
        keys = [key for key, _ in pairs]
        if repeated := sorted({key for key in keys if keys.count(key) > 1}):
            raise InputFormatError(
                f"{where}: key {repeated[0]!r} is given twice in one object (JSON readers keep "
                "one of them without a word)"
            )
        return dict(pairs)

    return json.loads(text, parse_constant=constant, object_pairs_hook=unique)


def read_jsonl(dataset: Dataset, path) -> tuple[list[tuple[str, str]], list[float | None]]:
    def records():
        for lineno, line in enumerate(_decoded_lines(path), start=1):
            where = f"{path}:{lineno}"
            try:
                record = _strict_json(line, where)
            except json.JSONDecodeError as err:
                raise InputFormatError(f"{where}: not a JSON object ({err.msg} at column {err.colno})") from None
            if not isinstance(record, dict):
                raise InputFormatError(f"{where}: a JSON {type(record).__name__}, not an object")
            yield where, record

    return read_records(dataset, path, records())


def read_parquet_rows(dataset: Dataset, path) -> tuple[list[tuple[str, str]], list[float | None]]:
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except Exception as err:  # pyarrow raises its own error types for a file that is not Parquet
        raise InputFormatError(f"{path}: not a readable Parquet file ({err})") from err
    missing = [
        f"{key}: {name!r}" for key, name in (dataset.column_names or {}).items() if name not in table.column_names
    ]
    if missing:
        raise InputFormatError(
            f"{path}: columns {table.column_names} lack the configured column(s) {', '.join(missing)}"
        )
    wanted = list(dict.fromkeys((dataset.column_names or {}).values()))
    # pyarrow's own values: a null stays None and a NaN float stays NaN (pandas would make both NaN)
    columns = {name: table.column(name).to_pylist() for name in wanted}
    rows = [dict(zip(wanted, values)) for values in zip(*columns.values())]
    return read_records(dataset, path, ((f"{path}: row {number}", row) for number, row in enumerate(rows, start=1)))


def _table_rows(reader, path):
    """The rows of a csv reader, its errors (a field over the limit, a stray quote) naming file and line."""
    while True:
        try:
            yield next(reader)
        except StopIteration:
            return
        except csv.Error as err:
            raise InputFormatError(f"{path}:{reader.line_num}: {err}") from err


def conflicting_pairs(sentences: list[tuple[str, str]], gold: list[float | None], where) -> list[str]:
    """A warning for each pair given twice with different gold (the STS Benchmark's training set has four): both
    lines are kept and scored, as the release has them; the warning names both lines."""
    first: dict[tuple[str, str], int] = {}
    warnings = []
    for number, (pair, score) in enumerate(zip(sentences, gold), start=1):
        if score is None:
            continue
        if pair in first and gold[first[pair] - 1] != score:
            warnings.append(
                f"{where}: lines {first[pair]} and {number} are the same pair with gold {gold[first[pair] - 1]:g} "
                f"and {score:g} (both kept and scored, as the file has them)"
            )
        first.setdefault(pair, number)
    return warnings


def pair_table(dataset: Dataset, input_path: str | Path, gold_path: str | Path | None = None) -> pd.DataFrame:
    """The pair table of a dataset from its file(s), in its format (module docstring)."""
    if dataset.format == "sts":
        sentences, gold = read_sts(dataset, input_path, gold_path)
    elif dataset.format == "stsb":
        sentences, gold = read_stsb(input_path)
    elif dataset.format == "table":
        sentences, gold = read_table(dataset, input_path)
    elif dataset.format == "jsonl":
        sentences, gold = read_jsonl(dataset, input_path)
    elif dataset.format == "parquet" or (dataset.format == "mteb" and str(input_path).endswith(".parquet")):
        sentences, gold = read_parquet_rows(dataset, input_path)
    elif dataset.format == "mteb":
        sentences, gold = read_jsonl(dataset, input_path)
    else:
        raise ValueError(f"unknown dataset format {dataset.format!r} (known: {', '.join(FORMATS)})")
    if not sentences:
        raise InputFormatError(f"{input_path}: no pairs; a dataset, a predict set too, needs at least one line")
    scored = sum(g is not None for g in gold)
    where = gold_path or input_path
    if dataset.scored is not None and scored != dataset.scored:
        raise InputFormatError(f"{where}: {counted(scored, 'scored pair')}, config.yaml expects {dataset.scored}")
    if dataset.has_gold and not scored:
        raise InputFormatError(
            f"{where}: no scored pair; a dataset without scores is declared without "
            "`gold` (sts) or without a `score` column (table, parquet, jsonl)"
        )
    log.info(
        "%s/%s (%s): read %s, %d scored, %d unscored%s",
        dataset.year,
        dataset.name,
        dataset.format,
        counted(len(sentences), "line"),
        scored,
        len(sentences) - scored,
        "" if dataset.has_gold else " (a predict set: no gold)",
    )
    for message in conflicting_pairs(sentences, gold, where):
        log.warning(message)
    for side in (0, 1):
        blank = [number for number, pair in enumerate(sentences, start=1) if is_blank(pair[side])]
        if blank:
            log.warning(
                "%s: %s whose s%d is empty or only white space (kept: each still gets a prediction): %s %s",
                input_path,
                counted(len(blank), "line"),
                side + 1,
                "line" if len(blank) == 1 else "lines",
                ", ".join(map(str, blank[:20])) + (", ..." if len(blank) > 20 else ""),
            )
    table = pd.DataFrame(
        {
            "year": pd.Series([dataset.year] * len(sentences), dtype="int16"),
            "dataset": pd.Series([dataset.name] * len(sentences), dtype="string"),
            "track": pd.Series([dataset.track] * len(sentences), dtype="string"),
            "line": pd.Series(range(1, len(sentences) + 1), dtype="int32"),
            "s1": pd.Series([s for s, _ in sentences], dtype="string"),
            "s2": pd.Series([s for _, s in sentences], dtype="string"),
            "gold": pd.Series(gold, dtype="float64"),
        }
    )
    return table
