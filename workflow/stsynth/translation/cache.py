"""The translation cache: every translation ever made, keyed by (backend, version, direction, sentence).

It lives outside every rule's outputs (``translate.cache``, an SQLite file) and is committed chunk by
chunk, so a killed or re-run rule translates only what is missing. Its table::

    translations(backend TEXT, version TEXT, direction TEXT, source TEXT, target TEXT,
                 PRIMARY KEY (backend, version, direction, source))

Jobs translating at the same time share it. How they share it (``translate.cache_sharing``):

- ``wal``: every job reads and writes the one file, in SQLite's WAL mode (readers and one writer at a
  time). Fast, and safe on a local disk; SQLite documents that WAL does not work over a network
  filesystem (its shared memory index is per machine).
- ``shards``: the file is only read by jobs, opened immutable; each job writes what it translates to
  a shard of its own, ``<cache>.shards/<host>-<pid>-<random>.sqlite.partial`` (one writer per file, so
  no lock is needed), renamed ``….sqlite`` when the job is done, and reads the shards other jobs have
  finished. The workflow's main process merges shards into the file when a run starts
  (:func:`merge_shards`, before any job). Another run may be going on in the same tree (Snakemake's
  lock covers overlapping outputs only), so a merge never touches what a live process owns: it takes
  the finished shards and the partial shards of processes of this host that are dead (killed jobs),
  leaves every other partial shard alone, and replaces the file with a merged copy by an atomic rename
  (a job that has the old file open reads it unchanged). Nothing depends on file locking, which
  network filesystems do not all provide.
- ``auto`` (default): ``shards`` when the cache's folder is on a network filesystem
  (:func:`filesystem_type`, from /proc/self/mountinfo), else ``wal``.
"""

from __future__ import annotations

import logging
import os
import re
import socket
import sqlite3
import time
import uuid
from contextlib import closing
from pathlib import Path

log = logging.getLogger(__name__)

SHARINGS = ("auto", "wal", "shards")
# Filesystems where several machines see the same files (Linux fstype names).
NETWORK_FILESYSTEMS = {
    "nfs",
    "nfs4",
    "cifs",
    "smb3",
    "smbfs",
    "ncpfs",
    "afs",
    "lustre",
    "gpfs",
    "beegfs",
    "glusterfs",
    "fuse.glusterfs",
    "ceph",
    "fuse.ceph",
    "fuse.sshfs",
    "9p",
    "panfs",
    "orangefs",
    "pvfs2",
    "davfs",
    "fuse.s3fs",
    "wekafs",
    "fuse.gcsfuse",
    "fuse.juicefs",
}
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS translations (backend TEXT, version TEXT, direction TEXT, source TEXT, "
    "target TEXT, PRIMARY KEY (backend, version, direction, source))"
)
LOOKUP = "SELECT source, target FROM translations WHERE backend=? AND version=? AND direction=? AND source IN ({})"
BOUND_VARIABLES = 500  # SQLite caps the number of bound variables of one statement


def filesystem_type(path: str | Path, mountinfo: str = "/proc/self/mountinfo") -> str | None:
    """The fstype of the mount that holds path (its nearest existing folder), or None where unknown."""
    folder = Path(path).absolute()
    while not folder.exists():
        folder = folder.parent
    try:
        return mount_type(folder.resolve(), Path(mountinfo).read_text())
    except OSError:
        return None


def mount_type(folder: Path, mountinfo: str) -> str | None:
    """The fstype of the longest mount point above folder in a /proc/<pid>/mountinfo text."""
    best, fstype = -1, None
    for line in mountinfo.splitlines():
        fields, _, rest = line.partition(" - ")
        mount_point = fields.split()[4].encode().decode("unicode_escape")  # a space is \040 there
        if (folder == Path(mount_point) or Path(mount_point) in folder.parents) and len(mount_point) > best:
            best, fstype = len(mount_point), rest.split()[0]
    return fstype


def resolve_sharing(sharing: str, path: str | Path) -> str:
    if sharing not in SHARINGS:
        raise ValueError(f"translate.cache_sharing: {sharing!r} is not one of {', '.join(SHARINGS)}")
    if sharing != "auto":
        return sharing
    fstype = filesystem_type(Path(path).parent)
    return "shards" if fstype in NETWORK_FILESYSTEMS else "wal"


def shard_folder(path: str | Path) -> Path:
    path = Path(path)
    return path.with_name(path.name + ".shards")


def _read_only(path: Path) -> sqlite3.Connection:
    # immutable: no locks, no journal; right for a file nobody writes while it is open
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)


def _read_only_if_there(path: Path) -> sqlite3.Connection | None:
    try:
        return _read_only(path)
    except sqlite3.OperationalError:
        if path.exists():
            raise
        return None


LOCK_WAIT_SECONDS = 600


def _open_wal(path: Path) -> sqlite3.Connection:
    """The file opened in WAL mode with its table. Jobs starting together race to switch a new file's
    journal mode; SQLite answers the losers "database is locked" at once, without its busy timeout (a
    reader waiting for a writer's lock could deadlock), so the switch is tried again until it holds."""
    db = sqlite3.connect(path, timeout=LOCK_WAIT_SECONDS)
    deadline, pause = time.monotonic() + LOCK_WAIT_SECONDS, 0.01
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(SCHEMA)
            db.commit()
            return db
        except sqlite3.OperationalError as error:
            refused = "locked" in str(error) or "busy" in str(error)
            if not refused or time.monotonic() > deadline:
                db.close()
                raise
            time.sleep(pause)
            pause = min(2 * pause, 1.0)


