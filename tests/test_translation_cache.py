"""The translation cache shared by jobs running at once: WAL on a local disk, per-job shards merged at
the next run's start on a network filesystem (stsynth.translation.cache), with several writer processes."""

from __future__ import annotations

import multiprocessing
import os
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from stsynth.translation.cache import (
    NETWORK_FILESYSTEMS,
    TranslationCache,
    filesystem_type,
    merge_shards,
    mount_type,
    resolve_sharing,
    shard_folder,
)

MOUNTINFO = """\
22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
30 22 0:40 / /home rw,relatime shared:2 - nfs4 server:/home rw,vers=4.2
31 30 0:41 / /home/lab/scratch rw shared:3 - xfs /dev/sdb1 rw
32 22 0:42 / /mnt/my\\040share rw shared:4 - cifs //nas/share rw
"""


class Engine:
    name, version = "toy", "1"


def writer(path: str, sharing: str, worker: int, sentences: int, start) -> None:
    start.wait()  # every process writes at the same time
    with closing(TranslationCache(path, sharing)) as cache:
        for chunk in range(0, sentences, 10):
            cache.store(Engine, "en-es", {f"w{worker} s{i}": f"t{worker} s{i}" for i in range(chunk, chunk + 10)})
            # each writer also reads while the others write
            assert len(cache.lookup(Engine, "en-es", [f"w{worker} s{chunk}"])) == 1


def rows(path) -> int:
    with closing(sqlite3.connect(path)) as db:
        return db.execute("SELECT COUNT(*) FROM translations").fetchone()[0]


def test_the_filesystem_is_that_of_the_nearest_mount_point(tmp_path):
    assert mount_type(Path("/home/lab/cache"), MOUNTINFO) == "nfs4"
    assert mount_type(Path("/home/lab/scratch/cache"), MOUNTINFO) == "xfs"
    assert mount_type(Path("/home/lab/scratchy"), MOUNTINFO) == "nfs4"
    assert mount_type(Path("/mnt/my share/cache"), MOUNTINFO) == "cifs"
    assert mount_type(Path("/tmp"), MOUNTINFO) == "ext4"
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text(MOUNTINFO.replace(" / / ", f" / {tmp_path} "))
    assert filesystem_type(tmp_path / "not" / "yet" / "cache.sqlite", mountinfo) == "ext4"  # nearest existing folder
    assert filesystem_type(tmp_path, tmp_path / "absent") is None  # no /proc: unknown, so wal
    assert {"nfs4", "cifs", "lustre", "gpfs", "beegfs"} <= NETWORK_FILESYSTEMS


def test_auto_picks_shards_only_on_a_network_filesystem(tmp_path, monkeypatch):
    import stsynth.translation.cache as module

    monkeypatch.setattr(module, "filesystem_type", lambda path: "nfs4")
    assert resolve_sharing("auto", tmp_path / "c.sqlite") == "shards"
    monkeypatch.setattr(module, "filesystem_type", lambda path: "ext4")
    assert resolve_sharing("auto", tmp_path / "c.sqlite") == "wal"
    assert resolve_sharing("shards", tmp_path / "c.sqlite") == "shards"
    with pytest.raises(ValueError, match="translate.cache_sharing: 'nfs' is not one of auto, wal, shards"):
        resolve_sharing("nfs", tmp_path / "c.sqlite")


def test_a_journal_mode_switch_refused_at_once_is_tried_again(tmp_path, monkeypatch):
    # Jobs starting together race to switch a new file to WAL; SQLite may refuse the losers at once,
    # without waiting its busy timeout (seen in CI: one of six writer processes failed to start)
    connect, refusals = sqlite3.connect, []

    class Racing:
        def __init__(self, *args, **kwargs):
            self.db = connect(*args, **kwargs)

        def execute(self, sql, *args):
            if sql.startswith("PRAGMA journal_mode") and len(refusals) < 3:
                refusals.append(sql)
                raise sqlite3.OperationalError("database is locked")
            return self.db.execute(sql, *args)

        def __enter__(self):
            return self.db.__enter__()

        def __exit__(self, *exc):
            return self.db.__exit__(*exc)

        def __getattr__(self, name):
            return getattr(self.db, name)

    monkeypatch.setattr(sqlite3, "connect", Racing)
    with closing(TranslationCache(tmp_path / "t.sqlite", "wal")) as cache:
        cache.store(Engine, "en-es", {"a": "b"})
        assert cache.lookup(Engine, "en-es", ["a"]) == {"a": "b"}
    assert len(refusals) == 3
    monkeypatch.setattr(sqlite3, "connect", connect)
    with closing(connect(tmp_path / "t.sqlite")) as db:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)


@pytest.mark.subprocess
@pytest.mark.parametrize("sharing", ["wal", "shards"])
def test_concurrent_writer_processes_lose_nothing(tmp_path, sharing):
    path, workers, sentences = tmp_path / "cache" / "translations.sqlite", 6, 200
    context = multiprocessing.get_context("spawn")  # fresh interpreters, as Snakemake's jobs are
    start = context.Event()
    processes = [context.Process(target=writer, args=(str(path), sharing, w, sentences, start)) for w in range(workers)]
    for process in processes:
        process.start()
    start.set()
    for process in processes:
        process.join(120)
    assert [process.exitcode for process in processes] == [0] * workers
    if sharing == "shards":
        # each job wrote only its own shard; the file itself is untouched until the next run starts
        assert len(list(shard_folder(path).glob("*.sqlite"))) == workers and not path.exists()
        assert merge_shards(path, "shards") == workers * sentences
        assert list(shard_folder(path).iterdir()) == []
    assert rows(path) == workers * sentences
    with closing(TranslationCache(path, sharing)) as cache:
        found = cache.lookup(Engine, "en-es", [f"w{w} s{i}" for w in range(workers) for i in range(sentences)])
    assert len(found) == workers * sentences and found["w3 s7"] == "t3 s7"


