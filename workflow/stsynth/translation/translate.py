"""Machine translation behind one interface, with a persistent cache of every translation.

Backends (``translate.backend`` in config.yaml):

- ``apertium`` (stsynth.translation.apertium): the rule-based engine from Debian (``apertium`` +
  ``apertium-eng-spa``), each sentence translated on its own. Offline, so it is the default.
- ``marian`` (stsynth.translation.marian): transformers ``MarianMTModel`` (opus-mt models by hub name or
  local folder).

A backend (stsynth.translation.engine.Translator) has a ``name``, a ``version`` (everything that changes its
output: engine and data version, or model weights and decoding settings) and ``translate(sentences,
direction)`` where direction is ``"en-es"`` or ``"es-en"``.

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

import logging
import time

import numpy as np
import pandas as pd

from ..core.keyed import check_aligned
from ..core.progress import Progress
from .apertium import Apertium
from .cache import TranslationCache
from .engine import Translator, check_direction
from .marian import Marian

log = logging.getLogger(__name__)


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
    check_direction(direction)
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
