"""Pair features for the fusion regressor: TakeLab (Šarić et al. 2012) and the paper's own list.

Feature table schema (``resources/features/{year}/{dataset}.parquet``, row-aligned with the pair
table; one float64 column per name in :data:`FEATURES`, in that order):

===========  =======  ===============================================================
column       type     meaning
===========  =======  ===============================================================
year         int16    as in the pair table
dataset      string   as in the pair table
line         int32    as in the pair table
<feature>    float64  one column per feature function below (its docstring has the formula)
===========  =======  ===============================================================

Every feature reads one :class:`Side` per sentence, built from the English Moses tokens
(lowercased; es-en: s1 after translation), their spaCy lemmas and POS tags, and the raw
sentence of the pair table (only for capitalisation; on es-en s1 this is the Spanish original,
whose capitalised names survive translation unchanged). "Words" are the tokens with at least
one letter or digit; punctuation never counts. Set-overlap features use the Dice/F1 form
``2|A∩B| / (|A|+|B|)``. Where a formula is undefined because a side is empty the docstring says
what is returned. Word vectors come from a word-vector table (``stsynth.word_vectors.vectors``); words
without a vector are skipped by vector features.
"""

from __future__ import annotations

import logging
import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..core.lexicon import is_word

log = logging.getLogger(__name__)

NEGATION_CUES = frozenset(
    {"not", "n't", "no", "never", "nobody", "nothing", "none", "neither", "nor", "nowhere", "without", "cannot"}
)
_NUMBER = re.compile(r"^[+-]?\d+(?:,\d{3})*(?:\.\d+)?$")
_EDGE_PUNCTUATION = re.compile(r"^\W+|\W+$", re.UNICODE)


@dataclass
class Resources:
    """What the features look things up in: information content, WordNet similarity, word vectors."""

    ic: Callable[[str], float]
    path_similarity: Callable[[str, str, str], float]
    vectors: dict[str, np.ndarray] = field(default_factory=dict)


@dataclass
class Side:
    """One sentence as the features see it (all lists aligned: words, lemmas, POS tags)."""

    words: list[str]
    lemmas: list[str]
    pos: list[str]
    raw: str
    resources: Resources

    @classmethod
    def build(cls, tokens, lemmas, pos, raw: str, resources: Resources) -> "Side":
        keep = [i for i, token in enumerate(tokens) if is_word(token)]
        return cls([tokens[i] for i in keep], [lemmas[i] for i in keep], [pos[i] for i in keep], raw, resources)

    def vectors_of(self, words) -> np.ndarray:
        rows = [self.resources.vectors[w] for w in words if w in self.resources.vectors]
        if not rows:
            return np.zeros((0, 0), dtype=np.float64)
        return np.asarray(rows, dtype=np.float64)

    def words_tagged(self, tags: set[str]) -> list[str]:
        return [w for w, p in zip(self.words, self.pos) if p in tags]


# ---------------------------------------------------------------- helpers


def dice(a: set, b: set, both_empty: float = 0.0) -> float:
    """``2|A∩B| / (|A|+|B|)``; ``both_empty`` when A and B are both empty, 0 when only one is."""
    if not a and not b:
        return both_empty
    return 2.0 * len(a & b) / (len(a) + len(b))


def cosine(u: np.ndarray, v: np.ndarray) -> float:
    """``u·v / (|u||v|)``; 0 when either vector is empty or zero."""
    if u.size == 0 or v.size == 0:
        return 0.0
    norms = float(np.linalg.norm(u) * np.linalg.norm(v))
    return float(np.dot(u, v) / norms) if norms > 0 else 0.0


def harmonic_mean(x: float, y: float) -> float:
    return 2.0 * x * y / (x + y) if x + y > 0 else 0.0


