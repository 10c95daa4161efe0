"""Machine translation behind one interface, with a persistent cache of every translation.

Backends (``translate.backend`` in config.yaml):

- ``apertium``: the rule-based engine from Debian (``apertium`` + ``apertium-eng-spa``), its
  stages null-flushed over a batch, each sentence translated on its own. Offline, so it is the
  default.
- ``marian``: transformers ``MarianMTModel`` (opus-mt models by hub name or local folder).

A backend has a ``name``, a ``version`` (everything that changes its output: engine and data
version, or model weights and decoding settings) and ``translate(sentences, direction)`` where
direction is ``"en-es"`` or ``"es-en"``.

Every translation goes through the cache (stsynth.translation.cache: ``translate.cache``, keyed by
(backend, version, direction, sentence), safe on a local disk and on a cluster's network filesystem),
so a killed or re-run rule translates only what is missing.

Translated pair table (``resources/translated/{year}/{dataset}.parquet``, es-en sets): the pair
table schema (stsynth.core.pairs) with every Spanish sentence replaced by its English translation
(Spanish: identified per sentence, or the declared s1; config ``crosslingual.sides``), plus

======================  ======  ===========================================================
column                  type    meaning
======================  ======  ===========================================================
s1_source, s2_source    string  the released sentences, kept for provenance
translated1/2           bool    whether that side of the line was translated
======================  ======  ===========================================================
"""

from __future__ import annotations

import hashlib
import logging
import re
import shlex
import shutil
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Protocol

import numpy as np
import pandas as pd

from ..core.device import resolve_device
from ..core.keyed import check_aligned
from ..core.progress import Progress
from .cache import TranslationCache

log = logging.getLogger(__name__)

DIRECTIONS = ("en-es", "es-en")


class TranslationEngineError(RuntimeError):
    """A translation engine or model that is missing, misconfigured or misbehaving."""


class Translator(Protocol):
    name: str
    version: str

    def translate(self, sentences: list[str], direction: str) -> list[str]: ...


def _check_direction(direction: str) -> None:
    if direction not in DIRECTIONS:
        raise ValueError(f"translation direction {direction!r} is not one of {DIRECTIONS}")


# ---------------------------------------------------------------------------------------------
# Apertium

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
        _check_direction(direction)
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


# ---------------------------------------------------------------------------------------------
# Marian


class Marian:
    name = "marian"
    # Part of the version (see Apertium.method): batches of equal token length, never padded.
    method = "unpadded batches"

    def __init__(
        self,
        models: dict[str, str],
        batch_size: int = 16,
        num_beams: int = 1,
        max_length: int = 256,
        device: str = "auto",
        quantize_int8: bool = False,
        threads: int | None = None,
    ):
        import torch
        from transformers import MarianMTModel, MarianTokenizer

        if threads:
            torch.set_num_threads(threads)
        self.torch = torch
        self.batch_size, self.num_beams, self.max_length = batch_size, num_beams, max_length
        if not (quantize_int8 and device.startswith("cuda")):  # that combination is refused below, GPU or not
            device = resolve_device(device)
        if quantize_int8 and device != "cpu":
            raise TranslationEngineError("translate.marian.quantize_int8 works on CPU only; set device: cpu")
        self.device = device
        self.tokenizers, self.models, versions = {}, {}, []
        for direction in DIRECTIONS:
            name = models[direction]
            try:
                tokenizer = MarianTokenizer.from_pretrained(name)
                model = MarianMTModel.from_pretrained(name)
            except (OSError, ValueError) as err:
                raise TranslationEngineError(
                    f"cannot load the Marian model {name!r} for {direction}: {err}\n"
                    "It must be a local folder (config.json, model weights, source.spm, target.spm, vocab.json) "
                    "or a hub name reachable from this machine. Without internet, download it elsewhere "
                    f"(`hf download {name} --local-dir models/{name.split('/')[-1]}`), copy the folder here and "
                    f"set translate.marian.models.{direction} in config.yaml to it."
                ) from err
            except ImportError as err:
                raise TranslationEngineError(
                    f"the Marian tokenizer needs sentencepiece: pip install sentencepiece ({err})"
                ) from err
            model.eval()
            if quantize_int8:
                model = torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
            self.tokenizers[direction], self.models[direction] = tokenizer, model.to(device)
            versions.append(f"{direction}={name}@{_model_fingerprint(name, model)}")
        self.version = (
            f"{'; '.join(versions)}; beams={num_beams}; max_length={max_length}; "
            f"int8={bool(quantize_int8)}; {self.method}"
        )

    def translate(self, sentences: list[str], direction: str) -> list[str]:
        _check_direction(direction)
        if not sentences:
            return []
        tokenizer, model = self.tokenizers[direction], self.models[direction]
        translations: list[str] = [""] * len(sentences)
        # A batch holds sentences of one token length only, so no sentence is ever padded and its
        # translation cannot depend on the batch it lands in (padding changes the encoder's sums).
        ids = tokenizer(sentences, truncation=True, max_length=self.max_length)["input_ids"]
        for batch in _same_length_batches([len(i) for i in ids], self.batch_size):
            input_ids = self.torch.tensor([ids[i] for i in batch], device=self.device)
            with self.torch.inference_mode():
                generated = model.generate(
                    input_ids=input_ids,
                    attention_mask=self.torch.ones_like(input_ids),
                    num_beams=self.num_beams,
                    do_sample=False,
                    max_new_tokens=self.max_length,
                    decoder_start_token_id=model.config.pad_token_id,
                )
            for i, text in zip(batch, tokenizer.batch_decode(generated, skip_special_tokens=True)):
                translations[i] = text.strip()
        return translations


