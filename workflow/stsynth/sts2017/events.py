"""Event tokens, event chains and event embeddings (EE) of the SemEval-2017 system (its §2.2, after
the narrative chains of Chambers & Jurafsky 2008), from spaCy's dependency parse.

An **event token** is one mention of an entity as (predicate, dependency, animacy):

* predicate: the lemma of the verb governing the mention; after a copula, its predicative
  adjective ("Jim was hungry" -> ``hungry``); ``not`` before it when the verb (or copula) is
  negated ("did not sleep" -> ``not sleep``); for a weak verb (config ``events.weak_verbs``: go,
  get, have, ...) its particle and its open clausal complement follow it ("got up" -> ``get up``,
  "has to sleep" -> ``have to sleep``). A copula without an adjective ("he is a king") gives none.
* dependency: ``subj`` (a subject; the by-agent of a passive), ``obj`` (a direct object; the subject
  of a passive: "the man was killed" -> obj), ``iobj`` (an indirect object). A verb conjoined to
  another without a subject of its own shares that verb's subjects ("he ate and drank").
* animacy: ``animate``, ``inanimate`` or ``unknown``: personal pronouns by form (he, she, I, you,
  we, who, thou, ... animate; it inanimate; they unknown), named entities by type (PERSON, NORP
  animate; ORG unknown; the others inanimate), other nouns by the lexicographer file of their most
  frequent WordNet noun sense (noun.person, noun.animal: animate; any other: inanimate; none:
  unknown).

Written as one string, ``predicate|dependency|animacy`` with the predicate's spaces as ``_``
(``not_have_to_sleep|subj|animate``).

**Event chains** follow an entity through a document. The paper resolved coreference with Stanford
CoreNLP, which is not obtainable here, and no coreference package works offline (coreferee and
fastcoref fetch their English models at install or run time; xrenner pins transformers 3.0.2 and
scikit-learn 0.22.1), so :func:`chains` is a documented heuristic: a noun mention joins the chain
of the last mention with the same lemma in the document; a third-person pronoun joins the nearest
preceding chain, within ``window`` sentences, whose last mention agrees in number and animacy (he,
she: singular, animate; it: singular, not animate; they: plural), whose pronouns so far have no other
gender, and which is no co-argument of the same predicate ("she gave him"); first- and second-person pronouns
form one chain per person and document; anything else starts a chain. Each chain's event tokens,
in text order, are one "sentence" of the skip-gram model (gensim's Word2Vec, sg=1, negative
sampling), whose vectors are the EE. A sentence's EE is the mean of the EE of its event tokens
(stsynth.sts2017.sentence_vectors).

Tables:

* Event table (``resources/events/{year}/{dataset}.parquet``, row-aligned with the pair table):
  ``year`` int16, ``dataset`` string, ``line`` int32, ``events1``, ``events2`` list<string> (the event
  tokens of s1 and of s2, in text order).
* Corpus chains (``resources/events/corpus/chains.parquet``): ``document`` int32, ``chain`` int32,
  ``events`` list<string>.
* Corpus sentences (``resources/events/corpus/sentences.parquet``, the W2V baseline's training
  text): ``document`` int32, ``sentence`` int32, ``tokens`` list<string> (lowercased Moses tokens, as
  the token tables).
* Corpus documents (``resources/events/corpus/documents.parquet``): ``source`` string, ``document``
  int32, ``title`` string, ``text`` string.
"""

from __future__ import annotations

import logging
import re
import subprocess
import zlib
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from ..core.progress import Progress

log = logging.getLogger(__name__)

