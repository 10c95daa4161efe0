"""A dataset as config.yaml declares it (:class:`Dataset`: year, name, track, role, format, where its files are),
with the error every bad input raises (:class:`InputFormatError`). stsynth.core.pairs reads its files into a
pair table.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


class InputFormatError(ValueError):
    """Bad input, always naming the file and (where there is one) the line."""


FORMATS = ("sts", "stsb", "table", "parquet", "jsonl", "mteb")


COLUMN_FORMATS = ("table", "parquet", "jsonl")  # columns: {sentence1, sentence2[, score]}, score_range


@dataclass(frozen=True)
class Dataset:
    year: int
    name: str
    track: str
    role: str
    input: str | None = None  # corpus path of the input (sts) or the whole file (stsb, table)
    gold: str | None = None  # sts: corpus path of the gold file; none: a predict set
    fields: int | None = None  # sts: tab-separated fields per input line
    scored: int | None = None  # known number of scored pairs, checked when given
    format: str = "sts"
    path: str | None = None  # a local file instead of `input`
    gold_path: str | None = None  # sts: a local gold file instead of `gold`
    group: str | None = None  # the ALL rows' unit (default: the year)
    columns: dict | None = None  # table: sentence1, sentence2[, score] -> header names
    score_range: tuple | None = None  # table: the scale of its scores (default 0-5)
    delimiter: str = ","
    quoting: str = "minimal"
    encoding: str = "utf-8"
    split: str = "test"  # mteb: which split's file of the task folder
    subset: str | None = None  # mteb: the subset (hf_subset) folder, e.g. en-en of STS17
    revision: str | None = None  # mteb: the dataset revision the folder holds (recorded in MTEB results)
    added: bool = False  # a test set added beside the protocol: scored, read by no model (stsynth.pipeline.protocol)

    @classmethod
    def from_config(cls, entry: dict) -> "Dataset":
        entry = with_year(entry)
        if entry.get("score_range") is not None:
            entry["score_range"] = tuple(entry["score_range"])
        return cls(**entry)

    @property
    def group_name(self) -> str:
        return str(self.group if self.group is not None else self.year)

    @property
    def job_part(self) -> str | None:
        """Which job of a per-set rule writes its table: None, the one of the sets models are fitted and chosen
        on; a test set's group name, that group's own job (a test set added is then a job of its own)."""
        return self.group_name if self.role == "test" else None

    @property
    def has_gold(self) -> bool:
        """False for a predict set: predictions are written, nothing is scored."""
        if self.format == "sts":
            return bool(self.gold or self.gold_path)
        if self.format in COLUMN_FORMATS:
            return "score" in (self.columns or {})
        return True

    @property
    def local_file(self) -> str | None:
        """The local file its pairs are read from: ``path``, or for ``mteb`` the split's file in that folder."""
        return str(mteb_task_file(self.path, self.split, self.subset)) if self.format == "mteb" else self.path

    @property
    def local_files(self) -> list[str]:
        return [f for f in (self.local_file, self.gold_path) if f]

    @property
    def column_names(self) -> dict | None:
        """``columns``; an MTEB task's files name them sentence1, sentence2, score."""
        return self.columns or (MTEB_COLUMNS if self.format == "mteb" else None)


# An MTEB STS task's files (mteb/sts12-sts, mteb/stsbenchmark-sts, ... as a local folder): one file per
# split, {split}.jsonl.gz or .jsonl or .parquet, or Hugging Face's parquet export {split}-00000-of-00001.parquet
# (under data/ or the subset's folder); subsets (STS17's en-en, es-en, ...) in folders of their own.
MTEB_COLUMNS = {"sentence1": "sentence1", "sentence2": "sentence2", "score": "score"}


MTEB_SUFFIXES = (".jsonl.gz", ".jsonl", ".parquet")


def mteb_task_file(folder: str | Path, split: str = "test", subset: str | None = None) -> Path:
    """The one file of ``split`` (and ``subset``) in a local MTEB task folder, or InputFormatError naming
    what was looked for."""
    base = Path(folder) / subset if subset else Path(folder)
    patterns = [f"{split}{suffix}" for suffix in MTEB_SUFFIXES] + [f"{split}-*.parquet", f"data/{split}-*.parquet"]
    found = [path for pattern in patterns for path in sorted(base.glob(pattern)) if path.is_file()]
    if len(found) != 1:
        what = "no file" if not found else f"{len(found)} files ({', '.join(p.name for p in found)}), not one"
        raise InputFormatError(
            f"{base}: {what} of split {split!r} in this MTEB task folder (looked for "
            f"{', '.join(patterns)}); set the dataset's split/subset, or point path at the task's folder"
        )
    return found[0]


# The year of a dataset declared without one (MTEB's and Hugging Face's sets have none): its tables
# live under .../0/{name}.parquet and, unless it names a group, it is its own group.
NO_YEAR = 0


def with_year(entry: dict) -> dict:
    """A dataset's config entry with its year: a dataset without one gets NO_YEAR and, unless it
    names a group, its own name as its group (its own ALL rows)."""
    if "year" in entry:
        return dict(entry)
    return {"year": NO_YEAR, **entry, "group": entry.get("group", entry["name"])}


def select(datasets, role=None, track=None, years=None) -> list[Dataset]:
    """Datasets of a role and track; ``years``: a selection of years, groups or ``year/name`` (a protocol's
    parts name any: 2015, a group such as ``sts-dev``, or ``2017/track5``)."""
    selection = None if years is None else {str(value) for value in years}
    return [
        d
        for d in datasets
        if role in (None, d.role)
        and track in (None, d.track)
        and (
            selection is None
            or str(d.year) in selection
            or d.group_name in selection
            or f"{d.year}/{d.name}" in selection
        )
    ]
