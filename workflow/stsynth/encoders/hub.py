"""A hub model fetched once, by a job of its own (rule hub_fetch), as a researcher's laptop would.

A named encoder given by ``hub:`` (``org/name``, at ``revision`` if the entry sets one) is read from the user's
Hugging Face cache (``HF_HOME``, ``HF_HUB_CACHE``). When the cache lacks it and downloads are allowed, the
``hub_fetch`` job downloads it there with huggingface_hub (``HF_ENDPOINT`` names another hub, a mirror) before
any job that opens it; from then on it is known by its files' bytes like every other model
(stsynth.core.digests). With ``HF_HUB_OFFLINE=1`` (an offline build machine) nothing is fetched: start-up
refuses the encoder and says how to fetch it.

The job's record (``resources/hub/{encoder}.json``, what the jobs that open the encoder wait for): ``hub``,
``revision`` (as asked; null: the hub's default branch), ``commit`` (what it resolved to), ``files`` and
``bytes`` fetched, ``sha256`` (the snapshot's digest, stsynth.core.digests.folder_digest).
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

from ..core.digests import folder_digest
from ..core.progress import Progress

log = logging.getLogger(__name__)

OFF = {"1", "ON", "YES", "TRUE"}  # huggingface_hub's truthy spellings of HF_HUB_OFFLINE


def fetching_allowed(environ=os.environ) -> bool:
    """Whether a missing hub model may be downloaded: not when ``HF_HUB_OFFLINE`` is set."""
    return environ.get("HF_HUB_OFFLINE", "").strip().upper() not in OFF


def cached_snapshot(hub: str, revision: str | None = None) -> Path | None:
    """The local cache's snapshot of ``hub`` at ``revision`` (default: main), or None; never downloads."""
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    try:
        return Path(snapshot_download(hub, revision=revision, local_files_only=True))
    except LocalEntryNotFoundError:
        return None


def _bytes_under(folder: Path) -> int:
    """Bytes of the files under ``folder`` (a download in progress grows its ``.incomplete`` files)."""
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file() and not path.is_symlink())


def fetch(hub: str, revision: str | None = None) -> dict:
    """Download ``hub`` at ``revision`` into the Hugging Face cache (files already there are kept), logging
    done/total bytes, rate and time left while it runs; returns the record (module docstring)."""
    from huggingface_hub import HfApi, constants, snapshot_download

    info = HfApi().model_info(hub, revision=revision, files_metadata=True)
    total = sum(sibling.size or 0 for sibling in info.siblings or [])
    repo_folder = Path(constants.HF_HUB_CACHE) / f"models--{hub.replace('/', '--')}"
    start = _bytes_under(repo_folder) if repo_folder.exists() else 0
    with Progress(log, f"fetching {hub} ({len(info.siblings or [])} files)", total, "bytes") as progress:
        done = threading.Event()

        def watch() -> None:  # the bytes on disk, as the download writes them
            while not done.wait(2.0):
                if repo_folder.exists():
                    progress.advance(max(0, min(total, _bytes_under(repo_folder) - start)) - progress.done)

        watcher = threading.Thread(target=watch, daemon=True, name=f"fetch {hub}")
        watcher.start()
        try:
            folder = Path(snapshot_download(hub, revision=revision))  # writes the cache's ref of ``revision``
        finally:
            done.set()
            watcher.join()
        progress.advance(total - progress.done)
    files = [path for path in folder.rglob("*") if path.is_file()]
    return {
        "hub": hub,
        "revision": revision,
        "commit": folder.name,  # a snapshot's folder is named by its commit
        "files": len(files),
        "bytes": sum(path.stat().st_size for path in files),
        "sha256": folder_digest(folder),
    }