DEPENDENCIES = {"nsubj": "subj", "nsubjpass": "obj", "dobj": "obj", "dative": "iobj", "iobj": "iobj"}
SUBJECTS = ("nsubj", "nsubjpass")
MENTION_POS = ("NOUN", "PROPN", "PRON")
ANIMATE_PRONOUNS = frozenset(
    "i me myself you yourself yourselves he him himself she her herself we us ourselves who whom whoever "
    "thou thee thyself ye someone somebody anyone anybody everyone everybody noone nobody".split()
)
INANIMATE_PRONOUNS = frozenset("it itself something anything everything nothing".split())
ANIMATE_ENTITIES = frozenset({"PERSON", "NORP"})
UNKNOWN_ENTITIES = frozenset({"ORG"})
ANIMATE_LEXNAMES = frozenset({"noun.person", "noun.animal"})
ANIMATE_TOPS = frozenset({"person.n.01", "animal.n.01"})  # the two heads of those files sit in noun.Tops
# Pronouns a chain follows by person (first, second): one chain per person and document.
PERSON_PRONOUNS = {
    **dict.fromkeys("i me my mine myself".split(), "first singular"),
    **dict.fromkeys("we us our ours ourselves".split(), "first plural"),
    **dict.fromkeys("you your yours yourself yourselves thou thee thy thine thyself ye".split(), "second"),
}
# third-person pronoun -> (number, animacy, gender) it needs of its antecedent (None: any)
THIRD_PERSON = {
    **dict.fromkeys(("he", "him", "himself"), ("Sing", "animate", "Masc")),
    **dict.fromkeys(("she", "her", "herself"), ("Sing", "animate", "Fem")),
    **dict.fromkeys(("it", "itself"), ("Sing", "inanimate", None)),
    **dict.fromkeys(("they", "them", "themselves"), ("Plur", None, None)),
}


class EventError(ValueError):
    """Bad event input (an empty corpus, an empty event table), naming what is wrong and where."""


# --- animacy ------------------------------------------------------------------------------------


class WordNetAnimacy:
    """Noun lemma -> animate / inanimate / unknown, by the lexicographer file of its first WordNet sense."""

    def __init__(self, wordnet):
        self.wordnet = wordnet
        self.of = lru_cache(maxsize=None)(self._of)

    def _of(self, lemma: str) -> str:
        synsets = self.wordnet.synsets(lemma.replace(" ", "_"), pos="n")
        if not synsets:
            return "unknown"
        first = synsets[0]
        return "animate" if first.lexname() in ANIMATE_LEXNAMES or first.name() in ANIMATE_TOPS else "inanimate"

    def __call__(self, lemma: str) -> str:
        return self.of(lemma.lower())


def animacy(token, noun_animacy) -> str:
    """A mention's animacy (module docstring); ``noun_animacy(lemma)`` decides common nouns."""
    text = token.lower_
    if token.pos_ == "PRON":
        return "animate" if text in ANIMATE_PRONOUNS else "inanimate" if text in INANIMATE_PRONOUNS else "unknown"
    if token.ent_type_:
        return (
            "animate"
            if token.ent_type_ in ANIMATE_ENTITIES
            else "unknown"
            if token.ent_type_ in UNKNOWN_ENTITIES
            else "inanimate"
        )
    return noun_animacy(token.lemma_)


# --- predicates and mentions ----------------------------------------------------------------------


def predicate(governor, weak_verbs) -> str | None:
    """The predicate of a governing verb (module docstring); None where there is none (a copula
    without an adjective complement, a governor that is no verb)."""
    if governor.pos_ not in ("VERB", "AUX"):
        return None
    children = list(governor.children)
    negated = any(child.dep_ == "neg" for child in children)
    head = governor
    if governor.lemma_ == "be":
        adjectives = [child for child in children if child.dep_ == "acomp" and child.pos_ == "ADJ"]
        if not adjectives:
            return None
        head = adjectives[0]
    words = [head.lemma_.lower()]
    if head is governor and governor.lemma_.lower() in weak_verbs:
        words += [child.lower_ for child in children if child.dep_ == "prt"]
        complements = [child for child in children if child.dep_ == "xcomp" and child.pos_ in ("VERB", "AUX")]
        if complements:
            complement = complements[0]
            words += [child.lower_ for child in complement.children if child.dep_ == "aux" and child.lower_ == "to"]
            words.append(complement.lemma_.lower())
    return " ".join((["not"] if negated else []) + words)


