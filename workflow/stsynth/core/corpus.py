"""Fetch corpus files from mirrors or their origin URL, verified by sha256.

The project's manifest (``workflow/corpus_manifest.tsv``) lists, for every file the
pipeline uses, its path relative to the corpus root, sha256, size in bytes and an
origin URL (``<zip URL>#<member>``: a member of a zip the organizers released). A mirror is either a
local folder laid out like the corpus root or a base URL under which the same relative paths are served.
"""

from __future__ import annotations

import csv
import hashlib
import logging
import os
import re
import shutil
import tempfile
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

log = logging.getLogger(__name__)

MIRRORS_ENV = "STSYNTH_MIRRORS"  # whitespace-separated; overrides config corpus.mirrors


@dataclass(frozen=True)
class ManifestEntry:
    relpath: str
    sha256: str
    bytes: int
    origin: str


class CorpusError(RuntimeError):
    pass


def unsafe_relpath(relpath: str) -> str | None:
    """Why a corpus path could land outside the corpus folder (its copy is written to
    resources/corpus/<relpath>), or None: no absolute path, drive, backslash or '..' part."""
    if not relpath.strip():
        return "it is empty"
    if PurePosixPath(relpath).is_absolute() or relpath[1:3] in (":/", ":\\"):
        return "it is absolute"
    if "\\" in relpath:
        return "it contains a backslash"
    if ".." in PurePosixPath(relpath).parts:
        return "it contains a '..' part"
    return None


def read_manifest(path: str | Path) -> dict[str, ManifestEntry]:
    """The manifest's rows by relpath; a malformed row, a path that could leave the corpus folder or a
    path listed twice is an error naming the line."""
    entries, lines = {}, {}
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle, delimiter="\t")
        expected = ["relpath", "sha256", "bytes", "origin"]
        if reader.fieldnames != expected:
            raise CorpusError(f"{path}: header must be {expected}, got {reader.fieldnames}")
        for lineno, row in enumerate(reader, start=2):
            try:
                entry = ManifestEntry(row["relpath"], row["sha256"].lower(), int(row["bytes"]), row["origin"])
            except (TypeError, ValueError) as err:
                raise CorpusError(f"{path}:{lineno}: malformed manifest row ({err})") from err
            if reason := unsafe_relpath(entry.relpath):
                raise CorpusError(
                    f"{path}:{lineno}: relpath {entry.relpath!r} is refused: {reason} (a corpus path "
                    "is relative to the corpus folder and stays inside it)"
                )
            if entry.relpath in lines:
                raise CorpusError(
                    f"{path}:{lineno}: relpath {entry.relpath!r} is listed twice (first on line {lines[entry.relpath]})"
                )
            entries[entry.relpath], lines[entry.relpath] = entry, lineno
    return entries


def mirrors_from(configured: list[str], environ: dict[str, str] = os.environ) -> list[str]:
    """The environment variable, when set, replaces the configured mirror list."""
    if environ.get(MIRRORS_ENV, "").strip():
        return environ[MIRRORS_ENV].split()
    return list(configured)