def ngrams(items: list[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(items[i : i + n]) for i in range(len(items) - n + 1)}


def relative_difference(x: float, y: float) -> float:
    """``|x − y| / max(x, y)`` for non-negative x, y; 0 when both are 0."""
    top = max(x, y)
    return abs(x - y) / top if top > 0 else 0.0


def numbers(words: list[str]) -> set[float]:
    """Numeric tokens as values ("1,000" = "1000.0" = 1000); number words are not converted."""
    return {float(w.replace(",", "")) for w in words if _NUMBER.match(w)}


def capitalised_words(raw: str) -> set[str]:
    """Lowercased whitespace words of the raw sentence that start with a capital letter,
    the sentence-initial word excluded (its capital says nothing)."""
    words = [_EDGE_PUNCTUATION.sub("", w) for w in raw.split()]
    return {w.lower() for w in words[1:] if w and w[0].isupper()}


# ---------------------------------------------------------------- TakeLab features


def ngram_overlap(a: list[str], b: list[str], n: int) -> float:
    """TakeLab n-gram overlap ``ngo = 2 (|S1|/|S1∩S2| + |S2|/|S1∩S2|)^-1 = 2|S1∩S2| / (|S1|+|S2|)``
    over the sets of n-grams; 0 when either side has no n-gram (too short or empty)."""
    x, y = ngrams(a, n), ngrams(b, n)
    return dice(x, y) if x and y else 0.0


def ngram_feature(sequence: str, n: int) -> Callable[[Side, Side], float]:
    """The feature ``ngram_<sequence>_<n>``: :func:`ngram_overlap` of the sides' words
    (``sequence`` ``word``) or lemmas (``lemma``), n-grams of length n."""
    attribute = {"word": "words", "lemma": "lemmas"}[sequence]

    def feature(a: Side, b: Side) -> float:
        return ngram_overlap(getattr(a, attribute), getattr(b, attribute), n)

    feature.__name__ = f"ngram_{sequence}_{n}"
    feature.__doc__ = f"TakeLab {sequence} {n}-gram overlap: :func:`ngram_overlap` on {attribute}, n = {n}."
    return feature


def weighted_word_match(a: Side, b: Side) -> float:
    """TakeLab weighted word overlap over lemma sets L1, L2 with information content ``ic``:
    ``wwc(L1, L2) = Σ_{w∈L1∩L2} ic(w) / Σ_{w∈L2} ic(w)``; the feature is the harmonic mean of
    ``wwc(L1, L2)`` and ``wwc(L2, L1)`` (0 when either side is empty)."""
    x, y = set(a.lemmas), set(b.lemmas)
    if not x or not y:
        return 0.0
    ic = a.resources.ic
    # fsum: a set's order changes from process to process (string hashing), a float sum's last bit with it
    shared = math.fsum(ic(w) for w in x & y)
    return harmonic_mean(shared / math.fsum(ic(w) for w in y), shared / math.fsum(ic(w) for w in x))


def wordnet_match(a: Side, b: Side) -> float:
    """TakeLab WordNet-augmented word overlap over lemmas:
    ``score(w, S) = 1`` if lemma w occurs in S, else (nouns and verbs only) the largest WordNet
    path similarity between w and a lemma of S with the same part of speech, else 0;
    ``P(S1, S2) = mean_{w∈S1} score(w, S2)``; the feature is the harmonic mean of ``P(S1, S2)``
    and ``P(S2, S1)`` (0 when either side is empty)."""
    if not a.lemmas or not b.lemmas:
        return 0.0
    return harmonic_mean(_wordnet_coverage(a, b), _wordnet_coverage(b, a))


_WORDNET_POS = {"NOUN": "n", "PROPN": "n", "VERB": "v"}


def _wordnet_coverage(a: Side, b: Side) -> float:
    similarity = a.resources.path_similarity
    others = set(b.lemmas)
    by_pos: dict[str, set[str]] = {"n": set(), "v": set()}
    for lemma, tag in zip(b.lemmas, b.pos):
        if tag in _WORDNET_POS:
            by_pos[_WORDNET_POS[tag]].add(lemma)
    total = 0.0
    for lemma, tag in zip(a.lemmas, a.pos):
        if lemma in others:
            total += 1.0
        elif tag in _WORDNET_POS:
            pos = _WORDNET_POS[tag]
            total += max((similarity(lemma, other, pos) for other in by_pos[pos]), default=0.0)
    return total / len(a.lemmas)


def length_difference(a: Side, b: Side) -> float:
    """Relative length difference ``|n1 − n2| / max(n1, n2)`` in words (0 when both are empty)."""
    return relative_difference(len(a.words), len(b.words))


def ic_difference(a: Side, b: Side) -> float:
    """Relative information-content difference ``|IC1 − IC2| / max(IC1, IC2)`` with
    ``IC(S) = Σ_{w∈S} ic(w)`` over the words of S (0 when both are empty)."""
    ic = a.resources.ic
    return relative_difference(sum(map(ic, a.words)), sum(map(ic, b.words)))


def number_log_count(a: Side, b: Side) -> float:
    """TakeLab number feature ``ln(1 + |N1| + |N2|)``, N = the set of numbers in a sentence."""
    return math.log(1 + len(numbers(a.words)) + len(numbers(b.words)))


def number_f1(a: Side, b: Side) -> float:
    """``2|N1∩N2| / (|N1|+|N2|)`` over the number sets; 1 when neither side has a number."""
    return dice(numbers(a.words), numbers(b.words), both_empty=1.0)


def number_subset(a: Side, b: Side) -> float:
    """1 if ``N1 ⊆ N2`` or ``N2 ⊆ N1`` (so also when both are empty), else 0."""
    x, y = numbers(a.words), numbers(b.words)
    return float(x <= y or y <= x)


def case_f1(a: Side, b: Side) -> float:
    """TakeLab case match: ``2|C1∩C2| / (|C1|+|C2|)`` over the capitalised words of the raw
    sentences (:func:`capitalised_words`); 1 when neither side has one."""
    return dice(capitalised_words(a.raw), capitalised_words(b.raw), both_empty=1.0)


def weighted_vector_cosine(a: Side, b: Side) -> float:
    """TakeLab weighted distributional similarity: ``cos(Σ_{w∈S1} ic(w) v(w), Σ_{w∈S2} ic(w) v(w))``
    over the words with a vector (0 when a side has none)."""
    return cosine(_weighted_sum(a), _weighted_sum(b))


def _weighted_sum(side: Side) -> np.ndarray:
    known = [w for w in side.words if w in side.resources.vectors]
    if not known:
        return np.zeros(0)
    weights = np.array([side.resources.ic(w) for w in known])
    return weights @ side.vectors_of(known)


# ---------------------------------------------------------------- the paper's features


def bow_cosine(a: Side, b: Side) -> float:
    """Bag-of-words cosine ``Σ_w c1(w) c2(w) / (|c1| |c2|)`` over word counts c (0 for an empty side)."""
    return _count_cosine(Counter(a.words), Counter(b.words), lambda w: 1.0)


def bow_cosine_icf(a: Side, b: Side) -> float:
    """Bag-of-words cosine with each count weighted by inverse corpus frequency, ``c(w) · ic(w)``
    where ``ic(w) = ln(1/p(w))`` (wordfreq); 0 for an empty side."""
    return _count_cosine(Counter(a.words), Counter(b.words), a.resources.ic)


def _count_cosine(x: Counter, y: Counter, weight: Callable[[str], float]) -> float:
    if not x or not y:
        return 0.0
    dot = math.fsum(x[w] * y[w] * weight(w) ** 2 for w in x.keys() & y.keys())  # set order: see weighted_word_match
    norm_x = math.sqrt(sum((c * weight(w)) ** 2 for w, c in x.items()))
    norm_y = math.sqrt(sum((c * weight(w)) ** 2 for w, c in y.items()))
    return dot / (norm_x * norm_y) if norm_x * norm_y > 0 else 0.0


def vector_mean_cosine(a: Side, b: Side) -> float:
    """Additive composition: ``cos(mean_{w∈S1} v(w), mean_{w∈S2} v(w))`` over words with a vector
    (the sum gives the same cosine); 0 when a side has none."""
    x, y = a.vectors_of(a.words), b.vectors_of(b.words)
    return cosine(x.mean(axis=0), y.mean(axis=0)) if len(x) and len(y) else 0.0


def vector_product_cosine(a: Side, b: Side) -> float:
    """Multiplicative composition (element-wise product of the word vectors):
    ``cos(⊙_{w∈S1} v(w), ⊙_{w∈S2} v(w))``, computed in log space and rescaled (cosine ignores
    scale) so long sentences do not underflow; 0 when a side has no word with a vector."""
    x, y = a.vectors_of(a.words), b.vectors_of(b.words)
    return cosine(_product(x), _product(y)) if len(x) and len(y) else 0.0


def _product(vectors: np.ndarray) -> np.ndarray:
    magnitude = np.log(np.maximum(np.abs(vectors), 1e-30)).sum(axis=0)
    sign = np.prod(np.sign(vectors), axis=0)
    return sign * np.exp(magnitude - magnitude.max())


def vector_alignment(a: Side, b: Side) -> float:
    """Greedy word alignment: each word with a vector is matched to its most cosine-similar word
    of the other sentence; the feature is the mean of the two directions' mean best cosines
    ``(mean_i max_j cos(v1_i, v2_j) + mean_j max_i cos(v1_i, v2_j)) / 2`` (0 when a side has no vector)."""
    x, y = a.vectors_of(a.words), b.vectors_of(b.words)
    if not len(x) or not len(y):
        return 0.0
    x = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)
    y = y / np.maximum(np.linalg.norm(y, axis=1, keepdims=True), 1e-12)
    similarity = x @ y.T
    return float((similarity.max(axis=1).mean() + similarity.max(axis=0).mean()) / 2)