@dataclass(frozen=True)
class Mention:
    """One argument of a predicate: the token and its governing verb (indices in the doc) and its event
    token's parts."""

    token: int
    governor: int
    predicate: str
    dependency: str
    animacy: str

    @property
    def event(self) -> str:
        return f"{self.predicate.replace(' ', '_')}|{self.dependency}|{self.animacy}"


def mentions(doc, noun_animacy, weak_verbs) -> list[Mention]:
    """Every entity mention of a parsed doc with its event token, in text order."""
    found = []

    def add(argument, governor, dependency):
        if argument.pos_ not in MENTION_POS:
            return
        if (text := predicate(governor, weak_verbs)) is not None:
            found.append(Mention(argument.i, governor.i, text, dependency, animacy(argument, noun_animacy)))

    for token in doc:
        if token.dep_ in DEPENDENCIES:
            add(token, token.head, DEPENDENCIES[token.dep_])
        elif token.dep_ == "pobj" and token.head.dep_ == "agent":  # "killed by the police"
            add(token, token.head.head, "subj")
        if (
            token.dep_ == "conj"
            and token.pos_ in ("VERB", "AUX")
            and not any(c.dep_ in SUBJECTS for c in token.children)
        ):
            for subject in (c for c in token.head.children if c.dep_ in SUBJECTS):  # "he ate and drank"
                add(subject, token, DEPENDENCIES[subject.dep_])
    return sorted(found, key=lambda m: (m.token, m.dependency))


def events_of(doc, noun_animacy, weak_verbs) -> list[str]:
    return [m.event for m in mentions(doc, noun_animacy, weak_verbs)]


# --- coreference chains (heuristic) -----------------------------------------------------------------


def _number(token) -> str:
    number = token.morph.get("Number")
    if number:
        return number[0]
    return "Plur" if token.tag_ in ("NNS", "NNPS") else "Sing"


def chains(doc, found: list[Mention], window: int = 3) -> list[list[Mention]]:
    """A document's mentions grouped into entities by the heuristic of the module docstring."""
    sentence_of = {}
    for number, sentence in enumerate(doc.sents):
        for token in sentence:
            sentence_of[token.i] = number
    groups: list[list[Mention]] = []
    by_key: dict[tuple, int] = {}
    last: list[tuple[int, str, str]] = []  # per chain: sentence, number and animacy of its last mention
    genders: list[str | None] = []  # per chain: the gender a pronoun gave it
    for mention in found:
        token = doc[mention.token]
        text = token.lower_
        chain = None
        if token.pos_ == "PRON" and text in PERSON_PRONOUNS:
            key = ("person", PERSON_PRONOUNS[text])
            chain = by_key.get(key)
        elif token.pos_ == "PRON" and text in THIRD_PERSON:
            number, wanted, gender = THIRD_PERSON[text]
            key = None
            for index in range(len(groups) - 1, -1, -1):
                sentence, chain_number, chain_animacy = last[index]
                if sentence_of[token.i] - sentence > window:
                    continue
                if any(other.governor == mention.governor for other in groups[index]):
                    continue  # co-arguments of one predicate are different entities ("she gave him")
                if gender and genders[index] not in (None, gender):
                    continue
                if chain_number == number and (
                    wanted is None or chain_animacy == wanted or (wanted == "inanimate" and chain_animacy == "unknown")
                ):
                    chain = index
                    break
        elif token.pos_ == "PRON":
            key = None
        else:
            key = ("noun", token.lemma_.lower())
            chain = by_key.get(key)
        if chain is None:
            groups.append([])
            last.append((0, "", ""))
            genders.append(None)
            chain = len(groups) - 1
        if token.pos_ == "PRON" and text in THIRD_PERSON and THIRD_PERSON[text][2]:
            genders[chain] = THIRD_PERSON[text][2]
        if key is not None:
            by_key[key] = chain
        groups[chain].append(mention)
        if token.pos_ != "PRON" or last[chain][1] == "":
            last[chain] = (sentence_of[token.i], _number(token), mention.animacy)
        else:
            last[chain] = (sentence_of[token.i], last[chain][1], last[chain][2])
    return groups