def sha256_of(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


CORPUS_COPIES = "resources/corpus/"  # where fetch_corpus_file puts each verified copy
# The fetch job's log line; the digest it names is what the copy was verified against (fetched_digest).
FETCHED = "fetched %s from %s (%d bytes, sha256 %s ok)"


def fetched_digest(log_path: str | Path) -> str | None:
    """The sha256 a copy was verified against when fetch_corpus_file wrote it (its log), None if unknown."""
    try:
        text = Path(log_path).read_text(errors="replace")
    except OSError:
        return None
    found = re.findall(r"\(\d+ bytes, sha256 ([0-9a-f]{64}) ok\)", text)
    return found[-1] if found else None


def verify_copies(paths, manifest: str | Path) -> None:
    """Check the corpus copies among the files a job reads against the manifest's sha256 again, before
    the job reads them: a copy edited after it was fetched and verified is refused, never read
    (Snakemake sees only a newer file). The manifest is read here, not passed as a param: the check
    shapes no output, so a corrected checksum reruns the fetch alone."""
    entries = None
    checked = 0
    for path in map(str, paths):
        if not path.startswith(CORPUS_COPIES):
            continue
        entries = entries or read_manifest(manifest)
        expected = entries[path.removeprefix(CORPUS_COPIES)].sha256
        if (digest := sha256_of(path)) != expected:
            raise CorpusError(
                f"{path}: sha256 is {digest}, but the corpus manifest ({manifest}) says {expected}: "
                "the copy changed after it was fetched and verified. Delete it to fetch it again."
            )
        checked += 1
    log.info("%d corpus copies match the manifest's sha256", checked)


def _is_url(location: str) -> bool:
    return location.startswith(("http://", "https://", "file://"))


def _copy_from(source: str, destination: Path, timeout: float) -> None:
    """Copy a URL or local file; ``<zip URL or path>#<member>`` (an origin inside an organizers' zip, as the
    STS 2017 files' are) copies that member of the zip."""
    location, _, member = source.partition("#")
    if member and location.endswith(".zip"):
        with tempfile.TemporaryDirectory(dir=destination.parent) as folder:
            archive = Path(folder) / "archive.zip"
            _copy_from(location, archive, timeout)
            with zipfile.ZipFile(archive) as zipped:
                if member not in zipped.namelist():
                    raise OSError(f"{location} has no member {member!r}")
                with zipped.open(member) as inside, open(destination, "wb") as out:
                    shutil.copyfileobj(inside, out)
        return
    if _is_url(source):
        with urllib.request.urlopen(source, timeout=timeout) as response, open(destination, "wb") as out:
            shutil.copyfileobj(response, out)
    else:
        shutil.copyfile(source, destination)


def candidate_sources(entry: ManifestEntry, mirrors: list[str]) -> list[str]:
    sources = []
    for mirror in mirrors:
        if _is_url(mirror):
            sources.append(mirror.rstrip("/") + "/" + entry.relpath)
        else:
            sources.append(str(Path(mirror) / entry.relpath))
    sources.append(entry.origin)
    return sources


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def remove_stale_temporaries(destination: Path) -> None:
    """Delete what an earlier fetch of the same file left when it was killed (Snakemake runs one job
    per output at a time, so no live fetch owns them)."""
    pattern = re.compile(re.escape(f".{destination.name}.") + r"[a-z0-9_]{8}")
    for stale in destination.parent.glob(f".{destination.name}.*"):
        if pattern.fullmatch(stale.name):
            stale.unlink(missing_ok=True)
            log.info("removed %s, left by an interrupted fetch", stale)


def fetch(entry: ManifestEntry, destination: str | Path, mirrors: list[str], timeout: float = 60.0) -> str:
    """Copy ``entry`` to ``destination`` from the first source whose bytes verify.

    The file is written under a temporary name in the destination folder and renamed
    only once its sha256 matches, so a partial or wrong file is never left behind.
    Returns the source that was used; raises CorpusError naming every source tried.
    """
    destination = Path(destination)
    destination.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(destination)
    tried = []
    for source in candidate_sources(entry, mirrors):
        if not _is_url(source) and not Path(source).is_file():
            tried.append(f"{source}: not found")
            continue
        fd, tmp_name = tempfile.mkstemp(prefix=f".{destination.name}.", dir=destination.parent)
        os.close(fd)
        tmp = Path(tmp_name)
        try:
            _copy_from(source, tmp, timeout)
            digest = sha256_of(tmp)
            if digest != entry.sha256:
                tried.append(f"{source}: sha256 {digest} != expected {entry.sha256}")
                continue
            os.chmod(tmp, 0o666 & ~current_umask())  # mkstemp's 0600 would hide it from the group
            os.replace(tmp, destination)
            log.info(FETCHED, entry.relpath, source, entry.bytes, entry.sha256)
            return source
        except OSError as err:  # URLError is an OSError
            tried.append(f"{source}: {err}")
        finally:
            tmp.unlink(missing_ok=True)
    raise CorpusError(f"could not fetch {entry.relpath}; tried:\n  " + "\n  ".join(tried))
