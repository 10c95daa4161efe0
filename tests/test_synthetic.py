"""Round-trip tables, synthetic paraphrase pairs, language identification, and the stages on the tiny corpus."""

from __future__ import annotations

import shutil
from contextlib import closing

import pandas as pd
import pytest

from conftest import added_table
from stsynth.translation.cache import TranslationCache
from stsynth.translation.language import accuracy_table, language_table
from stsynth.translation.synthetic import dev_check, round_trip_table, synthetic_pairs
from test_provenance import planned_jobs

SETTINGS = {"lowercase": True, "aggressive_dash_splits": False, "escape": False}


class TableTranslator:
    """Looks translations up in a dict; sentences it lacks come back unchanged."""

    name = "table"
    version = "1"

    def __init__(self, table):
        self.table = table

    def translate(self, sentences, direction):
        return [self.table.get((direction, s), s) for s in sentences]


def pair_table(rows, dataset="tiny", year=2016, track="en"):
    return pd.DataFrame(
        {
            "year": year,
            "dataset": dataset,
            "track": track,
            "line": range(1, len(rows) + 1),
            "s1": [r[0] for r in rows],
            "s2": [r[1] for r in rows],
            "gold": [r[2] for r in rows],
        }
    )


def test_round_trips_cover_both_sides_of_every_line(tmp_path):
    pairs = pair_table([("The cat sleeps.", "A dog runs.", 4.0), ("A dog runs.", "Birds fly.", None)])
    translator = TableTranslator(
        {
            ("en-es", "The cat sleeps."): "El gato duerme.",
            ("es-en", "El gato duerme."): "The cat is sleeping.",
            ("en-es", "A dog runs."): "Un perro corre.",
            ("es-en", "Un perro corre."): "A dog runs.",
        }
    )
    with closing(TranslationCache(tmp_path / "c.sqlite")) as cache:
        table, counts = round_trip_table(pairs, translator, cache)
    assert len(table) == 4  # unscored line included
    assert table.loc[(table["line"] == 1) & (table["side"] == 1), "round_trip"].item() == "The cat is sleeping."
    assert table.loc[(table["line"] == 2) & (table["side"] == 1), "pivot"].item() == "Un perro corre."
    assert counts["en-es"]["unique"] == 3 and counts["en-es"]["translated"] == 3


def round_trips(rows):
    return pd.DataFrame(rows, columns=["year", "dataset", "line", "side", "sentence", "pivot", "round_trip"])


def test_synthetic_pairs_drop_identical_round_trips_and_repeats():
    table = round_trips(
        [
            (2016, "a", 1, 1, "The cat sleeps.", "El gato duerme.", "The cat is sleeping."),
            (2016, "a", 1, 2, "A dog runs.", "Un perro corre.", "A dog runs."),  # identical text
            (2016, "a", 2, 1, "A Dog runs .", "Un perro corre.", "a dog runs."),  # identical tokens
            (2016, "a", 2, 2, "The cat sleeps.", "El gato duerme.", "The cat is sleeping."),  # repeat of line 1
            (2016, "b", 1, 1, "", "", ""),  # empty
            (2016, "b", 1, 2, "Prices rose.", "Los precios subieron.", "The prices went up."),
        ]
    )
    pairs, counts = synthetic_pairs([table], SETTINGS)
    assert pairs[["dataset", "line", "side"]].values.tolist() == [["a", 1, 1], ["b", 1, 2]]
    assert list(pairs.columns[:9]) == ["source", "year", "dataset", "line", "s1", "s2", "tokens1", "tokens2", "gold"]
    assert (pairs["source"] == "synthetic").all() and pairs["gold"].isna().all()
    assert pairs["tokens2"].iat[1] == ["the", "prices", "went", "up", "."]
    assert pairs["pivot"].iat[0] == "El gato duerme."
    by_set = counts.set_index("dataset")
    assert by_set.loc["a", ["round_trips", "identical_text", "identical_tokens", "repeated", "kept"]].tolist() == [
        4,
        1,
        2,
        1,
        1,
    ]
    assert by_set.loc["ALL", "kept"] == 2 and by_set.loc["b", "empty"] == 1