def noun_vector_cosine(a: Side, b: Side) -> float:
    """:func:`vector_mean_cosine` restricted to the words tagged NOUN or PROPN (0 when a side has none)."""
    x, y = a.vectors_of(a.words_tagged({"NOUN", "PROPN"})), b.vectors_of(b.words_tagged({"NOUN", "PROPN"}))
    return cosine(x.mean(axis=0), y.mean(axis=0)) if len(x) and len(y) else 0.0


def verb_vector_cosine(a: Side, b: Side) -> float:
    """:func:`vector_mean_cosine` restricted to the words tagged VERB (0 when a side has none)."""
    x, y = a.vectors_of(a.words_tagged({"VERB"})), b.vectors_of(b.words_tagged({"VERB"}))
    return cosine(x.mean(axis=0), y.mean(axis=0)) if len(x) and len(y) else 0.0


def negation_mismatch(a: Side, b: Side) -> float:
    """1 if exactly one sentence contains a negation cue (:data:`NEGATION_CUES`, lemma "not"
    included, so "n't" counts), else 0."""

    def negated(side: Side) -> bool:
        return any(w in NEGATION_CUES for w in side.words) or "not" in side.lemmas

    return float(negated(a) != negated(b))


def determiner_f1(a: Side, b: Side) -> float:
    """``2|D1∩D2| / (|D1|+|D2|)`` over the sets of words tagged DET (articles, quantifiers,
    demonstratives: "a" vs "the", "all" vs "some"); 1 when neither side has one."""
    return dice(set(a.words_tagged({"DET"})), set(b.words_tagged({"DET"})), both_empty=1.0)