def _same_length_batches(lengths: list[int], batch_size: int) -> list[list[int]]:
    """Indices in batches of at most batch_size whose token sequences are equally long."""
    by_length: dict[int, list[int]] = {}
    for index in sorted(range(len(lengths)), key=lambda i: lengths[i]):
        by_length.setdefault(lengths[index], []).append(index)
    return [
        group[start : start + batch_size] for group in by_length.values() for start in range(0, len(group), batch_size)
    ]


def _model_fingerprint(name: str, model) -> str:
    """The hub commit when loaded from the hub, else a hash of the local folder's files."""
    commit = getattr(model.config, "_commit_hash", None)
    if commit:
        return commit
    folder = Path(name)
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.iterdir() if p.is_file()):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def make_translator(settings: dict, threads: int = 1, device: str = "auto") -> Translator:
    """The backend named by config.yaml's ``translate`` section; threads: the rule's (torch threads);
    device: config.yaml's ``device`` (Marian only; stsynth.core.device)."""
    backend = settings["backend"]
    if backend == "apertium":
        return Apertium(**settings["apertium"], threads=threads)
    if backend == "marian":
        return Marian(**settings["marian"], threads=threads, device=device)
    raise ValueError(f"translate.backend {backend!r} is not one of apertium, marian")


def translate_cached(
    sentences: list[str], direction: str, translator: Translator, cache: TranslationCache, chunk_size: int = 256
) -> tuple[list[str], dict]:
    """Translations aligned with sentences; only sentences missing from the cache reach the engine.

    Each chunk is stored as soon as it is translated, so an interrupted call loses at most one chunk.
    Returns (translations, counts) with counts of sentences, unique, cached and translated.
    """
    _check_direction(direction)
    known = cache.lookup(translator, direction, sentences)
    known[""] = ""  # nothing to translate
    missing = [s for s in dict.fromkeys(sentences) if s not in known]
    started = time.perf_counter()
    progress = Progress(log, f"{translator.name} {direction}", len(missing), "sentences")
    for start in range(0, len(missing), chunk_size):
        chunk = missing[start : start + chunk_size]
        translated = dict(zip(chunk, translator.translate(chunk, direction)))
        cache.store(translator, direction, translated)
        known.update(translated)
        progress.advance(len(chunk))
    progress.finish()
    seconds = time.perf_counter() - started
    counts = {
        "sentences": len(sentences),
        "unique": len(set(sentences)),
        "cached": len(set(sentences)) - len(missing),
        "translated": len(missing),
        "seconds": seconds,
    }
    log.info(
        "%s %s (%s): %d sentences, %d unique, %d from the cache, %d translated in %.1f s",
        translator.name,
        direction,
        translator.version,
        counts["sentences"],
        counts["unique"],
        counts["cached"],
        counts["translated"],
        seconds,
    )
    return [known[s] for s in sentences], counts