def test_dev_check_reads_every_dev_column():
    epochs = pd.DataFrame(
        {"epoch": [0, 1, 2], "loss": [1.0, 0.5, 0.4], "dev_2015_images": [0.6, 0.7, 0.65], "dev_ALL": [0.5, 0.6, 0.62]}
    )
    table = dev_check({"m": epochs})
    assert len(table) == 6 and table.query("dev == '2015_images' and epoch == 1")["pearson"].item() == 0.7
    with pytest.raises(ValueError, match="nodev scored no dev sets: only a dev-protocol twin"):
        dev_check({"nodev": epochs[["epoch", "loss"]]})


def test_language_identification_against_known_sides():
    pairs = pair_table(
        [
            ("El gato duerme en la cama todo el día.", "The cat sleeps on the bed all day.", 5.0),
            ("Los precios subieron mucho en mayo.", "Prices rose a lot in May.", 4.0),
        ],
        track="es-en",
    )
    table = language_table(pairs)
    assert table["expected"].tolist() == ["es", "es", "en", "en"]
    assert table["language"].tolist() == ["es", "es", "en", "en"]
    report = accuracy_table([table]).set_index("dataset")
    assert report.loc["ALL", "accuracy"] == 1.0
    swapped = language_table(pairs.assign(s1=pairs["s2"], s2=pairs["s1"]), languages=["en", "es"])
    assert accuracy_table([swapped]).set_index("dataset").loc["ALL", "accuracy"] == 0.0


# --- the real Snakefile on the tiny corpus, real Apertium ------------------------------------------


@pytest.mark.workflow
def test_translation_and_synthetic_stages_end_to_end(workspace):
    if shutil.which("apertium") is None:
        message = "apertium is not installed (apt-get install apertium apertium-eng-spa)"
        print(message)
        pytest.skip(message)
    targets = [
        "resources/paraphrase_pairs/synthetic.parquet",
        "resources/paraphrase_pairs/synthetic-2015-tinydev.parquet",
        "resources/translated/2016/tinynews.tokens.parquet",
        "results/language/accuracy.md",
    ]
    workspace.snakemake(*targets)
    work = workspace.path

    translated = pd.read_parquet(work / "resources/translated/2016/tinynews.parquet")
    original = pd.read_parquet(work / "resources/pairs/2016/tinynews.parquet")
    assert translated["s1_source"].tolist() == original["s1"].tolist()
    assert "guitar" in translated["s1"].iat[0].lower()
    tokens = pd.read_parquet(work / "resources/translated/2016/tinynews.tokens.parquet")
    assert "guitar" in list(tokens["tokens1"].iat[0]) and len(tokens) == len(original)

    synthetic = pd.read_parquet(work / "resources/paraphrase_pairs/synthetic.parquet")
    released = 2 * (9 + 5)  # both sides of every line of tinytest (unscored lines too) and tinynews
    counts = (work / "results/synthetic/synthetic.counts.md").read_text()
    all_row = [line for line in counts.splitlines() if "| ALL |" in line][0].split("|")
    assert int(all_row[3]) == released and int(all_row[-2]) == len(synthetic)
    assert set(synthetic["dataset"]) == {"tinytest", "tinynews"} and (synthetic["s1"] != synthetic["s2"]).all()
    assert set(pd.read_parquet(work / "resources/paraphrase_pairs/synthetic-2015-tinydev.parquet")["dataset"]) == {
        "tinydev"
    }
    assert "| 2016 | tinynews | s1 | es |" in (work / "results/language/accuracy.md").read_text()

    # A test set added beside the protocol (role: test) is no test set of the protocol's: its round trips are not
    # read, and the synthetic table stays as it is.
    rows = [("A dog runs.", "A dog is running.", 4.5), ("A man sings.", "The car is red.", 0.2)]
    workspace.write_config({"extra_datasets": [added_table(work.parent / "added.tsv", "added", rows)]})
    assert "synthetic_pairs" not in planned_jobs(workspace.snakemake("-n", targets[0]))

    # Rebuilding from scratch translates nothing: every sentence comes from the cache.
    for folder in ("resources/round_trips", "resources/translated", "resources/paraphrase_pairs"):
        shutil.rmtree(work / folder)
    workspace.snakemake(*targets)
    for log in [*(work / "logs/round_trips").rglob("*.log"), *(work / "logs/translate").rglob("*.log")]:
        assert " 0 translated" in log.read_text(), log
