"""Apertium, the rule-based offline engine from Debian (``apertium`` + ``apertium-eng-spa``): its stages
null-flushed over a batch, the tagger once per sentence, so each sentence is translated on its own
(docs/reproducibility.md, "The same bytes whatever the scheduling": why line mode is not enough).
"""

from __future__ import annotations

import hashlib
import logging
import re
import shlex
import shutil
import signal
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .engine import DIRECTIONS, TranslationEngineError, check_direction

log = logging.getLogger(__name__)


# Apertium marks unknown (*), ungeneratable (#) and untranslated (@) words with a prefix.
_APERTIUM_MARK = re.compile(r"(?<!\S)([*#@])(?=\w)")


# Characters of Apertium's stream format that plain text must escape (as apertium-destxt does).
_STREAM_RESERVED = re.compile(r"([\\\[\]^$/@<>{}])")


# What apertium-destxt ends a text with: a period that tells the tagger the sentence ends (retxt
# removes it again) and the final line break as a superblank.
_STREAM_END = ".[][\n]"


def strip_apertium_marks(translation: str, source: str) -> str:
    """Remove word-initial marks, except a mark character the source itself uses (#hashtags, @names)."""
    return _APERTIUM_MARK.sub(lambda m: m.group(0) if m.group(1) in source else "", translation)


def apertium_stream(sentence: str) -> str:
    """One sentence in Apertium's stream format, as apertium-destxt writes a one-line text.

    White space is folded to single spaces first (a tab or line break inside a sentence would become
    a superblank). A "~" becomes a superblank of its own, as destxt makes it.
    """
    text = _STREAM_RESERVED.sub(r"\\\1", " ".join(sentence.split()))
    return text.replace("~", "[~]") + _STREAM_END


class Apertium:
    """Apertium's stages for one language pair, each sentence translated on its own.

    `apertium -f line` only looks sentence-isolated: a line break is a blank to the tagger and the
    transfer stages, so a chunk can span two lines and words move between sentences. Here every
    sentence is its own stream-format text followed by a NUL byte, and the stages (the language
    pair's mode file as `apertium-wblank-mode -z` writes it, the tool the `apertium` wrapper itself
    uses for null-flushed formats) translate up to each NUL, flush and start again.

    One stage does not start again: apertium-tagger 3.8's HMM keeps state across a null flush (a
    sentence after "well-known." is tagged differently from the same sentence alone, and no later
    segment resets it). So the analyser stages run null-flushed over the whole batch, the tagger runs
    once per sentence (a ~5 ms process on a 100 kB model, `threads` of them at a time), and the
    transfer and generation stages run null-flushed over the whole batch again. A sentence's
    translation is then the one `apertium -u -f txt` gives for it alone, whatever else is in the
    batch and in any order; tests/test_translate.py checks both on real corpus sentences.
    """

    name = "apertium"
    # Part of the version, so translations made another way are never taken from the cache: bump it
    # when the way sentences reach the engine or the clean-up below changes.
    method = "null-flush txt, tagger per sentence; cleanup 3"

    def __init__(
        self,
        modes: dict[str, str],
        executable: str = "apertium",
        data_dir: str = "/usr/share/apertium",
        threads: int = 1,
    ):
        self.executable = shutil.which(executable)
        if self.executable is None:
            raise TranslationEngineError(
                f"the Apertium executable {executable!r} is not on PATH: install it with "
                "`apt-get install apertium apertium-eng-spa` (Debian/Ubuntu), or set "
                "translate.apertium.executable in config.yaml"
            )
        tools = Path(self.executable).parent
        self.tools = {
            name: shutil.which(name, path=str(tools)) or shutil.which(name)
            for name in ("apertium-wblank-mode", "apertium-retxt")
        }
        for name, path in self.tools.items():
            if path is None:
                raise TranslationEngineError(
                    f"{name} (part of Debian's apertium package) is not next to "
                    f"{self.executable} nor on PATH: reinstall apertium"
                )
        self.modes = dict(modes)
        self.data_dir = Path(data_dir)
        self.threads = max(1, threads)
        engine = self._run([self.executable, "-V"], "").strip()
        data_hashes, self.stages = [], {}
        for direction in DIRECTIONS:
            mode_file = self.data_dir / "modes" / f"{self.modes[direction]}.mode"
            if not mode_file.is_file():
                raise TranslationEngineError(
                    f"Apertium has no mode {self.modes[direction]!r} for {direction} ({mode_file} is missing): "
                    "install the language pair with `apt-get install apertium apertium-eng-spa`, or set "
                    "translate.apertium.modes / translate.apertium.data_dir in config.yaml"
                )
            data_hashes.append(f"{self.modes[direction]}:{_mode_data_hash(mode_file)}")
            pipeline = self._run([self.tools["apertium-wblank-mode"], "-z", str(mode_file)], "")
            self.stages[direction] = _split_at_tagger(pipeline, mode_file)
        # The language data's content is part of the version: a package upgrade invalidates the cache.
        self.version = f"{engine}; {'; '.join(data_hashes)}; {self.method}"

    def _run(self, command: list[str], text: str) -> str:
        result = subprocess.run(command, input=text.encode("utf-8"), capture_output=True)
        if result.returncode != 0:
            stderr = result.stderr.decode("utf-8", errors="replace").strip()
            raise TranslationEngineError(f"{' '.join(command)} failed ({result.returncode}): {stderr}")
        return result.stdout.decode("utf-8")

    def _null_flushed(self, stages: list[list[str]], segments: list[str]) -> list[str]:
        """Run a null-flushed pipeline of Apertium stages (argument lists, piped into each other without a
        shell): one output segment per input segment."""
        output = run_pipeline(stages, "".join(s + "\0" for s in segments)).split("\0")
        while output and output[-1] == "":  # every stage adds a NUL at the end of its input
            output.pop()
        if len(output) != len(segments):
            raise TranslationEngineError(
                f"{stages[0][0]} ... returned {len(output)} null-flushed segments for {len(segments)} sentences"
            )
        return output

    def translate(self, sentences: list[str], direction: str) -> list[str]:
        check_direction(direction)
        if not sentences:
            return []
        analyse, tagger, transfer = self.stages[direction]
        analysed = self._null_flushed(analyse, [apertium_stream(s) for s in sentences])
        with ThreadPoolExecutor(self.threads) as pool:
            tagged = list(pool.map(lambda segment: self._run(tagger, segment), analysed))
        generated = self._null_flushed(transfer, tagged)
        # Each segment ends with the superblank holding the line break, so one retxt call for the
        # whole batch gives one line per sentence.
        lines = self._run([self.tools["apertium-retxt"]], "".join(generated)).split("\n")
        if lines[-1] == "":
            lines.pop()
        if len(lines) != len(sentences):
            raise TranslationEngineError(
                f"apertium-retxt returned {len(lines)} lines for {len(sentences)} {self.modes[direction]} segments"
            )
        return [strip_apertium_marks(" ".join(t.split()), s) for t, s in zip(lines, sentences)]


