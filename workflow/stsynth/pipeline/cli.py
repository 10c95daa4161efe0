"""``stsynth``: the workflow's main targets from the command line (``pip install .`` puts it on PATH).

    stsynth eval -m path/to/model -m BAAI/bge-small-en-v1.5   # zero-shot eval, in runs/eval
    stsynth eval --overlay config/eval-mpnet.yaml              # an overlay over the protocol's own
    stsynth all                                                # the results, in this directory
    stsynth stsb | sts2017 | studies                           # the other protocols, each in its own directory
    stsynth all --overlay mine.yaml --directory runs/mine      # your own benchmark and protocol

Each target is a row of targets.tsv beside this module (:func:`read_targets`: its Snakemake target, working
directory and overlays), the table the Makefile's targets run through this command; arguments after ``--`` go to
Snakemake as they are (``-- -n``, ``-- --profile profiles/slurm``). The workflow is the checkout the command runs in
(a folder with ``Snakefile`` and ``workflow/rules``), else ``$STSYNTH_WORKFLOW``, else the copy ``pip install .``
put under its data folder (``share/stsynth`` of the venv, ``--user`` or ``--prefix`` install:
:func:`installed_workflow`). Corpus mirrors are the config's (``../shared/sts-corpus`` relative to the workflow)
unless ``STSYNTH_MIRRORS`` names others. Snakemake's between-workflow cache (``--cache``) is
``resources/cache/snakemake`` under the directory the command runs in, as the Makefile's, unless
``$SNAKEMAKE_OUTPUT_CACHE`` names another; the embedding store (stsynth.encoders.embedding_store) is
``resources/cache/embeddings`` beside it, unless ``$STSYNTH_EMBEDDING_STORE`` names another.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..encoders.embedding_store import STORE_VARIABLE

TARGETS_TABLE = Path(__file__).with_name("targets.tsv")  # package data: an installed stsynth reads it too
CACHE_FOLDER = Path("resources/cache/snakemake")  # under the directory make or stsynth runs in
EMBEDDING_STORE = Path("resources/cache/embeddings")  # beside it


@dataclass(frozen=True)
class Target:
    """A row of targets.tsv."""

    name: str
    snakemake: str  # the Snakemake target it builds
    directory: str  # its working directory, relative to the checkout
    overlays: tuple[str, ...]  # over config.yaml, in this order
    packages: tuple[str, ...]  # the Debian packages its jobs need
    needs: str | None  # a file make builds first
    what: str


def read_targets(path: Path = TARGETS_TABLE) -> dict[str, Target]:
    """Every target of the table, in its order ('-': none)."""
    targets = {}
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    for line in lines[1:]:
        name, snakemake, directory, overlays, packages, needs, what = line.split("\t")
        targets[name] = Target(
            name,
            snakemake,
            directory,
            tuple(overlays.split()) if overlays != "-" else (),
            tuple(packages.split()) if packages != "-" else (),
            None if needs == "-" else needs,
            what,
        )
    return targets


TARGETS = read_targets()
PROTOCOLS = {name: (target.directory, list(target.overlays)) for name, target in TARGETS.items()}
OVERLAYS = {name: list(target.overlays) for name, target in TARGETS.items()}


def cache_environment(environ=os.environ, cwd: Path | None = None) -> dict[str, str]:
    """``environ`` with Snakemake's between-workflow cache folder set (``$SNAKEMAKE_OUTPUT_CACHE`` if given, else
    :data:`CACHE_FOLDER` under ``cwd``), the folder made: Snakemake refuses ``--cache`` without it; and the
    embedding store beside it (``$STSYNTH_EMBEDDING_STORE`` if given, else :data:`EMBEDDING_STORE` under ``cwd``;
    stsynth.encoders.embedding_store), so every target run from one folder shares both."""
    environment = dict(environ)
    folder = Path(environment.get("SNAKEMAKE_OUTPUT_CACHE") or (cwd or Path.cwd()) / CACHE_FOLDER).absolute()
    folder.mkdir(parents=True, exist_ok=True)
    environment["SNAKEMAKE_OUTPUT_CACHE"] = str(folder)
    store = environment.get(STORE_VARIABLE) or (cwd or Path.cwd()) / EMBEDDING_STORE
    environment[STORE_VARIABLE] = str(Path(store).absolute())
    return environment


def is_workflow(folder: Path) -> bool:
    return (folder / "Snakefile").is_file() and (folder / "workflow" / "rules").is_dir()


def installed_workflow(distribution: str = "stsynth") -> Path | None:
    """The folder ``pip install`` put the workflow in (its data files: ``{scheme's data}/share/stsynth``), read from
    the installed distribution's own record of its files, so a venv, ``--user`` and ``--prefix`` install are
    found alike; None when the package is not installed with them (an editable install records none)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import distribution as installed

    try:
        files = installed(distribution).files or []
    except PackageNotFoundError:
        return None
    for path in files:
        if path.parts[-3:] == ("share", "stsynth", "Snakefile"):
            return Path(path.locate()).resolve().parent
    return None


def workflow_root(cwd: Path | None = None, environ=os.environ, installed=installed_workflow) -> Path:
    """Where the Snakefile is (module docstring: checkout, $STSYNTH_WORKFLOW, the installed copy)."""
    cwd = Path(cwd or Path.cwd())
    candidates = [*(p for p in (cwd, *cwd.parents) if is_workflow(p))]
    if environ.get("STSYNTH_WORKFLOW"):
        candidates.append(Path(environ["STSYNTH_WORKFLOW"]))
    if (copy := installed()) is not None:
        candidates.append(copy)
    candidates.append(Path(__file__).resolve().parents[3])  # the checkout of an editable install
    for folder in candidates:
        if is_workflow(folder):
            return folder
    raise SystemExit(
        "stsynth: no workflow found: run it inside a checkout of the project, set STSYNTH_WORKFLOW "
        f"to one, or install the package with pip install . (looked in {', '.join(map(str, candidates))})"
    )


def model_location(model: str) -> str:
    """A model given on the command line: an existing folder as an absolute path, anything else as it is
    (an installed package or a hub name). A path whose folder is missing while its parent is here (a typo)
    stops the command: Snakemake would read it from the protocol's working directory instead."""
    from ..encoders.encoder import looks_like_path  # without the workflow's other imports

    path = Path(model)
    if path.is_dir():
        return str(path.resolve())
    if looks_like_path(model):
        raise SystemExit(
            f"stsynth: -m {model}: no such folder ({path.parent.resolve()} holds no {path.name}); "
            "a hub name is org/name of a model in the local Hugging Face cache"
        )
    return model


def models_overlay(models: list[str], folder: str | Path) -> Path:
    """The models of eval as a config overlay file in ``folder`` (``eval.models``, written by a YAML writer):
    a location reaches the workflow exactly as given, where ``--config`` would have Snakemake decode it as
    YAML (``back\\x41slash`` read as ``backAslash``; quotes, colons and ``#`` cut or refused)."""
    import yaml

    handle = tempfile.NamedTemporaryFile("w", suffix=".yaml", prefix="stsynth-eval-models-", dir=folder, delete=False)
    with handle:
        yaml.safe_dump({"eval": {"models": [model_location(m) for m in models]}}, handle, allow_unicode=True)
    return Path(handle.name)


def snakemake_command(
    target: str,
    root: Path,
    cores: str,
    models: list[str],
    directory: str | None,
    extra: list[str],
    overlays: list[str] = (),
    models_folder: str | Path | None = None,
) -> list[str]:
    """The Snakemake command line of a target: its working directory and overlays (:data:`PROTOCOLS`),
    then ``overlays`` (files, absolute paths: Snakemake runs in the working directory), the models of
    eval (:func:`model_location`, in an overlay file :func:`models_overlay` writes in ``models_folder``,
    default the system's temporary folder: the caller deletes it), then ``--cores``, the target and the ``extra``
    arguments: after the config files (an option of many values) no word of ``extra`` is read as a config file,
    and targets at the start of ``extra`` join the target (Snakemake's parser takes the targets in one run, so
    they come before any flag: ``stsynth eval -- results/eval/leaderboard.md -n``). `make eval` and `make bench`
    call it too."""
    workdir, protocol_overlays = PROTOCOLS[target]
    command = [
        sys.executable,
        "-m",
        "snakemake",
        "--cache",  # every `cache: True` rule (before an option: `--cache` takes the words that follow it)
        "--snakefile",
        str(root / "Snakefile"),
        "--directory",
        directory or workdir,
        "--configfile",
        str(root / "config.yaml"),
        *(str(root / overlay) for overlay in protocol_overlays),
        *(str(Path(overlay).resolve()) for overlay in overlays),
    ]
    if models:
        command.append(str(models_overlay(models, models_folder or tempfile.gettempdir())))
    return [*command, "--cores", cores, TARGETS[target].snakemake, *extra]


CONFIG_FILE_OPTIONS = ("--configfile", "--configfiles")  # Snakemake's options that take config files


def config_files_named(overlays: list[str], extra: list[str]) -> list[tuple[str, str]]:
    """(how it was named, the file) of every config file the command line names: ``--overlay`` (make's
    ``OVERLAYS=``), and ``--configfile`` among the arguments for Snakemake, each word up to the next option."""
    named = [("overlay", overlay) for overlay in overlays]
    option = None
    for word in extra:
        if word.startswith("-"):
            option, _, value = word.partition("=")
            option = option if option in CONFIG_FILE_OPTIONS else None
            if option and value:
                named.append((option, value))
        elif option:
            named.append((option, word))
    return named


def config_file_problem(path: str | Path) -> str | None:
    """Why a config file cannot be an overlay (missing, unreadable, not YAML, no mapping of config keys), in
    words, or None: said here in one line, before Snakemake starts and answers with a traceback."""
    import yaml

    from ..core import yaml_text

    location = Path(path).resolve()
    try:
        text = location.read_text(encoding="utf-8")
    except FileNotFoundError:
        return f"no such file ({location})"
    except IsADirectoryError:
        return f"is a folder, not a file ({location})"
    except (OSError, UnicodeDecodeError) as error:
        return f"cannot be read ({getattr(error, 'strerror', None) or error}; {location})"
    try:
        data = yaml_text.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        return f"is not YAML ({where}{getattr(error, 'problem', None) or error}; {location})"
    if not isinstance(data, dict):
        what = "empty" if data is None else f"a {type(data).__name__}"
        return f"holds no mapping of config keys (it is {what}; {location})"
    return None


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = argv[argv.index("--") + 1 :] if "--" in argv else []
    argv = argv[: argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(prog="stsynth", description=__doc__.split("\n\n")[0])
    parser.add_argument("target", choices=list(PROTOCOLS))
    parser.add_argument(
        "-m",
        "--model",
        action="append",
        default=[],
        help="eval: a model folder, installed package or cached hub name (repeatable)",
    )
    parser.add_argument("--cores", default="all", help="Snakemake --cores (default: all)")
    parser.add_argument("--directory", help="working directory (default: the protocol's own, as make)")
    parser.add_argument(
        "--overlay", action="append", default=[], help="a config overlay after the protocol's own (repeatable)"
    )
    options = parser.parse_args(argv)
    if options.model and options.target != "eval":
        parser.error("-m/--model is for stsynth eval")
    for how, path in config_files_named(options.overlay, extra):
        if problem := config_file_problem(path):
            print(f"stsynth: {how} {path}: {problem}", file=sys.stderr)
            return 2
    with tempfile.TemporaryDirectory(prefix="stsynth-") as folder:  # the models' overlay lives while Snakemake runs
        command = snakemake_command(
            options.target,
            workflow_root(),
            options.cores,
            options.model,
            options.directory,
            extra,
            options.overlay,
            folder,
        )
        print("+", " ".join(command), file=sys.stderr)
        return subprocess.call(command, env=cache_environment())


if __name__ == "__main__":
    sys.exit(main())
