"""A model is known by its bytes: one digest of every file a model folder holds, computed in one place.

:func:`folder_digest` is what every job that opens a model, the embedding cache's key, the rerun
triggers (each such rule's ``model`` param, stsynth.encoders.encoder.job_identity) and the outputs that describe a
model (MTEB's model_meta.json, the model cards, the report's provenance) take a model's identity from:
SHA-256 over each file's path relative to the folder and its own SHA-256, in path order. Symbolic links
are followed, to files and to folders (a Hugging Face hub snapshot is a folder of links into its blobs;
a model may link a sub-folder from elsewhere), each real folder walked once. Loading reads a subset of
these files; hidden files and folders (``.git/``, ``.cache/``, ``.gitattributes``, Snakemake's
``.snakemake_timestamp``: bookkeeping, not the model) are left out, judged by their names inside the
folder, whatever the absolute path above it is (a model under ``~/.cache/huggingface`` is hashed whole).

Hashing 400 MB takes seconds, and every dry run plans the jobs that open a model, so a file's SHA-256
is remembered between invocations (:class:`FileDigests`, a JSON file under ``.snakemake/``) by its real
path and (size, mtime_ns, ctime_ns, inode): a file overwritten in place (``cp``), even with its old
mtime put back (``cp -p``: the ctime still moves), is hashed again. Deleting the memo costs time only.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from .corpus import sha256_of

# Below the working directory: the memo of file digests (the working directory's own, like Snakemake's metadata).
MEMO_PATH = ".snakemake/stsynth/file-digests.json"


def _hidden(name: str) -> bool:
    return name.startswith(".")


def model_files(folder: str | Path) -> list[tuple[str, str]]:
    """(path relative to ``folder``, real path) of every file of a model folder, in relative-path order,
    symbolic links followed (module docstring). A link that points nowhere is an error: loading would fail
    on it, or read something else tomorrow."""
    folder = Path(folder)
    files, seen = [], set()
    for top, folders, names in os.walk(folder, followlinks=True):
        real = os.path.realpath(top)
        if real in seen:  # a link back up the tree, or two links to one folder: walked once
            folders[:] = []
            continue
        seen.add(real)
        relative = Path(top).relative_to(folder)
        folders[:] = [f for f in folders if not _hidden(f)]
        for name in filter(lambda n: not _hidden(n), names):
            path = Path(top) / name
            if not path.exists():
                raise FileNotFoundError(f"{path}: a symbolic link to {os.readlink(path)!r}, which does not exist")
            files.append(((relative / name).as_posix(), os.path.realpath(path)))
    return sorted(files)


class FileDigests:
    """SHA-256 of files, remembered by real path and (size, mtime_ns, ctime_ns, inode) in ``memo`` (JSON)."""

    def __init__(self, memo: str | Path = MEMO_PATH):
        self.memo = Path(memo)
        try:
            self.known = json.loads(self.memo.read_text())
        except (OSError, ValueError):
            self.known = {}  # none yet, or unreadable (a killed write): every file is hashed again
        self.changed = False

    def sha256(self, real_path: str) -> str:
        stat = os.stat(real_path)
        facts = [stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino]
        known = self.known.get(real_path)
        if known is not None and known[:4] == facts:
            return known[4]
        digest = sha256_of(real_path)
        self.known[real_path] = [*facts, digest]
        self.changed = True
        return digest

    def save(self) -> None:
        """Write the memo when it learnt something (a temporary file renamed: readers see a whole memo)."""
        if not self.changed:
            return
        self.memo.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.memo.with_name(f"{self.memo.name}.{os.getpid()}.tmp")
        temporary.write_text(json.dumps(self.known, sort_keys=True))
        os.replace(temporary, self.memo)
        self.changed = False


def folder_digest(folder: str | Path, digests: FileDigests | None = None) -> str:
    """The identity of a model folder (module docstring): SHA-256 hex of every file's relative path and SHA-256."""
    return _digest(model_files(folder), digests)


def files_digest(files: list[str | Path], digests: FileDigests | None = None) -> str:
    """The identity of a model made of loose files (a head run's parts): the same over (file name, file)."""
    return _digest(sorted((Path(f).name, os.path.realpath(f)) for f in files), digests)


def _digest(files: list[tuple[str, str]], digests: FileDigests | None) -> str:
    digests = digests or FileDigests()
    total = hashlib.sha256()
    for relative, real in files:
        total.update(f"{relative}\0{digests.sha256(real)}\n".encode())
    digests.save()
    return total.hexdigest()
