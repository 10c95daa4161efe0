import logging
import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import pearsonr

from stsynth.core.correlations import correlations, pearson, weighted_mean
from stsynth.core.datasets import InputFormatError
from stsynth.core.scoring import score_run, scores_markdown, write_predictions
from stsynth.dcu2016.baseline import bag_of_words_cosine


@pytest.mark.parametrize("seed", range(5))
def test_pearson_matches_scipy_on_random_data(seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=200)
    y = 0.3 * x + rng.normal(size=200)
    assert pearson(x, y) == pytest.approx(pearsonr(x, y)[0], abs=1e-12)


def test_weighted_mean():
    assert weighted_mean([0.5, 0.8], [100, 300]) == pytest.approx((50 + 240) / 400)
    with pytest.raises(ValueError):
        weighted_mean([0.5], [0])


def test_score_run_skips_unscored_lines_and_weights_all_by_pairs(tmp_path):
    gold_a = [1.0, None, 3.0, 4.0]
    gold_b = [0.0, 5.0, 2.0]
    tables = [
        pd.DataFrame({"track": "en", "year": 2016, "dataset": "a", "gold": pd.Series(gold_a, dtype="float64")}),
        pd.DataFrame({"track": "en", "year": 2016, "dataset": "b", "gold": pd.Series(gold_b, dtype="float64")}),
    ]
    predictions_a = [1.0, 99.0, 2.0, 4.5]  # the unscored line's prediction must not count
    predictions_b = [1.0, 4.0, 2.0]
    write_predictions(predictions_a, tmp_path / "a.txt")
    write_predictions(predictions_b, tmp_path / "b.txt")
    scores = score_run("toy", tables, [tmp_path / "a.txt", tmp_path / "b.txt"]).set_index("dataset")
    r_a = pearsonr([1.0, 2.0, 4.5], [1.0, 3.0, 4.0])[0]
    r_b = pearsonr(predictions_b, gold_b)[0]
    assert scores.loc["a", "pairs"] == 3 and scores.loc["a", "pearson"] == pytest.approx(r_a)
    assert scores.loc["ALL", "pairs"] == 6
    assert scores.loc["ALL", "pearson"] == pytest.approx((3 * r_a + 3 * r_b) / 6)


def test_predictions_file_must_match_input_length(tmp_path):
    write_predictions([1.0, 2.0], tmp_path / "p.txt")
    table = pd.DataFrame({"track": "en", "year": 2016, "dataset": "a", "gold": [1.0, 2.0, 3.0]})
    with pytest.raises(InputFormatError, match="2 predictions for 3 input lines"):
        score_run("toy", [table], [tmp_path / "p.txt"])


@pytest.mark.parametrize(
    "line, message",
    [
        ("1e308", r"p.txt:2: prediction 1e308 is outside ±1e\+12"),  # Pearson's sums of squares would overflow
        ("-2e12", r"p.txt:2: prediction -2e12 is outside"),
        ("٣.٥", r"p.txt:2: prediction '٣.٥' is not a number"),  # other scripts' digits
        ("nan", r"p.txt:2: prediction 'nan' is not a number"),
    ],
)
def test_predictions_outside_a_finite_range_or_not_plain_numbers_are_refused(tmp_path, line, message):
    from stsynth.core.scoring import read_predictions

    (tmp_path / "p.txt").write_text(f"1.5\n{line}\n")
    with pytest.raises(InputFormatError, match=message):
        read_predictions(tmp_path / "p.txt", 2)
    (tmp_path / "p.txt").write_text("1e11\n-3.5e-05\n")
    assert read_predictions(tmp_path / "p.txt", 2).tolist() == [1e11, -3.5e-05]


def test_bag_of_words_cosine_is_binary_and_case_sensitive():
    assert bag_of_words_cosine("a a b", "a b") == pytest.approx(1.0)
    assert bag_of_words_cosine("A b", "a b") == pytest.approx(0.5)
    assert bag_of_words_cosine("", "a") == 0.0