# The programs a mode file may run (Apertium's and its companions' stages); a mode naming anything else
# is refused: its stages are run as argument lists, never through a shell.
APERTIUM_PROGRAMS = frozenset(
    {
        "lt-proc",
        "apertium-tagger",
        "apertium-pretransfer",
        "apertium-posttransfer",
        "apertium-transfer",
        "apertium-interchunk",
        "apertium-postchunk",
        "lrx-proc",
        "cg-proc",
        "vislcg3",
        "rtx-proc",
        "apertium-anaphora",
        "apertium-wblank-attach",
        "apertium-wblank-detach",
        "apertium-separable",
        "lsx-proc",
        "hfst-proc",
        "apertium-lextor",
        "apertium-restore-chars",
        "apertium-extract-caps",
    }
)


def _split_at_tagger(pipeline: str, mode_file: Path) -> tuple[list[list[str]], list[str], list[list[str]]]:
    """A null-flushed mode pipeline -> (the stages before the tagger, the tagger's, the stages after it),
    each stage an argument list.

    The mode file's $1 is the generator's flag (-n: no unknown-word marks, the wrapper's -u), $2 the
    tagger's (none).
    """
    stages = []
    for stage in pipeline.strip().split(" | "):
        argv = shlex.split(stage.strip().replace("$1", "-n").replace("$2", ""))
        if not argv or Path(argv[0]).name not in APERTIUM_PROGRAMS:
            raise TranslationEngineError(
                f"{mode_file}: stage {stage.strip()[:80]!r} does not run an Apertium program "
                f"({', '.join(sorted(APERTIUM_PROGRAMS))}); refusing to run it"
            )
        stages.append(argv)
    taggers = [i for i, argv in enumerate(stages) if Path(argv[0]).name == "apertium-tagger"]
    if len(taggers) != 1:
        raise TranslationEngineError(f"{mode_file}: expected one apertium-tagger stage, found {len(taggers)}")
    tagger = [word for word in stages[taggers[0]] if word != "-z"]
    return stages[: taggers[0]], tagger, stages[taggers[0] + 1 :]


def run_pipeline(stages: list[list[str]], text: str) -> str:
    """``stage1 | stage2 | ...`` without a shell: each stage's output piped into the next; an error of
    any stage names it with what it wrote to stderr."""
    import tempfile
    import threading

    processes, errors = [], []
    for argv in stages:
        errors.append(tempfile.TemporaryFile())
        process = subprocess.Popen(
            argv,
            stdin=processes[-1].stdout if processes else subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors[-1],
        )
        if processes:
            processes[-1].stdout.close()  # the next stage owns it now: an early exit reaches the writer
        processes.append(process)

    def feed():
        try:
            processes[0].stdin.write(text.encode("utf-8"))
        except BrokenPipeError:
            pass  # the stage's exit status says what went wrong
        finally:
            processes[0].stdin.close()

    writer = threading.Thread(target=feed)
    writer.start()
    output = processes[-1].stdout.read()
    processes[-1].stdout.close()
    writer.join()
    failed = [
        (argv, process.wait(), error) for argv, process, error in zip(stages, processes, errors) if process.wait() != 0
    ]
    # a stage that stops early makes the ones before it die of SIGPIPE: name the one that stopped
    failed.sort(key=lambda failure: failure[1] == -signal.SIGPIPE)
    if failed:
        argv, code, error = failed[0]
        error.seek(0)
        raise TranslationEngineError(
            f"{' '.join(argv)} failed ({code}): {error.read().decode('utf-8', errors='replace').strip()}"
        )
    for error in errors:
        error.close()
    return output.decode("utf-8")


def _mode_data_hash(mode_file: Path) -> str:
    digest = hashlib.sha256(mode_file.read_bytes())
    for quoted in sorted(set(re.findall(r"'([^']+)'", mode_file.read_text()))):
        path = Path(quoted)
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
