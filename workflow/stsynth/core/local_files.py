"""Local files, the datasets' (``path:``, ``gold_path:``) and the external runs' prediction files
(``runs.<run>.predictions``): their sha256 recorded in ``results/datasets.lock.tsv`` the first time a run
reads them, and a later change refused before any job, on every invocation (common.smk). A file copied
back with an old mtime (``cp -p``, ``rsync -a``, ``tar x``) is caught all the same: the bytes decide."""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from pathlib import Path

from .datasets import InputFormatError

LOCK_COLUMNS = ["path", "sha256", "bytes", "recorded"]


@dataclass
class LocalFiles:
    """The local dataset files as read now, against the lock file (TSV: path, sha256, bytes, recorded)."""

    lock_path: Path
    digests: dict  # path -> sha256 now
    rows: dict  # path -> lock row, the new files' rows included
    new: list  # paths not in the lock yet
    changed: list  # one message per file whose bytes changed since it was recorded

    def error(self) -> str | None:
        """Why a run must not start (files changed since they were recorded), or None."""
        if not self.changed:
            return None
        return (
            "local files (datasets, external predictions) changed since they were first read:\n  "
            + "\n  ".join(self.changed)
            + f"\nIf the new contents are intended, delete their lines from {self.lock_path}: every result "
            "built from them is then rebuilt."
        )

    def notes(self) -> list[str]:
        return [
            f"{path}: first read, sha256 {self.digests[path]} to be recorded in {self.lock_path}" for path in self.new
        ]

    def record(self) -> list[str]:
        """Write the new files' rows to the lock (a run that goes ahead, never a dry run); the notes."""
        if self.new:
            self.lock_path.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.lock_path.with_name(self.lock_path.name + f".{os.getpid()}.tmp")
            temporary.write_text(
                "\n".join("\t".join(row) for row in [LOCK_COLUMNS, *self.rows.values()]) + "\n", encoding="utf-8"
            )
            os.replace(temporary, self.lock_path)
        return [note.replace("to be recorded", "recorded") for note in self.notes()]


def check_local_files(paths: list[str], lock_path: str | Path, sha256_of, now: str) -> LocalFiles:
    """sha256 of every local dataset file, checked against the lock file: a file not in it yet is new
    (LocalFiles.record adds it); a file whose bytes changed since it was recorded is a LocalFiles.error,
    never silently mixed with results built from the old bytes. Blank lines of the lock are skipped."""
    lock_path = Path(lock_path)
    recorded = {}
    if lock_path.exists():
        rows = [
            (lineno, row)
            for lineno, row in enumerate(
                csv.reader(lock_path.read_text(encoding="utf-8").splitlines(), delimiter="\t"), start=1
            )
            if row
        ]
        if not rows or rows[0][1] != LOCK_COLUMNS:
            raise InputFormatError(f"{lock_path}:1: header must be {LOCK_COLUMNS}")
        for lineno, row in rows[1:]:
            if len(row) != len(LOCK_COLUMNS):
                raise InputFormatError(f"{lock_path}:{lineno}: expected {len(LOCK_COLUMNS)} fields, found {len(row)}")
            recorded[row[0]] = row
    digests, new, changed = {}, [], []
    for path in dict.fromkeys(paths):
        if not Path(path).is_file():
            raise InputFormatError(
                f"{path}: local file not found (a dataset's path or gold_path, or an external run's predictions)"
            )
        digests[path] = digest = sha256_of(path)
        if path not in recorded:
            recorded[path] = [path, digest, str(Path(path).stat().st_size), now]
            new.append(path)
        elif recorded[path][1] != digest:
            changed.append(
                f"{path}: sha256 is {digest}, but {lock_path} recorded {recorded[path][1]} on {recorded[path][3]}"
            )
    return LocalFiles(lock_path, digests, recorded, new, changed)