def test_undefined_pearson_is_nan_never_zero_and_all_says_what_it_left_out(tmp_path, caplog):
    constant = pd.DataFrame(
        {"track": ["en"] * 4, "year": [2016] * 4, "dataset": ["flat"] * 4, "gold": [1.0, 2.0, 3.0, None]}
    )
    varying = pd.DataFrame({"track": ["en"] * 3, "year": [2016] * 3, "dataset": ["fine"] * 3, "gold": [1.0, 2.0, 4.0]})
    write_predictions([0.0, 0.0, 0.0, 0.0], tmp_path / "flat.txt")
    write_predictions([1.0, 2.5, 3.0], tmp_path / "fine.txt")
    assert math.isnan(pearson([0.0, 0.0, 0.0], [1.0, 2.0, 3.0]))
    with caplog.at_level(logging.WARNING):
        scores = score_run("zeros", [constant, varying], [tmp_path / "flat.txt", tmp_path / "fine.txt"])
    assert "run zeros, 2016/flat: Pearson is undefined" in caplog.text
    rows = scores.set_index("dataset")
    assert math.isnan(rows.loc["flat", "pearson"]) and rows.loc["flat", "undefined"] == 1
    assert rows.loc["ALL", "pearson"] == pytest.approx(rows.loc["fine", "pearson"])  # flat is left out
    assert rows.loc["ALL", "pairs"] == 3 and rows.loc["ALL", "undefined"] == 1
    markdown = scores_markdown(scores)
    assert "| flat | 3 | n/a |" in markdown and "ALL leaves out 1 dataset whose" in markdown


def test_correlations_are_per_dataset_then_pair_weighted_over_the_defined_ones():
    rng = np.random.default_rng(4)
    gold_a, gold_b = rng.uniform(0, 5, 30), np.append(rng.uniform(0, 5, 20), [np.nan] * 5)
    pred_a, pred_b = gold_a + rng.normal(0, 1, 30), np.nan_to_num(gold_b) + rng.normal(0, 2, 25)
    rows = correlations([("a", pred_a, gold_a), ("b", pred_b, gold_b), ("flat", np.ones(10), rng.uniform(0, 5, 10))])
    (name_a, n_a, r_a), (_, n_b, r_b), (_, n_flat, r_flat), (all_name, n_all, r_all) = rows
    assert (name_a, n_a, n_b, n_flat, all_name) == ("a", 30, 20, 10, "ALL")
    assert r_a == pytest.approx(pearsonr(pred_a, gold_a)[0], abs=1e-12)
    assert r_b == pytest.approx(pearsonr(pred_b[:20], gold_b[:20])[0], abs=1e-12)  # unscored rows left out
    assert math.isnan(r_flat) and n_all == 50  # the undefined set is out of ALL
    assert r_all == pytest.approx((30 * r_a + 20 * r_b) / 50)
    assert math.isnan(correlations([("flat", np.ones(5), np.arange(5.0))])[-1][2])


def test_three_alls_and_spearman_against_scipy():
    from scipy.stats import spearmanr

    from stsynth.core.correlations import summary

    rng = np.random.default_rng(7)
    gold_a, gold_b = rng.uniform(0, 5, 40), rng.uniform(0, 5, 10)
    pred_a, pred_b = gold_a + rng.normal(0, 1, 40), gold_b + rng.normal(0, 3, 10)
    rows = {row["dataset"]: row for row in summary([("a", pred_a, gold_a), ("b", pred_b, gold_b)])}
    assert list(rows) == ["a", "b", "ALL", "ALL (mean)", "ALL (pooled)"]
    assert rows["a"]["spearman"] == spearmanr(pred_a, gold_a).statistic  # the same floats, to the last bit
    ties = np.round(pred_a), np.round(gold_a * 2) / 2  # average ranks for ties, as scipy's
    assert summary([("t", *ties)])[0]["spearman"] == spearmanr(*ties).statistic
    r_a, r_b = pearsonr(pred_a, gold_a)[0], pearsonr(pred_b, gold_b)[0]
    assert rows["ALL"]["pearson"] == pytest.approx((40 * r_a + 10 * r_b) / 50)
    assert rows["ALL (mean)"]["pearson"] == pytest.approx((r_a + r_b) / 2)
    assert rows["ALL (pooled)"]["pearson"] == pytest.approx(
        pearsonr(np.append(pred_a, pred_b), np.append(gold_a, gold_b))[0]
    )
    assert rows["ALL (pooled)"]["spearman"] == pytest.approx(
        spearmanr(np.append(pred_a, pred_b), np.append(gold_a, gold_b)).statistic
    )
    assert rows["ALL (mean)"]["spearman"] == pytest.approx((rows["a"]["spearman"] + rows["b"]["spearman"]) / 2)
    assert all(rows[name]["pairs"] == 50 for name in ("ALL", "ALL (mean)", "ALL (pooled)"))