# --- the corpus ----------------------------------------------------------------------------------

BIBLE_HEADER = re.compile(r"^(?P<title>\S.* \d+)$")
BIBLE_VERSE = re.compile(r"^\s+\d+ (?P<text>.*)$")


def read_bible(output: str, source: str = "kjv") -> pd.DataFrame:
    """The chapters of the ``bible`` program's output (``bible -l<wide> <range>``: a "Book N" line,
    then one indented "  n text" line per verse) as documents (schema: module docstring)."""
    documents, title, verses = [], None, []
    for lineno, line in enumerate(output.splitlines(), start=1):
        if not line.strip():
            continue
        if header := BIBLE_HEADER.match(line):
            if title is not None:
                documents.append((title, " ".join(verses)))
            title, verses = header.group("title"), []
        elif (verse := BIBLE_VERSE.match(line)) and title is not None:
            verses.append(verse.group("text").strip())
        else:
            raise EventError(f"bible output line {lineno}: neither a 'Book chapter' header nor a verse: {line[:80]!r}")
    if title is not None:
        documents.append((title, " ".join(verses)))
    if not documents:
        raise EventError("the bible program printed no chapter")
    return pd.DataFrame(
        {
            "source": source,
            "document": np.arange(len(documents), dtype=np.int32),
            "title": [t for t, _ in documents],
            "text": [text for _, text in documents],
        }
    ).astype({"source": "string", "title": "string", "text": "string"})