def spanish_sides(pairs: pd.DataFrame, languages: pd.DataFrame | None) -> tuple[np.ndarray, np.ndarray]:
    """Which s1 and which s2 of an es-en table are Spanish. With a language table (stsynth.translation.language,
    row-aligned per side): the sentences identified as ``es``, and, on a line where neither side is,
    the side more probably Spanish (an es-en pair is cross-lingual: one of its sentences is Spanish).
    Without one: the side the track declares, s1."""
    if languages is None:
        return np.ones(len(pairs), dtype=bool), np.zeros(len(pairs), dtype=bool)
    identified, probability = [], []
    for side in (1, 2):
        rows = languages[languages["side"] == side]
        check_aligned(rows, pairs, f"language table (side {side})")
        identified.append(rows["language"].to_numpy() == "es")
        probability.append(rows["spanish"].to_numpy(dtype=np.float64))
    neither = ~identified[0] & ~identified[1] & ~np.isnan(probability[0]) & ~np.isnan(probability[1])
    first = neither & (probability[0] >= probability[1])
    if neither.any():
        log.info(
            "%d lines with no sentence identified as Spanish: their more probably Spanish side is "
            "translated (s1 on %d, s2 on %d; lines %s)",
            neither.sum(),
            first.sum(),
            (neither & ~first).sum(),
            ", ".join(map(str, pairs["line"].to_numpy()[neither][:20])),
        )
    return identified[0] | first, identified[1] | (neither & ~first)


def translate_pairs(
    pairs: pd.DataFrame,
    translator: Translator,
    cache: TranslationCache,
    chunk_size: int = 256,
    languages: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """An es-en pair table with its Spanish sentences translated to English, on either side: those
    language identification finds (``languages``: the table of rule identify_language), or every s1
    (``languages`` None: the side the track declares). The released sentences stay in s1_source and
    s2_source; translated1/translated2 say which were translated."""
    tracks = set(pairs["track"])
    if tracks - {"es-en"}:
        raise ValueError(f"translate_pairs expects es-en pair tables, got tracks {sorted(tracks)}")
    spanish = spanish_sides(pairs, languages)
    sentences = [s for side, mask in zip(("s1", "s2"), spanish) for s in pairs[side].astype(str)[mask]]
    english = iter(translate_cached(sentences, "es-en", translator, cache, chunk_size)[0])
    translated = pairs.copy()
    for side, mask in zip(("s1", "s2"), spanish):
        translated[f"{side}_source"] = pairs[side].astype("string")
        values = pairs[side].astype(str).tolist()
        for row in np.flatnonzero(mask):
            values[row] = next(english)
        translated[side] = pd.Series(values, index=pairs.index, dtype="string")
    translated["translated1"], translated["translated2"] = spanish
    log.info(
        "translated to English (%s): %d of %d s1, %d of %d s2",
        "identified as Spanish" if languages is not None else "the declared Spanish side, s1",
        spanish[0].sum(),
        len(pairs),
        spanish[1].sum(),
        len(pairs),
    )
    return translated


def round_trip(
    sentences: list[str], translator: Translator, cache: TranslationCache, chunk_size: int = 256
) -> tuple[list[str], list[str], dict]:
    """English -> Spanish -> English: (pivots, round trips, counts per direction)."""
    pivots, to_spanish = translate_cached(sentences, "en-es", translator, cache, chunk_size)
    back, to_english = translate_cached(pivots, "es-en", translator, cache, chunk_size)
    return pivots, back, {"en-es": to_spanish, "es-en": to_english}