FEATURES: dict[str, Callable[[Side, Side], float]] = {
    **{f"ngram_{sequence}_{n}": ngram_feature(sequence, n) for sequence in ("word", "lemma") for n in (1, 2, 3)},
    "weighted_word_match": weighted_word_match,
    "wordnet_match": wordnet_match,
    "length_difference": length_difference,
    "ic_difference": ic_difference,
    "number_log_count": number_log_count,
    "number_f1": number_f1,
    "number_subset": number_subset,
    "case_f1": case_f1,
    "weighted_vector_cosine": weighted_vector_cosine,
    "cosine": bow_cosine,
    "cosine_icf": bow_cosine_icf,
    "vector_mean_cosine": vector_mean_cosine,
    "vector_product_cosine": vector_product_cosine,
    "vector_alignment": vector_alignment,
    "noun_vector_cosine": noun_vector_cosine,
    "verb_vector_cosine": verb_vector_cosine,
    "negation_mismatch": negation_mismatch,
    "determiner_f1": determiner_f1,
}


def pair_features(a: Side, b: Side) -> dict[str, float]:
    return {name: float(function(a, b)) for name, function in FEATURES.items()}


def feature_table(
    pairs: pd.DataFrame, tokens: pd.DataFrame, tagged: list[tuple[list[str], list[str]]], resources: Resources
) -> pd.DataFrame:
    """Features for every pair. ``tagged``: (lemmas, POS) for tokens1 of every row, then tokens2 of every row."""
    n = len(pairs)
    rows = []
    for i in range(n):
        t1, t2 = list(tokens["tokens1"].iat[i]), list(tokens["tokens2"].iat[i])
        a = Side.build(t1, *tagged[i], str(pairs["s1"].iat[i]), resources)
        b = Side.build(t2, *tagged[n + i], str(pairs["s2"].iat[i]), resources)
        rows.append(pair_features(a, b))
    table = pd.DataFrame(rows, columns=list(FEATURES), dtype="float64")
    keys = pd.DataFrame(
        {"year": pairs["year"].to_numpy(), "dataset": pairs["dataset"].to_numpy(), "line": pairs["line"].to_numpy()}
    ).astype({"year": "int16", "dataset": "string", "line": "int32"})
    return pd.concat([keys, table], axis=1)


def extract(pairs: pd.DataFrame, tokens: pd.DataFrame, vectors, settings: dict, nltk_data: str) -> pd.DataFrame:
    """The feature table of one dataset. ``pairs`` has English s1/s2 (es-en: translated s1),
    ``tokens`` their English token lists, ``vectors`` a :class:`stsynth.word_vectors.vectors.WordVectors`;
    ``settings``: config ``features`` (tagger, ic_min_frequency, ic_language, tag_batch_size)."""
    from functools import partial

    from ..core.lexicon import information_content, load_tagger, path_similarity, tag

    vocabulary = {w for column in ("tokens1", "tokens2") for tokens_ in tokens[column] for w in tokens_}
    index = vectors.index()
    known = {w: vectors.matrix[index[w]] for w in vocabulary if w in index}
    log.info("%d distinct tokens, %d with a %s vector", len(vocabulary), len(known), vectors.source)
    nlp = load_tagger(settings["tagger"])
    tagged = tag(
        nlp,
        [list(t) for t in tokens["tokens1"]] + [list(t) for t in tokens["tokens2"]],
        batch_size=settings["tag_batch_size"],
    )
    ic = partial(information_content, min_frequency=settings["ic_min_frequency"], language=settings["ic_language"])
    resources = Resources(ic, path_similarity(str(nltk_data)), known)
    return feature_table(pairs, tokens, tagged, resources)