def test_bootstrap_interval_is_seeded_covers_the_estimate_and_narrows_with_more_pairs():
    from stsynth.core.bootstrap import bootstrap_all, interval

    rng = np.random.default_rng(3)

    def sets(n):
        gold = rng.uniform(0, 5, n)
        return [("2016/a", gold + rng.normal(0, 1.5, n), gold)]

    small, large = sets(60), sets(2000)
    once, again = bootstrap_all(small, 2000, seed=1), bootstrap_all(small, 2000, seed=1)
    np.testing.assert_array_equal(once, again)
    assert not np.array_equal(once, bootstrap_all(small, 2000, seed=2))
    low, high = interval(once, 0.95)
    assert low < correlations(small)[-1][2] < high
    large_low, large_high = interval(bootstrap_all(large, 2000, seed=1), 0.95)
    assert large_high - large_low < (high - low) / 3


def test_paired_bootstrap_finds_a_real_difference_and_not_a_null_one():
    from stsynth.core.bootstrap import paired_bootstrap

    rng = np.random.default_rng(11)
    gold = rng.uniform(0, 5, 300)
    good, bad = gold + rng.normal(0, 0.8, 300), gold + rng.normal(0, 2.5, 300)
    sets = lambda predictions: [("2016/a", predictions[:150], gold[:150]), ("2016/b", predictions[150:], gold[150:])]
    better = paired_bootstrap(sets(good), sets(bad), 2000, 1, 0.95)
    assert better["difference"] > 0 and better["ci_low"] > 0 and better["significant"] and better["p_value"] < 0.01
    same = paired_bootstrap(sets(good), sets(good + 1e-9 * rng.normal(size=300)), 2000, 1, 0.95)
    assert not same["significant"] and same["p_value"] > 0.05
    with pytest.raises(ValueError, match="same datasets"):
        paired_bootstrap(sets(good), sets(bad)[::-1], 100, 1, 0.95)


def test_compare_runs_pairs_runs_per_track_and_group(tmp_path):
    from stsynth.core.scoring import compare_runs, comparisons_markdown

    rng = np.random.default_rng(5)
    tables, predictions = [], {"good": [], "noisy": []}
    for name, track in (("a", "en"), ("b", "en"), ("c", "es-en")):
        gold = rng.uniform(0, 5, 80)
        tables.append(pd.DataFrame({"track": track, "year": 2016, "dataset": name, "gold": gold}))
        for run, noise in (("good", 0.5), ("noisy", 3.0)):
            write_predictions(gold + rng.normal(0, noise, 80), tmp_path / f"{run}-{name}.txt")
            predictions[run].append(tmp_path / f"{run}-{name}.txt")
    bootstrap = {"resamples": 500, "seed": 1, "confidence": 0.95}
    table = compare_runs([("good", "noisy")], tables, predictions, {"2016/a": "x", "2016/b": "x"}, bootstrap)
    assert table[["metric", "track", "group", "pairs"]].values.tolist() == [
        ["pearson", "en", "x", 160],
        ["pearson", "es-en", "2016", 80],
        ["spearman", "en", "x", 160],
        ["spearman", "es-en", "2016", 80],
    ]
    assert table["significant"].all() and (table["difference"] > 0).all()
    assert "| good | noisy | spearman | en | x |" in comparisons_markdown(table, bootstrap)


def test_spearman_gets_intervals_and_paired_tests_like_pearson(tmp_path):
    """MTEB's main STS score: every dataset and the official ALL get a Spearman interval, and two runs
    a paired Spearman test, from the same resamples as Pearson (so Pearson's figures do not move)."""
    from scipy.stats import spearmanr

    from stsynth.core.bootstrap import bootstrap_sets, interval, paired_bootstrap
    from stsynth.core.scoring import compare_runs, score_run

    rng = np.random.default_rng(7)
    tables, paths = [], {"good": [], "noisy": []}
    for name, n in (("a", 120), ("b", 60)):
        gold = rng.uniform(0, 5, n)
        tables.append(pd.DataFrame({"track": "en", "year": 2016, "dataset": name, "gold": gold}))
        for run, noise in (("good", 0.6), ("noisy", 2.5)):
            write_predictions(gold + rng.normal(0, noise, n), tmp_path / f"{run}-{name}.txt")
            paths[run].append(tmp_path / f"{run}-{name}.txt")
    bootstrap = {"resamples": 1000, "seed": 3, "confidence": 0.95}
    scores = score_run("good", tables, paths["good"], None, bootstrap).set_index("dataset")
    for row in ("a", "b", "ALL", "ALL (mean)"):
        for metric in ("pearson", "spearman"):
            assert scores.loc[row, f"{metric}_ci_low"] < scores.loc[row, metric] < scores.loc[row, f"{metric}_ci_high"]
    assert np.isnan(scores.loc["ALL (pooled)", "spearman_ci_low"])  # not defined by within-dataset resampling
    # one resample's Spearman is scipy's on the resampled pairs
    sets = [(f"2016/{t['dataset'].iat[0]}", np.loadtxt(p), t["gold"].to_numpy()) for t, p in zip(tables, paths["good"])]
    resampled = bootstrap_sets(sets, 3, 3)
    index = np.random.default_rng([3, __import__("zlib").crc32(b"2016/a")]).integers(0, 120, size=(3, 120))
    x, y = sets[0][1][index[1]], sets[0][2][index[1]]
    assert resampled["spearman"]["datasets"][0][1] == pytest.approx(spearmanr(x, y).statistic, abs=1e-12)
    # the Pearson interval is what it was before Spearman joined (the same draws)
    assert (scores.loc["ALL", "pearson_ci_low"], scores.loc["ALL", "pearson_ci_high"]) == interval(
        bootstrap_sets(sets, 1000, 3)["pearson"]["ALL"], 0.95
    )
    table = compare_runs([("good", "noisy")], tables, paths, None, bootstrap)
    assert table["metric"].tolist() == ["pearson", "spearman"] and table["significant"].all()
    noisy = [(key, np.loadtxt(p), gold) for (key, _, gold), p in zip(sets, paths["noisy"])]
    spearman_test = paired_bootstrap(sets, noisy, 1000, 3, 0.95, metric="spearman")
    assert spearman_test["difference"] == pytest.approx(table.iloc[1]["difference"])


