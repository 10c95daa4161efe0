"""The inputs every invocation checks before it plans anything (common.smk, in the workflow's main
process): a run, a dry run, a no-op run, the second run after a refusal. A check that ran only inside
a job would be forgotten by the next invocation, which finds the old outputs up to date and says
"Nothing to be done" (Snakemake calls onstart only when there is a job to run); so every input whose
change must stop the workflow is checked here, read-only, every time:

* each corpus copy on disk (``resources/corpus/...``) against the manifest's sha256 (a copy still as its
  fetch verified it, under a manifest entry changed since, is fetched again by Snakemake instead);
* each local dataset file against the sha256 recorded in ``results/datasets.lock.tsv``
  (stsynth.core.local_files), and its rows as the pair table reads them (:func:`local_row_problems`): a file is
  locked only once a run has accepted it, and a bad row stops a dry run too;
* each named encoder (``encoder.models``): its package, local folder or cached hub snapshot exists
  and is a model folder, and its pinned files (``sha256``) have their digests. A local folder that does
  not exist yet under ``resources/`` or ``results/`` is left to the jobs: a rule of the workflow may make
  it (a paragram export, an assembled model), and Snakemake then builds it or names it as missing.

All problems are reported together, each naming the file or config key and the fix.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ..core.corpus import CORPUS_COPIES, ManifestEntry, fetched_digest, sha256_of
from ..core.paths import corpus_copy, corpus_fetch_log
from ..core.wording import counted

# Invocations that plan no job and read no output: a stale lock or metadata must be removable while an
# input is refused. Snakemake tells a Snakefile nothing about its invocation, so its command line is read.
NO_JOB_FLAGS = frozenset(
    {"--unlock", "--cleanup-metadata", "--cm", "--lint", "--list-rules", "--list", "-l", "--list-target-rules", "--lt"}
)


def plans_jobs(argv: list[str]) -> bool:
    """Whether a Snakemake command line may plan jobs (every one but those of NO_JOB_FLAGS)."""
    return not NO_JOB_FLAGS.intersection(argv)


class InputCheckError(RuntimeError):
    """An input that changed, or does not exist, since the config and the outputs agreed on it."""


def corpus_copy_problems(manifest: dict[str, ManifestEntry], root: str | Path = ".") -> list[str]:
    """Every fetched corpus copy whose bytes changed after it was verified. A copy that is still what its
    fetch verified while the manifest now names other bytes is no problem: fetch_corpus_file's params
    (the manifest's facts) changed, so Snakemake fetches it again and rebuilds what depends on it."""
    problems = []
    for relpath, entry in manifest.items():
        copy = Path(root) / corpus_copy(relpath)
        if not copy.is_file() or (digest := sha256_of(copy)) == entry.sha256:
            continue
        if digest != fetched_digest(Path(root) / corpus_fetch_log(relpath)):
            problems.append(
                f"{CORPUS_COPIES}{relpath}: sha256 is {digest}, but the corpus manifest says {entry.sha256}: "
                "the copy changed after it was fetched and verified. Delete it to fetch it again"
            )
    return problems


def encoder_problems(config: dict, digests=None, fetchable=lambda name: False) -> list[str]:
    """Every named encoder whose folder cannot be found, is no model folder or fails its pins; a hub encoder
    that its hub_fetch job will download (``fetchable``: stsynth.encoders.hub) is checked once it is there."""
    from ..encoders.encoder import EncoderNotFound, encoder_directory

    problems = []
    for name, entry in config["encoder"]["models"].items():
        if fetchable(name):
            continue
        folder = Path(entry["path"]) if entry.get("path") else None
        if (
            folder is not None
            and not folder.exists()
            and not folder.is_absolute()
            and folder.parts[:1] in (("resources",), ("results",))
        ):
            continue  # a folder the workflow may make
        try:
            encoder_directory(name, entry, digests)
        except EncoderNotFound as error:
            problems.append(f"{error}. Fix encoder.models.{name} in the config (or remove the encoder)")
        except ValueError as error:  # a pinned file with another digest
            problems.append(str(error))
    return problems


def program_problems(config: dict, stage: str, which=shutil.which) -> list[str]:
    """The programs a stage's jobs run that are not installed, each naming its config key and the fix:
    ``translate`` (the Apertium executable, when translate.backend is apertium), ``events`` (the ``bible``
    program of events.corpus.kjv, when set)."""
    if stage == "translate":
        settings = config["translate"]
        if settings["backend"] != "apertium" or which(settings["apertium"]["executable"]):
            return []
        return [
            f"translate.apertium.executable: {settings['apertium']['executable']!r} is not on PATH; install it "
            "with `apt-get install apertium apertium-eng-spa` (make all does), or set the key to its path"
        ]
    if stage == "events":
        kjv = config["events"]["corpus"]["kjv"]
        if not kjv or which(kjv["program"]):
            return []
        return [
            f"events.corpus.kjv.program: {kjv['program']!r} is not installed; install it with "
            "`apt-get install bible-kjv` (make sts2017 does), or set the key to its path"
        ]
    raise ValueError(f"no programs known for stage {stage!r}")


def local_row_problems(datasets, warn=lambda message: None) -> list[str]:
    """Every local dataset file (``path:``, ``gold_path:``) read as its pair table reads it (stsynth.core.pairs): each
    row's fields, text and score, each naming the file and line; what the reader warns of (a pair given twice with
    different gold) goes to ``warn``. The corpus files are checked by the job that reads them: their bytes are the
    manifest's."""
    import logging

    from ..core.datasets import InputFormatError
    from ..core.pairs import pair_table

    class Forward(logging.Handler):
        def emit(self, record):
            if record.levelno >= logging.WARNING:
                warn(record.getMessage())

    reader_log = logging.getLogger("stsynth.core.pairs")
    handler = Forward()
    reader_log.addHandler(handler)
    try:
        return _local_row_problems(datasets, pair_table, InputFormatError)
    finally:
        reader_log.removeHandler(handler)


def _local_row_problems(datasets, pair_table, InputFormatError) -> list[str]:
    problems = []
    for d in datasets:
        if not d.local_files:
            continue
        files = [d.local_file or corpus_copy(d.input), d.gold_path or (corpus_copy(d.gold) if d.gold else None)]
        if not all(Path(f).exists() for f in files if f):  # a corpus copy not fetched yet: its job checks it
            continue
        try:
            pair_table(d, *files)
        except InputFormatError as error:
            problems.append(str(error))
    return problems


def check_inputs(
    config: dict,
    manifest: dict[str, ManifestEntry],
    local_files_error: str | None,
    digests=None,
    fetchable=lambda name: False,
    datasets=(),
    warn=lambda message: None,
) -> None:
    """Raise InputCheckError with every problem of the checks above (module docstring); ``digests``: the
    invocation's memo of file digests (stsynth.core.digests.FileDigests), shared with the jobs' model identities;
    ``fetchable``: the hub encoders a job fetches first (:func:`encoder_problems`); ``datasets``: those the run
    reads, whose local files' rows are checked (:func:`local_row_problems`)."""
    problems = (
        corpus_copy_problems(manifest)
        + ([local_files_error] if local_files_error else [])
        + (local_row_problems(datasets, warn) if not local_files_error else [])
        + encoder_problems(config, digests, fetchable)
    )
    if problems:
        raise InputCheckError(
            f"{counted(len(problems), 'input')} refused; nothing runs until they are fixed:\n  " + "\n  ".join(problems)
        )