class TranslationCache:
    def __init__(self, path: str | Path, sharing: str = "auto"):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.sharing = resolve_sharing(sharing, self.path)
        self.readers: list[sqlite3.Connection] = []
        self.db: sqlite3.Connection | None = None  # where stores go; a shard is created by the first one
        if self.sharing == "wal":
            self.db = _open_wal(self.path)
        else:
            shards = shard_folder(self.path)
            finished = sorted(shards.glob("*.sqlite"))
            # a finished shard may be merged away (by another run's start) between the listing and the
            # opening: its rows are then in the file, or translated again
            self.readers = [
                reader
                for p in ([self.path] if self.path.exists() else []) + finished
                if (reader := _read_only_if_there(p)) is not None
            ]
            self.shard = shards / f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:8]}.sqlite.partial"
            log.info(
                "translation cache %s shared as shards (%s): reading it and %d finished shards",
                self.path,
                filesystem_type(self.path.parent) or "filesystem unknown",
                len(finished),
            )

    def close(self) -> None:
        """Close it; a shard is then renamed finished, for later jobs to read and the next run to merge."""
        for reader in self.readers:
            reader.close()
        if self.db is not None:
            self.db.close()
            if self.sharing == "shards":
                self.shard.rename(self.shard.with_suffix(""))

    def lookup(self, translator, direction: str, sentences: list[str]) -> dict[str, str]:
        found = {}
        unique = list(dict.fromkeys(sentences))
        for db in [*self.readers, *([self.db] if self.db is not None else [])]:
            for start in range(0, len(unique), BOUND_VARIABLES):
                chunk = unique[start : start + BOUND_VARIABLES]
                rows = db.execute(
                    LOOKUP.format(",".join("?" * len(chunk))), [translator.name, translator.version, direction, *chunk]
                )
                found.update(rows)
        return found

    def store(self, translator, direction: str, translations: dict[str, str]) -> None:
        if self.db is None:
            self.shard.parent.mkdir(exist_ok=True)
            self.db = sqlite3.connect(self.shard)
            self.db.execute(SCHEMA)
            log.info("new translations go to the shard %s", self.shard)
        with self.db:
            self.db.executemany(
                "INSERT OR REPLACE INTO translations VALUES (?, ?, ?, ?, ?)",
                [(translator.name, translator.version, direction, s, t) for s, t in translations.items()],
            )


SHARD_NAME = re.compile(r"(?P<host>.+)-(?P<pid>\d+)-[0-9a-f]{8}\.sqlite(?P<partial>\.partial)?")


def shard_owner_is_dead(shard: Path, host: str | None = None) -> bool:
    """A partial shard whose writing process is gone: of this host and no such process (a killed job)."""
    match = SHARD_NAME.fullmatch(shard.name)
    if not match or match.group("host") != (host or socket.gethostname()):
        return False  # another machine's: whether its writer lives cannot be told from here
    try:
        os.kill(int(match.group("pid")), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # a live process of another user
    return False


def mergeable_shards(path: str | Path) -> list[Path]:
    """The shards a merge may take: every finished one, and the partial ones whose writer is dead."""
    shards = shard_folder(path)
    if not shards.is_dir():
        return []
    return sorted([*shards.glob("*.sqlite"), *(p for p in shards.glob("*.sqlite.partial") if shard_owner_is_dead(p))])


def merge_shards(path: str | Path, sharing: str = "auto") -> int:
    """Merge the mergeable shards (:func:`mergeable_shards`) into the cache file and delete them; the rows
    merged. The merged file replaces the old one by an atomic rename, in rollback-journal mode (jobs read
    it immutable, and a WAL file may hold rows the main file does not): a process reading the old file
    keeps its consistent copy, and nothing a live process writes is touched.

    Run by the workflow's main process when a run starts, before any job.
    """
    path = Path(path)
    found = mergeable_shards(path)
    wal_left = path.exists() and Path(f"{path}-wal").exists() and resolve_sharing(sharing, path) == "shards"
    if not found and not wal_left:
        return 0
    merged_file = path.with_name(f".{path.name}.{socket.gethostname()}-{os.getpid()}.merging")
    merged_file.unlink(missing_ok=True)
    if path.exists():
        with closing(sqlite3.connect(path, timeout=600)) as source, closing(sqlite3.connect(merged_file)) as copy:
            source.backup(copy)  # folds a WAL file left by an earlier wal run in
    db = sqlite3.connect(merged_file, timeout=600)
    db.execute("PRAGMA journal_mode=DELETE")
    db.execute(SCHEMA)
    merged = 0
    for shard in found:
        with db:
            db.execute("ATTACH DATABASE ? AS shard", (str(shard),))
            merged += db.execute("INSERT OR REPLACE INTO translations SELECT * FROM shard.translations").rowcount
        db.execute("DETACH DATABASE shard")
    db.close()
    os.replace(merged_file, path)
    for leftover in (Path(f"{path}-wal"), Path(f"{path}-shm")):
        leftover.unlink(missing_ok=True)  # folded into the copy above; they belong to the old file
    for shard in found:
        shard.unlink(missing_ok=True)
    if found:
        log.info("merged %d translations from %d shards into %s", merged, len(found), path)
    return merged