def test_shards_read_what_finished_jobs_wrote_and_merge_a_killed_jobs_part(tmp_path):
    path = tmp_path / "translations.sqlite"
    with closing(TranslationCache(path, "wal")) as cache:  # an earlier local run
        cache.store(Engine, "en-es", {"old": "viejo"})
    first = TranslationCache(path, "shards")
    first.store(Engine, "en-es", {"a": "una"})
    first.close()
    killed = TranslationCache(path, "shards")
    killed.store(Engine, "en-es", {"b": "be"})  # never closed: its shard stays .partial
    later = TranslationCache(path, "shards")
    assert later.lookup(Engine, "en-es", ["old", "a", "b"]) == {"old": "viejo", "a": "una"}
    later.close()
    killed.db.close()
    # the killed job is this test's own process, alive: its partial shard is left alone until it is dead
    assert merge_shards(path, "shards") == 1 and killed.shard.exists()
    dead = killed.shard.with_name(killed.shard.name.replace(f"-{os.getpid()}-", f"-{unused_pid()}-"))
    killed.shard.rename(dead)
    assert merge_shards(path, "shards") == 1  # "b": the dead job's committed chunk
    assert not dead.exists()
    with closing(TranslationCache(path, "shards")) as cache:
        assert cache.lookup(Engine, "en-es", ["old", "a", "b"]) == {"old": "viejo", "a": "una", "b": "be"}
    with closing(sqlite3.connect(path)) as db:  # readable immutable: no WAL file holds rows back
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"


def unused_pid() -> int:
    pid = 4_000_000
    while True:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return pid
        except PermissionError:
            pass
        pid += 1


def test_a_merge_never_touches_what_a_live_process_owns(tmp_path):
    """Two runs on one tree: the second run's start must not merge (and delete) the first run's live shard,
    nor change the file under a job that reads it."""
    path = tmp_path / "translations.sqlite"
    first = TranslationCache(path, "shards")
    first.store(Engine, "en-es", {"a": "una"})
    first.close()
    assert merge_shards(path, "shards") == 1
    reader = TranslationCache(path, "shards")  # a job of run 1 that has the file open
    live = TranslationCache(path, "shards")  # a job of run 1 still writing
    live.store(Engine, "en-es", {"b": "be"})
    elsewhere = shard_folder(path) / f"other-host-{os.getpid()}-0123abcd.sqlite.partial"
    shutil.copyfile(live.shard, elsewhere)  # a writer on another machine: cannot be told dead from here
    finished = TranslationCache(path, "shards")
    finished.store(Engine, "en-es", {"c": "ce"})
    finished.close()
    assert merge_shards(path, "shards") == 1  # run 2 starts: only the finished shard
    assert live.shard.exists() and elsewhere.exists()
    live.store(Engine, "en-es", {"d": "de"})  # the live job goes on writing
    assert reader.lookup(Engine, "en-es", ["a"]) == {"a": "una"}  # the old file, still readable
    live.close()
    reader.close()
    elsewhere.unlink()
    assert merge_shards(path, "shards") == 2
    with closing(TranslationCache(path, "shards")) as cache:
        assert cache.lookup(Engine, "en-es", ["a", "b", "c", "d"]) == {"a": "una", "b": "be", "c": "ce", "d": "de"}


def test_merge_is_a_no_op_without_shards_on_a_local_disk(tmp_path):
    path = tmp_path / "translations.sqlite"
    with closing(TranslationCache(path, "wal")) as cache:
        cache.store(Engine, "en-es", {"a": "una"})
    assert merge_shards(path, "wal") == 0
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


@pytest.mark.workflow
def test_the_workflow_shares_the_cache_as_shards_and_merges_them_when_the_next_run_starts(workspace):
    """What a Slurm run on a network filesystem does (auto picks shards there), forced here."""
    import shutil

    if shutil.which("apertium") is None:
        pytest.skip("apertium is not installed (apt-get install apertium apertium-eng-spa)")
    workspace.write_config({"translate": {"cache_sharing": "shards"}})
    targets = ["resources/round_trips/2016/tinytest.parquet", "resources/translated/2016/tinynews.parquet"]
    workspace.snakemake(*targets)
    work = workspace.path
    cache = work / workspace.config["translate"]["cache"]
    shards = list(shard_folder(cache).glob("*.sqlite"))
    assert len(shards) == 2 and not cache.exists()  # one per translating job; nobody wrote the file
    written = sum(rows(shard) for shard in shards)
    for folder in ("resources/round_trips", "resources/translated"):
        shutil.rmtree(work / folder)
    rerun = workspace.snakemake(*targets)
    assert f"merged {written} translations from the job shards" in rerun.stdout + rerun.stderr
    assert rows(cache) == written
    for log in [*(work / "logs/round_trips").rglob("*.log"), *(work / "logs/translate").rglob("*.log")]:
        assert " 0 translated" in log.read_text(), log  # read from the merged file
    assert list(shard_folder(cache).iterdir()) == []  # and jobs that translated nothing wrote no shard