@pytest.mark.workflow
def test_another_systems_predictions_are_a_run_and_compared(workspace, tmp_path):
    """An external run: prediction files from outside the pipeline, scored and paired with ours."""
    from conftest import TINY_DATASETS

    rng = np.random.default_rng(2)
    for d in TINY_DATASETS:
        if d.role == "test":
            path = tmp_path / "other-system" / str(d.year) / f"{d.name}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(f"{value:.3f}\n" for value in rng.uniform(0, 5, len(d.pairs))))
    workspace.keep_runs(
        {
            "baseline": {"stage": "baseline"},
            "other": {"stage": "external", "predictions": str(tmp_path / "other-system/{year}/{dataset}.txt")},
        }
    )
    workspace.config["scoring"]["compare"] = {"reference": "baseline", "pairs": [["other", "baseline"]]}
    workspace.write_config()
    workspace.snakemake("results/scores/comparisons.md", "results/scores/other.parquet")
    comparisons = pd.read_parquet(workspace.path / "results/scores/comparisons.parquet")
    assert set(zip(comparisons["run"], comparisons["against"], comparisons["metric"])) == {
        ("other", "baseline", "pearson"),
        ("other", "baseline", "spearman"),
    }
    scores = pd.read_parquet(workspace.path / "results/scores/other.parquet")
    assert set(scores["dataset"]) >= {"tinytest", "tinynews", "ALL"}
    copied = workspace.path / "results/predictions/other/2016/tinytest.txt"
    np.testing.assert_array_equal(np.loadtxt(copied), np.loadtxt(tmp_path / "other-system/2016/tinytest.txt"))
    workspace.keep_runs({"other": {"stage": "external", "predictions": str(tmp_path / "one-file.txt")}})
    workspace.write_config()
    refused = workspace.snakemake("-n", "results/scores/other.parquet", check=False)
    assert refused.returncode != 0 and "runs.other.predictions" in refused.stdout + refused.stderr


@pytest.mark.parametrize(
    "values",
    [
        np.round(np.random.default_rng(1).uniform(0, 5, 300), 1),  # gold-like: many ties
        np.random.default_rng(2).normal(size=300),  # predictions: none
        np.array([2.5]),
        np.array([1.0, 1.0, 1.0]),  # one value; all tied
    ],
)
def test_counted_ranks_are_rankdatas_floats(values):
    """The bootstrap ranks each resample by counting draws (stsynth.core.bootstrap.resampled_ranks): the same
    float64 array as scipy's rankdata of the resampled values, ties averaged, a NaN's row NaN as rankdata's."""
    from scipy.stats import rankdata

    from stsynth.core.bootstrap import resampled_ranks

    index = np.random.default_rng(3).integers(0, len(values), size=(40, len(values)))
    counted = resampled_ranks(values, index)
    assert counted.dtype == np.float64
    np.testing.assert_array_equal(counted, rankdata(values[index], axis=1))
    with_nan = np.append(values, np.nan)
    index = np.random.default_rng(4).integers(0, len(with_nan), size=(40, len(with_nan)))
    np.testing.assert_array_equal(resampled_ranks(with_nan, index), rankdata(with_nan[index], axis=1))