def run_bible(executable: str, passages: str, width: int = 100000) -> str:
    """The text of ``passages`` (e.g. ``gen1:1-rev22:21``) from Debian's ``bible`` program (package bible-kjv)."""
    try:
        result = subprocess.run([executable, f"-l{width}", passages], capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise EventError(
            f"events.corpus: the program {executable!r} is not installed (Debian: apt-get install "
            f"bible-kjv; `make sts2017` installs it)"
        ) from None
    if result.returncode != 0 or not result.stdout.strip():
        raise EventError(f"{executable} {passages} failed ({result.returncode}): {result.stderr.strip()[:300]}")
    return result.stdout


def pair_documents(tables: list[pd.DataFrame], source: str = "pairs") -> pd.DataFrame:
    """Each pair of English pair tables as a two-sentence document (s1, then s2; the gold is never read)."""
    rows = [
        (f"{t['year'].iat[0]}/{t['dataset'].iat[0]}/{line}", f"{s1}\n{s2}")
        for t in tables
        for line, s1, s2 in zip(t["line"], t["s1"], t["s2"])
    ]
    return pd.DataFrame(
        {
            "source": source,
            "document": np.arange(len(rows), dtype=np.int32),
            "title": [title for title, _ in rows],
            "text": [text for _, text in rows],
        }
    ).astype({"source": "string", "title": "string", "text": "string"})


def parse_corpus(
    nlp, documents: pd.DataFrame, noun_animacy, weak_verbs, tokenize, window: int = 3, batch_size: int = 64
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Chains of event tokens and Moses-tokenized sentences of every document (schemas: module docstring)."""
    chain_rows, sentence_rows = [], []
    progress = Progress(log, f"parsing {len(documents)} documents", len(documents), "documents")
    texts = [text.replace("\n", " ") for text in documents["text"]]
    for number, doc in zip(documents["document"], nlp.pipe(texts, batch_size=batch_size)):
        found = mentions(doc, noun_animacy, weak_verbs)
        for index, chain in enumerate(chains(doc, found, window)):
            chain_rows.append((int(number), index, [m.event for m in chain]))
        for index, sentence in enumerate(doc.sents):
            tokens = tokenize(sentence.text)
            if tokens:
                sentence_rows.append((int(number), index, tokens))
        progress.advance()
    progress.finish()
    chain_table = pd.DataFrame(chain_rows, columns=["document", "chain", "events"]).astype(
        {"document": "int32", "chain": "int32"}
    )
    sentence_table = pd.DataFrame(sentence_rows, columns=["document", "sentence", "tokens"]).astype(
        {"document": "int32", "sentence": "int32"}
    )
    log.info(
        "corpus: %d documents, %d sentences, %d chains, %d event tokens (%d chains of 2 or more)",
        len(documents),
        len(sentence_table),
        len(chain_table),
        int(chain_table["events"].map(len).sum()),
        int((chain_table["events"].map(len) > 1).sum()),
    )
    return chain_table, sentence_table


def event_table(nlp, pairs: pd.DataFrame, noun_animacy, weak_verbs, batch_size: int = 256) -> pd.DataFrame:
    """The event tokens of every s1 and s2 of an English pair table (schema: module docstring)."""
    sides = [
        [
            events_of(doc, noun_animacy, weak_verbs)
            for doc in nlp.pipe([str(s) for s in pairs[column]], batch_size=batch_size)
        ]
        for column in ("s1", "s2")
    ]
    return pd.DataFrame(
        {
            "year": pairs["year"].to_numpy(),
            "dataset": pairs["dataset"].to_numpy(),
            "line": pairs["line"].to_numpy(),
            "events1": sides[0],
            "events2": sides[1],
        }
    ).astype({"year": "int16", "dataset": "string", "line": "int32"})


# --- skip-gram (EE, and the W2V baseline on the corpus's words) ------------------------------------


def _stable_hash(text: str) -> int:
    """gensim seeds each word's initial vector with hash(word + seed); Python's str hash changes per
    process, so the same corpus would give other vectors on every run."""
    return zlib.crc32(text.encode("utf-8"))


def skipgram(sentences: list[list[str]], settings: dict, what: str):
    """gensim Word2Vec, skip-gram with negative sampling, one worker (the same vectors on every run):
    settings dimension, window, negative, min_count, sample, epochs, seed. Returns (words, matrix)."""
    from gensim.models import Word2Vec
    from gensim.models.callbacks import CallbackAny2Vec

    class EpochProgress(CallbackAny2Vec):  # an epoch is a step of the job's progress (gensim's lines give no time left)
        def __init__(self, progress: Progress):
            self.progress = progress

        def on_epoch_end(self, model):
            self.progress.advance()

    sentences = [list(s) for s in sentences if len(s)]
    if not sentences:
        raise EventError(f"{what}: no training sentences (the corpus gave none)")
    log.info("%s: skip-gram on %d sentences, %d tokens", what, len(sentences), sum(map(len, sentences)))
    counts = Counter(token for sentence in sentences for token in sentence)
    if max(counts.values()) < settings["min_count"]:
        raise EventError(
            f"{what}: no token occurs {settings['min_count']} times (events.skipgram.min_count): nothing to embed"
        )
    with Progress(log, f"{what}: skip-gram", settings["epochs"], "epochs") as progress:
        model = Word2Vec(
            sentences,
            vector_size=settings["dimension"],
            window=settings["window"],
            sg=1,
            hs=0,
            negative=settings["negative"],
            min_count=settings["min_count"],
            sample=settings["sample"],
            epochs=settings["epochs"],
            seed=settings["seed"],
            workers=1,
            hashfxn=_stable_hash,
            callbacks=[EpochProgress(progress)],
        )
    words = list(model.wv.index_to_key)
    log.info("%s: %d tokens occur at least %d times", what, len(words), settings["min_count"])
    return words, np.asarray(model.wv.vectors, dtype=np.float32)
