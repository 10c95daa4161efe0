"""The fusion regressor: out-of-fold paragram columns, dev search, pickle-free export, ablation;
and the features -> encoder -> fusion runs end to end on the tiny fixture corpus."""

import numpy as np
import pandas as pd
import pytest

from stsynth.core.paraphrase_pairs import fold_of
from stsynth.dcu2016 import fusion as Fu
from stsynth.dcu2016 import fusion_studies
from stsynth.results.plots import plot_importances


def synthetic_frame(rng, datasets, rows=60, noise=0.5):
    """Pairs whose gold depends on x1 (strongly) and x2 (weakly); x3 is noise."""
    frames = []
    for year, name, track in datasets:
        x = rng.normal(size=(rows, 3))
        gold = np.clip(2.5 + 1.2 * x[:, 0] + 0.4 * x[:, 1] + noise * rng.normal(size=rows), 0, 5)
        frames.append(
            pd.DataFrame(
                {
                    "year": year,
                    "dataset": name,
                    "track": track,
                    "line": np.arange(1, rows + 1),
                    "gold": gold,
                    "x1": x[:, 0],
                    "x2": x[:, 1],
                    "x3": x[:, 2],
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


GRID = {"init": [[]], "max_depth": [2, 3], "learning_rate": [0.1], "subsample": [1.0], "max_estimators": 40, "step": 10}


def test_out_of_fold_takes_each_rows_own_fold():
    pairs = pd.DataFrame({"year": [2012] * 20, "dataset": ["d"] * 20, "line": range(1, 21)})
    tables = [pd.DataFrame({"cosine": np.full(20, float(i))}) for i in range(3)]
    values = Fu.out_of_fold(pairs, tables)
    assert list(values) == [float(fold_of(2012, "d", n, 3)) for n in range(1, 21)]
    assert len(set(values)) == 3


def test_dev_search_chooses_the_best_validation_row():
    rng = np.random.default_rng(0)
    train = synthetic_frame(rng, [(2012, "a", "en"), (2014, "b", "en")])
    validate = synthetic_frame(rng, [(2015, "c", "en"), (2015, "d", "en")])
    table = Fu.dev_search(train, validate, ["x1", "x2", "x3"], GRID, seed=1)
    assert len(table) == 2 * 4 and table["chosen"].sum() == 1
    chosen = table[table["chosen"]].iloc[0]
    assert chosen["pearson_ALL"] == table["pearson_ALL"].max()
    assert {"pearson_2015_c", "pearson_2015_d"} <= set(table.columns)
    assert chosen["pearson_ALL"] == pytest.approx((chosen["pearson_2015_c"] + chosen["pearson_2015_d"]) / 2)
    params = Fu.chosen_parameters(table)
    assert params["n_estimators"] in (10, 20, 30, 40) and params["max_depth"] in (2, 3) and params["init"] == []


def test_dev_search_tries_each_linear_start_the_run_can_use():
    rng = np.random.default_rng(0)
    train = synthetic_frame(rng, [(2012, "a", "en")], rows=120)
    validate = synthetic_frame(rng, [(2015, "c", "en")], rows=60)
    grid = {**GRID, "max_depth": [2], "init": [[], ["x1"], ["x1", "x2"], ["not_in_run"]]}
    table = Fu.dev_search(train, validate, ["x1", "x2", "x3"], grid, seed=1)
    assert list(dict.fromkeys(table["init"])) == ["", "x1", "x1,x2"]  # the start naming a missing feature is skipped
    # gold is linear in x1 and x2: a line through them starts better than the mean, with few trees
    first = table[table["n_estimators"] == 10].set_index("init")["pearson_ALL"]
    assert first["x1,x2"] > first[""]
    assert Fu.chosen_parameters(
        table.assign(chosen=table["init"] == "x1,x2").pipe(
            lambda t: t.assign(chosen=t["chosen"] & (t["n_estimators"] == 10))
        )
    )["init"] == ["x1", "x2"]


def test_export_reproduces_the_fitted_model_without_pickle(tmp_path):
    rng = np.random.default_rng(1)
    train = synthetic_frame(rng, [(2012, "a", "en")], rows=200)
    test = synthetic_frame(rng, [(2016, "t", "en")], rows=50)
    params = {"max_depth": 3, "learning_rate": 0.1, "subsample": 0.8, "n_estimators": 30}
    for init in (["x2", "x1"], []):  # the constant start last: its trees carry x1, checked below
        model = Fu.fit(train, ["x1", "x2", "x3"], {**params, "init": init}, seed=3)
        np.savez_compressed(tmp_path / "model.npz", **Fu.export_model(model, ["x1", "x2", "x3"]))
        with np.load(tmp_path / "model.npz", allow_pickle=False) as arrays:
            restored = Fu.predict_exported(arrays, test[["x1", "x2", "x3"]].to_numpy())
            assert list(arrays["features"]) == ["x1", "x2", "x3"] and list(arrays["init_features"]) == init
            if init:  # the line's slope on x1 is near the generating 1.2
                assert arrays["init_coef"][1] == pytest.approx(1.2, abs=0.3)
        np.testing.assert_allclose(restored, model.predict(test[["x1", "x2", "x3"]].to_numpy()), rtol=0, atol=1e-12)
    importances = Fu.importances(model, ["x1", "x2", "x3"], {"strong": ["x1"], "rest": ["x2", "x3"]})
    assert importances["feature"].iat[0] == "x1" and importances["importance"].sum() == pytest.approx(1.0)
    plot_importances(importances, tmp_path / "importances.png", "test")
    assert (tmp_path / "importances.png").stat().st_size > 1000


def test_ablation_removes_each_group_and_scores_each_track():
    rng = np.random.default_rng(2)
    dev_train = synthetic_frame(rng, [(2012, "a", "en")], rows=150)
    dev_validate = synthetic_frame(rng, [(2015, "b", "en")], rows=80)
    train = pd.concat([dev_train, dev_validate], ignore_index=True)
    test = synthetic_frame(rng, [(2016, "t", "en"), (2016, "n", "es-en")], rows=80)
    params = {"init": ["x1"], "max_depth": 2, "learning_rate": 0.1, "subsample": 1.0, "n_estimators": 40}
    groups = {"strong": ["x1"], "weak": ["x2"], "noise": ["x3"], "absent": ["x9"]}
    table = fusion_studies.ablation(
        dev_train,
        dev_validate,
        train,
        test,
        ["x1", "x2", "x3"],
        groups,
        params,
        seed=1,
        variants={"same data": (train, dev_train)},
    )
    assert list(table["removed"]) == ["none", "strong", "weak", "noise", "same data"]  # "absent" is not in the run
    assert {"test_en_ALL", "test_es-en_ALL", "dev_ALL"} <= set(table.columns)
    by_name = table.set_index("removed")
    assert by_name.loc["strong", "dev_ALL"] < by_name.loc["none", "dev_ALL"] - 0.3
    assert by_name.loc["same data", "dev_ALL"] == pytest.approx(by_name.loc["none", "dev_ALL"])


def test_per_dataset_pearson_skips_unscored_rows():
    frame = pd.DataFrame({"year": [2016] * 5, "dataset": ["t"] * 5, "gold": [1.0, 2.0, None, 3.0, 4.0]})
    scores = Fu.per_dataset_pearson(frame, np.array([1.0, 2.0, 100.0, 3.0, 4.0]))
    assert scores["2016_t"] == pytest.approx(1.0) and scores["ALL"] == pytest.approx(1.0)


def test_load_split_rejects_misaligned_tables(tmp_path):
    pairs = pd.DataFrame(
        {
            "year": [2012] * 3,
            "dataset": ["d"] * 3,
            "track": ["en"] * 3,
            "line": [1, 2, 3],
            "s1": ["a"] * 3,
            "s2": ["b"] * 3,
            "gold": [1.0, 2.0, 3.0],
        }
    )
    pairs.to_parquet(tmp_path / "pairs.parquet")
    pairs[["year", "dataset", "line"]].assign(f=[0.1, 0.2, 0.3]).to_parquet(tmp_path / "features.parquet")
    pairs[["year", "dataset", "line"]].iloc[:2].assign(cosine=[0.5, 0.6]).to_parquet(tmp_path / "short.parquet")
    entry = {
        "year": 2012,
        "dataset": "d",
        "pairs": str(tmp_path / "pairs.parquet"),
        "features": str(tmp_path / "features.parquet"),
        "encoder": [],
        "paragram": {},
        "scored_only": False,
    }
    frame = Fu.load_split([entry])
    assert list(frame.columns) == ["year", "dataset", "track", "line", "gold", "f"]
    with pytest.raises(ValueError, match="short.parquet: 2 rows, but the pair table has 3: not row-aligned"):
        Fu.load_split([{**entry, "paragram": {"p": [str(tmp_path / "short.parquet")]}}])


def test_a_training_split_reads_the_scored_lines_and_every_line_it_reads_must_be_encoded(tmp_path):
    pairs = pd.DataFrame(
        {
            "year": [2015] * 4,
            "dataset": ["d"] * 4,
            "track": ["en"] * 4,
            "line": [1, 2, 3, 4],
            "s1": ["a"] * 4,
            "s2": ["b"] * 4,
            "gold": [1.0, None, 3.0, None],
        }
    )
    pairs.to_parquet(tmp_path / "pairs.parquet")
    keys = pairs[["year", "dataset", "line"]]
    keys.assign(f=[0.1, 0.2, 0.3, 0.4]).to_parquet(tmp_path / "features.parquet")
    # a training set's encoder table: its scored lines encoded, the others null (stsynth.encoders.encoder.cosine_table)
    keys.assign(encoder=[0.5, None, 0.7, None], encoder_token_f1=[0.4, None, 0.6, None]).to_parquet(
        tmp_path / "enc.parquet"
    )
    entry = {
        "year": 2015,
        "dataset": "d",
        "pairs": str(tmp_path / "pairs.parquet"),
        "features": str(tmp_path / "features.parquet"),
        "encoder": [str(tmp_path / "enc.parquet")],
        "paragram": {},
        "scored_only": True,
    }
    frame = Fu.load_split([entry])
    assert frame["line"].tolist() == [1, 3] and frame["encoder"].tolist() == [0.5, 0.7]
    # a split that reads every line (a test split) refuses the null lines, naming the first and the table
    with pytest.raises(ValueError, match=r"2015/d: line 2 has no encoder value in .*enc.parquet \(2 such lines\)"):
        Fu.load_split([{**entry, "scored_only": False}])
    # a cross-encoder's table writes no token F1 (null on every line): not a gap, while its score still is one
    keys.assign(encoder=[0.5, None, 0.7, None], encoder_token_f1=np.nan).to_parquet(tmp_path / "enc.parquet")
    frame = Fu.load_split([entry])
    assert frame["encoder"].tolist() == [0.5, 0.7] and frame["encoder_token_f1"].isna().all()
    with pytest.raises(ValueError, match=r"2015/d: line 2 has no encoder value in .*enc.parquet \(2 such lines\)"):
        Fu.load_split([{**entry, "scored_only": False}])


@pytest.mark.workflow
def test_feature_encoder_and_fusion_runs_end_to_end(workspace, tmp_path):
    from conftest import TINY_DATASETS
    from stsynth.core.tokens import tokenize
    from stsynth.dcu2016.features import FEATURES
    from stsynth.encoders.encoder import ENCODER_FEATURES
    from test_encoder import save_tiny_model
    from test_paragram import write_tiny_paragram_zip

    words = sorted({t for d in TINY_DATASETS for s1, s2, _ in d.pairs for t in tokenize(s1) + tokenize(s2)})
    archive = tmp_path / "paragram.zip"
    write_tiny_paragram_zip(archive, words)
    fast = {"epochs": 1, "batch_size": 4}
    workspace.write_config(
        {
            "vectors": {"paragram-xxl": {"url": archive.as_uri()}},
            "paragram": {
                "defaults": {"vectors": "paragram-xxl", "unknown": "rare"},
                "presets": {"dev-chosen": fast, "paper": fast},
            },
            "features": {"vectors": "paragram-xxl"},
            "encoder": {"models": {"tiny": {"path": str(save_tiny_model(tmp_path / "tiny-bert"))}}, "default": "tiny"},
            "fusion": {
                "folds": 2,
                "grid": {
                    "max_depth": [2],
                    "learning_rate": [0.1],
                    "subsample": [1.0],
                    "max_estimators": 20,
                    "step": 10,
                },
                # one paragram model (+ its 2 folds) for both protocols keeps the test small
                "paragram": {"paraphrase_task_internal": {"final": "task-internal", "dev": "task-internal"}},
                "groups": {"paragram": ["paraphrase_task_internal"]},
                "dev_table": {"paragram_models": ["task-internal"]},
            },
        }
    )
    workspace.config["fusion"]["paragram"].pop("paraphrase_synthetic")
    # A predict set (no scores), a local file: every stage treats it as a test set, nothing scores it.
    unlabeled = tmp_path / "unlabeled.tsv"
    unlabeled.write_text("left\tright\nA boy is kicking a ball.\tA boy kicks a ball.\nThe cat sleeps.\tRain.\n")
    workspace.config["datasets"].append(
        {
            "year": 2016,
            "name": "unlabeled",
            "role": "test",
            "track": "en",
            "format": "table",
            "path": str(unlabeled),
            "delimiter": "\t",
            "columns": {"sentence1": "left", "sentence2": "right"},
        }
    )
    workspace.write_config()
    targets = [
        "results/scores/encoder.parquet",
        "results/scores/fusion-encoder.parquet",
        "results/fusion/fusion-encoder/ablation.parquet",
        "results/fusion/fusion-encoder/dev.parquet",  # a study: the fit reads config.yaml's recorded settings
        "results/fusion/dev_table.parquet",
        "results/predictions/fusion-encoder/2016/unlabeled.txt",
    ]
    workspace.snakemake(*targets)
    work = workspace.path
    assert len(np.loadtxt(work / "results/predictions/fusion-encoder/2016/unlabeled.txt")) == 2
    features = pd.read_parquet(work / "resources/features/2016/tinynews.parquet")
    assert list(features.columns) == ["year", "dataset", "line", *FEATURES] and len(features) == 5
    translated = pd.read_parquet(work / "resources/translated/2016/tinynews.parquet")
    assert features["ngram_word_1"].iat[0] > 0  # s1 was translated: it shares words with s2
    assert "hombre" not in translated["s1"].iat[0].lower()
    encoder = pd.read_parquet(work / "resources/encoder/tiny/2016/tinytest.parquet")
    np.testing.assert_allclose(
        np.loadtxt(work / "results/predictions/encoder/2016/tinytest.txt"), 5 * encoder["encoder"], rtol=1e-12
    )
    for run in ("encoder", "fusion-encoder"):
        scores = pd.read_parquet(work / f"results/scores/{run}.parquet").set_index("dataset")
        assert set(scores.index) == {"tinytest", "tinynews", "ALL", "ALL (mean)", "ALL (pooled)"}
        assert scores["pearson"].notna().all()
    fold_log = work / "logs/paragram/train/task-internal.fold1of2.log"
    assert fold_log.is_file()  # training rows' paragram cosines came out of fold
    dev = pd.read_parquet(work / "results/fusion/fusion-encoder/dev.parquet")
    assert dev["chosen"].sum() == 1 and "pearson_2015_tinydev" in dev
    importances = pd.read_parquet(work / "results/fusion/fusion-encoder/importances.parquet")
    assert set(importances["feature"]) == {*FEATURES, "paraphrase_task_internal", *ENCODER_FEATURES}
    assert (work / "results/fusion/fusion-encoder/importances.png").stat().st_size > 1000
    with np.load(work / "results/fusion/fusion-encoder/model.npz", allow_pickle=False) as arrays:
        assert sorted(arrays["features"].tolist()) == sorted(importances["feature"].tolist())
    ablation = pd.read_parquet(work / "results/fusion/fusion-encoder/ablation.parquet")
    assert {"none", "paragram", "encoder", "ngrams", "paragram in-sample"} <= set(ablation["removed"])
    table = pd.read_parquet(work / "results/fusion/dev_table.parquet")
    assert table["system"].tolist() == [
        "features only (GBR)",
        "paragram task-internal (5 x cosine)",
        "features + paragram (GBR)",
    ]
    assert "Nothing to be done" in workspace.snakemake(*targets).stderr


def test_a_grid_point_stops_after_patience_with_the_rows_of_a_full_fit():
    rng = np.random.default_rng(3)
    train = synthetic_frame(rng, [(2012, "a", "en")], rows=200, noise=1.5)
    validate = synthetic_frame(rng, [(2015, "c", "en"), (2015, "d", "en")], rows=80, noise=1.5)
    grid = {**GRID, "max_depth": [3], "learning_rate": [0.3], "subsample": [0.8], "max_estimators": 300, "step": 10}
    full = Fu.dev_search(train, validate, ["x1", "x2", "x3"], {**grid, "patience": None}, seed=1)
    stopped = Fu.dev_search(train, validate, ["x1", "x2", "x3"], {**grid, "patience": 50}, seed=1)
    assert len(full) == 30 and 5 < len(stopped) < 30  # the curve peaks early and declines (overfitting)
    best = int(stopped.loc[stopped["pearson_ALL"].idxmax(), "n_estimators"])
    assert stopped["n_estimators"].max() == best + 50  # no better score for 50 trees: stop
    pd.testing.assert_frame_equal(
        stopped.drop(columns="chosen"), full.iloc[: len(stopped)].drop(columns="chosen")
    )  # the same trees, bit for bit
    assert full[full["chosen"]]["n_estimators"].iat[0] == stopped[stopped["chosen"]]["n_estimators"].iat[0]


def test_the_dev_table_keeps_paragram_and_encoder_columns_out_of_the_features_only_regressor():
    """The paper's Table 1 on dev: the features alone never see a paragram cosine or an encoder similarity,
    the second regressor sees the paragram cosines but no encoder column, and each paragram model is 5 x cosine."""
    from stsynth.encoders.encoder import ENCODER_FEATURES

    rng = np.random.default_rng(3)
    train = synthetic_frame(rng, [(2012, "a", "en"), (2014, "b", "en")], rows=80, noise=0.1)
    validate = synthetic_frame(rng, [(2015, "c", "en"), (2015, "d", "en")], rows=80, noise=0.1)
    encoder = ENCODER_FEATURES[0]
    for frame in (train, validate):  # the gold is read from the paragram column and the encoder's alone
        frame["paragram_pm"] = frame["x1"]
        frame[encoder] = frame["x1"]
        frame["x1"] = rng.normal(size=len(frame))
    features = ["x1", "x2", "x3", "paragram_pm", encoder]
    assert fusion_studies.dev_table_feature_sets(features, ["paragram_pm"]) == {
        "features only (GBR)": ["x1", "x2", "x3"],
        "features + paragram (GBR)": ["x1", "x2", "x3", "paragram_pm"],
    }
    cosines = {"pm": validate[["year", "dataset", "line"]].assign(cosine=validate["gold"] / 5)}
    params = {"init": [], "max_depth": 2, "learning_rate": 0.1, "subsample": 1.0, "n_estimators": 30}
    table = fusion_studies.dev_table(train, validate, features, ["paragram_pm"], params, 1, cosines)
    assert list(table["system"]) == ["features only (GBR)", "paragram pm (5 x cosine)", "features + paragram (GBR)"]
    alone, cosine, with_paragram = table["pearson_ALL"]
    assert alone < 0.5 < with_paragram and cosine == pytest.approx(1.0)
    misaligned = {"pm": cosines["pm"].iloc[::-1].reset_index(drop=True)}
    with pytest.raises(ValueError, match="similarity tables of pm"):
        fusion_studies.dev_table(train, validate, features, ["paragram_pm"], params, 1, misaligned)


def test_a_fusion_run_reads_more_encoders_as_columns_of_their_own(tmp_path):
    """more_encoders: each more encoder's similarities are columns <column>@<encoder> beside the run's own encoder
    columns, in its split entries (the final model's table on the final protocol, the twin's on the dev one), in
    the encoder group (importances, ablation), and a null line of theirs is refused naming their table."""
    from conftest import project_config
    from stsynth.dcu2016 import fusion_plan
    from stsynth.pipeline.plan import datasets_of
    from stsynth.pipeline.runs import runs_of

    config = project_config("config/mpnet.yaml", "config/mpnet-tuned.yaml")
    run = runs_of(config)["fusion-both-tuned"]
    assert run.encoder == ("minilm-sts", "minilm-sts-dev") and run.more_encoders == (("mpnet-sts", "mpnet-sts-dev"),)
    features = fusion_plan.fusion_features(config, run)
    assert features[-4:] == ["encoder", "encoder_token_f1", "encoder@mpnet-sts", "encoder_token_f1@mpnet-sts"]
    assert fusion_plan.fusion_settings(config, run)["groups"]["encoder"] == features[-4:]
    plain = fusion_plan.fusion_settings(config, runs_of(config)["fusion-tuned"])
    assert {key: value for key, value in plain.items() if key not in ("dev", "train_years")} == config["fusion"]
    splits = fusion_plan.fusion_splits(config, run, datasets_of(config))
    assert all(entry.more_encoders[0][1].startswith("resources/encoder/mpnet-sts/") for entry in splits["train"])
    assert all(
        entry.more_encoders[0][1].startswith("resources/encoder/mpnet-sts-dev/") for entry in splits["dev_validate"]
    )
    tables = fusion_plan.encoder_table_sets(config, datasets_of(config))
    assert {d.year for d, _ in tables["mpnet-sts"]} == {2012, 2013, 2014, 2015, 2016}
    assert {d.year for d, _ in tables["mpnet-sts-dev"]} == {2012, 2013, 2014, 2015}  # the dev search's splits

    pairs = pd.DataFrame(
        {
            "year": [2015] * 2,
            "dataset": ["d"] * 2,
            "track": ["en"] * 2,
            "line": [1, 2],
            "s1": ["a"] * 2,
            "s2": ["b"] * 2,
            "gold": [1.0, 3.0],
        }
    )
    pairs.to_parquet(tmp_path / "pairs.parquet")
    keys = pairs[["year", "dataset", "line"]]
    keys.assign(f=[0.1, 0.2]).to_parquet(tmp_path / "features.parquet")
    keys.assign(encoder=[0.5, 0.7], encoder_token_f1=[0.4, 0.6]).to_parquet(tmp_path / "own.parquet")
    keys.assign(encoder=[0.8, 0.9], encoder_token_f1=[0.3, None]).to_parquet(tmp_path / "more.parquet")
    entry = fusion_plan.SplitEntry(
        2015,
        "d",
        str(tmp_path / "pairs.parquet"),
        str(tmp_path / "features.parquet"),
        (str(tmp_path / "own.parquet"),),
        more_encoders=(("mpnet-sts", str(tmp_path / "more.parquet")),),
    )
    assert fusion_plan.SplitEntry.from_param(entry.as_param()) == entry
    assert str(tmp_path / "more.parquet") in entry.files()
    with pytest.raises(ValueError, match=r"line 2 has no encoder_token_f1@mpnet-sts value in .*more\.parquet"):
        Fu.load_split([entry])
    keys.assign(encoder=[0.8, 0.9], encoder_token_f1=[0.3, 0.2]).to_parquet(tmp_path / "more.parquet")
    frame = Fu.load_split([entry])
    assert frame["encoder"].tolist() == [0.5, 0.7] and frame["encoder@mpnet-sts"].tolist() == [0.8, 0.9]
    assert frame["encoder_token_f1@mpnet-sts"].tolist() == [0.3, 0.2]
