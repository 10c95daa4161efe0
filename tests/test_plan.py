"""stsynth.pipeline.plan: where each run's scores come from, model settings, fusion splits (no Snakemake)."""

import copy
from pathlib import Path

import pytest

from conftest import REPO, project_config
from stsynth.core.datasets import Dataset, select
from stsynth.dcu2016 import fusion_plan
from stsynth.encoders import encoder
from stsynth.pipeline import plan
from stsynth.pipeline.runs import PER_SET_PREFIX, RUN_STAGES, Run, run_source, runs_of

CONFIG = project_config()
DATASETS = plan.datasets_of(CONFIG)
MODELS = plan.paragram_models(CONFIG, DATASETS)
TEST = {d.name: d for d in select(DATASETS, role="test")}


def test_every_run_names_the_table_its_predictions_come_from():
    runs = runs_of(CONFIG)
    news, headlines = TEST["news"], TEST["headlines"]
    assert run_source(runs["baseline"], headlines) == "resources/pairs/2016/headlines.parquet"
    assert run_source(runs["synthetic"], news) == "resources/similarity/synthetic/2016/news.parquet"
    assert (
        run_source(runs["synthetic-per-set"], news)
        == "resources/similarity/synthetic-per-set-2016-news/2016/news.parquet"
    )
    assert run_source(runs["encoder"], news) == "resources/encoder/minilm/2016/news.parquet"
    assert run_source(runs["fusion-encoder"], news) == "results/fusion/fusion-encoder/predictions.parquet"
    other = Run("other", "external", predictions="their-system/{year}/{dataset}.txt")
    assert run_source(other, news) == "their-system/2016/news.txt"
    # every stage has a shipped run, but external (another system's files: tests/test_scoring.py)
    assert {run.stage for run in runs.values()} == set(RUN_STAGES) - {"external"}


def test_an_unknown_stage_is_named():
    config = copy.deepcopy(CONFIG)
    config["runs"]["odd"] = {"stage": "ensemble"}
    with pytest.raises(ValueError, match="runs.odd.stage: 'ensemble' is not one of"):
        runs_of(config)


def test_model_settings_are_defaults_then_preset_then_entry():
    settings = plan.paragram_settings(CONFIG, MODELS, "task-internal-paper")
    paper = CONFIG["paragram"]["presets"]["paper"]
    assert settings["optimizer"] == paper["optimizer"] == "adadelta" and settings["preset"] == "paper"
    assert settings["vectors"] == CONFIG["paragram"]["defaults"]["vectors"]
    assert settings["pairs"] == ["task-internal"] and settings["holdout"] is None
    raw = plan.paragram_settings(CONFIG, MODELS, "raw")
    assert raw["epochs"] == 0 and raw["optimizer"] == "adam"


def test_a_fold_model_holds_out_its_fold_and_scores_no_dev_sets():
    settings = plan.paragram_settings(CONFIG, MODELS, "synthetic-dev.fold2of5")
    assert settings["holdout"] == {"folds": 5, "fold": 2} and settings["dev_years"] == []
    assert plan.paragram_settings(CONFIG, MODELS, "synthetic-dev")["dev_years"] == [2015]
    with pytest.raises(ValueError, match="fold 5 is not in 0..4"):
        plan.paragram_settings(CONFIG, MODELS, "synthetic.fold5of5")
    with pytest.raises(KeyError, match="'nope' is not a paragram model"):
        plan.paragram_settings(CONFIG, MODELS, "nope.fold1of5")


def test_each_test_set_has_its_own_per_set_model():
    per_set = [name for name in MODELS if name.startswith(PER_SET_PREFIX)]
    assert len(per_set) == len(TEST)
    assert MODELS["synthetic-per-set-2016-news"]["pairs"] == ["synthetic-2016-news"]


def test_a_per_set_rule_writes_the_fitted_sets_in_one_job_and_each_test_group_in_its_own():
    added = Dataset(2017, "sts-test", "en", "test", format="stsb", input="stsbenchmark/sts-test.csv", group="sts-test")
    parts = plan.table_job_parts([*DATASETS, added])
    assert list(parts) == [None, "2016", "sts-test"]
    assert parts[None] == [d for d in DATASETS if d.role != "test"] and parts["sts-test"] == [added]
    assert [d.name for d in parts["2016"]] == list(TEST)  # en and es-en sets alike: one group
    assert plan.table_job_parts(DATASETS) == {key: sets for key, sets in parts.items() if key != "sts-test"}


def test_training_inputs_follow_the_model():
    inputs = plan.training_inputs(plan.paragram_settings(CONFIG, MODELS, "task-internal-dev"), DATASETS)
    assert inputs["pairs"] == ["resources/paraphrase_pairs/task-internal-dev.parquet"]
    assert inputs["vectors"] == "resources/vectors/minilm-static.parquet"
    assert all("/2015/" in path for path in inputs["dev_pairs"]) and len(inputs["dev_pairs"]) == 5
    assert not any("/2016/" in path for path in inputs["unlabeled"])


def test_fusion_training_rows_read_fold_models_and_test_rows_the_final_model():
    runs = runs_of(CONFIG)
    splits = fusion_plan.fusion_splits(CONFIG, runs["fusion-encoder"], DATASETS)
    assert [len(splits[k]) for k in ("dev_train", "dev_validate", "train", "test")] == [17, 5, 22, 7]
    first_train = dict(splits["train"][0].paragram)["paraphrase_synthetic"]
    assert first_train == tuple(
        f"resources/similarity/synthetic.fold{i}of2/2012/MSRpar-train.parquet" for i in range(2)
    )
    news = next(entry for entry in splits["test"] if entry.dataset == "news")
    assert dict(news.paragram)["paraphrase_synthetic"] == ("resources/similarity/synthetic/2016/news.parquet",)
    assert news.encoder == ("resources/encoder/minilm/2016/news.parquet",)
    validate = dict(splits["dev_validate"][0].paragram)["paraphrase_task_internal"]
    assert validate == ("resources/similarity/task-internal-dev/2015/answers-forums.parquet",)
    assert fusion_plan.fusion_split(CONFIG, runs["fusion"], DATASETS[:1], "final", False)[0].encoder == ()
    in_sample = fusion_plan.fusion_splits(CONFIG, runs["fusion"], DATASETS, in_sample="paragram")
    assert dict(in_sample["train"][0].paragram)["paraphrase_synthetic"] == (
        "resources/similarity/synthetic/2012/MSRpar-train.parquet",
    )
    # rule params are plain values, and the job gets the same entries back
    params = fusion_plan.split_params(splits)
    assert params["test"][-1] == {
        "year": 2016,
        "dataset": "multisource",
        "pairs": "resources/pairs/2016/multisource.parquet",
        "features": "resources/features/2016/multisource.parquet",
        "encoder": ["resources/encoder/minilm/2016/multisource.parquet"],
        "paragram": {
            "paraphrase_task_internal": ["resources/similarity/task-internal/2016/multisource.parquet"],
            "paraphrase_synthetic": ["resources/similarity/synthetic/2016/multisource.parquet"],
        },
        "scored_only": False,
    }
    # the training and dev splits are only fitted and scored: their scored lines are all they read
    assert {entry.scored_only for name in ("dev_train", "dev_validate", "train") for entry in splits[name]} == {True}
    assert fusion_plan.splits_from_params(params) == splits
    files = fusion_plan.split_files(splits["test"])
    assert len(files) == len(set(files)) and "resources/features/2016/news.parquet" in files


def test_tuned_encoder_runs_read_their_model_and_its_folds_start_from_the_start_models_folds():
    runs = runs_of(CONFIG)
    news = TEST["news"]
    assert run_source(runs["encoder-sts"], news) == "resources/encoder/minilm-sts/2016/news.parquet"
    sts = plan.tuned_encoder_settings(CONFIG, "minilm-sts")
    assert sts["loss"] == "cosine" and sts["start"] == "minilm" and sts["holdout"] is None
    inputs = plan.tuned_encoder_inputs(CONFIG, sts, DATASETS)
    assert (
        len(inputs["gold"]) == 22 and inputs["pairs"] == [] and inputs["dev"] == [] and inputs["encoder_folder"] == []
    )
    fold = plan.tuned_encoder_settings(CONFIG, "minilm-sts-synthetic.fold1of2")
    assert fold["holdout"] == {"folds": 2, "fold": 1} and fold["start"] == "minilm-sts.fold1of2"
    assert plan.tuned_encoder_inputs(CONFIG, fold, DATASETS)["encoder_folder"] == [
        "resources/models/minilm-sts.fold1of2"
    ]
    dev = plan.tuned_encoder_inputs(CONFIG, plan.tuned_encoder_settings(CONFIG, "minilm-synthetic-dev"), DATASETS)
    assert len(dev["dev"]) == 5 and "resources/paraphrase_pairs/synthetic-2015-images.parquet" in dev["pairs"]
    with pytest.raises(KeyError, match="'minilm-nope' is not a tuned encoder"):
        plan.tuned_encoder_settings(CONFIG, "minilm-nope")


def test_a_fusion_run_with_tuned_encoders_reads_them_out_of_fold_on_training_rows():
    runs = runs_of(CONFIG)
    run = runs["fusion-tuned"]
    assert run.encoder == ("minilm-sts", "minilm-sts-dev")
    # the project's choice (dev protocol): tuned encoder in-sample, paragram out of fold
    assert CONFIG["fusion"]["encoder_folds"] == 0 and fusion_plan.fold_sources(CONFIG, run) == ["paragram"]
    folded = copy.deepcopy(CONFIG)
    folded["fusion"]["encoder_folds"] = 2
    assert fusion_plan.fold_sources(folded, run) == ["paragram", "encoder"]
    assert fusion_plan.fold_sources(folded, runs["fusion-encoder"]) == ["paragram"]
    splits = fusion_plan.fusion_splits(folded, run, DATASETS)
    assert list(splits["train"][0].encoder) == [
        f"resources/encoder/minilm-sts.fold{i}of2/2012/MSRpar-train.parquet" for i in range(2)
    ]
    assert splits["dev_train"][0].encoder[1] == "resources/encoder/minilm-sts-dev.fold1of2/2012/MSRpar-train.parquet"
    assert list(splits["dev_validate"][0].encoder) == ["resources/encoder/minilm-sts-dev/2015/answers-forums.parquet"]
    assert list(splits["test"][-1].encoder) == ["resources/encoder/minilm-sts/2016/multisource.parquet"]
    assert "resources/encoder/minilm-sts.fold0of2/2012/MSRpar-train.parquet" in fusion_plan.split_files(splits["train"])
    in_sample = fusion_plan.fusion_splits(folded, run, DATASETS, in_sample="encoder")
    assert list(in_sample["train"][0].encoder) == ["resources/encoder/minilm-sts/2012/MSRpar-train.parquet"]
    assert len(dict(in_sample["train"][0].paragram)["paraphrase_synthetic"]) == 2  # the other source stays out of fold
    config = copy.deepcopy(CONFIG)
    config["fusion"]["encoder_folds"] = 0
    assert list(fusion_plan.fusion_splits(config, run, DATASETS)["train"][0].encoder) == [
        "resources/encoder/minilm-sts/2012/MSRpar-train.parquet"
    ]


def test_a_named_encoder_gives_a_zero_shot_run_fusion_features_and_a_tuning_start():
    config = copy.deepcopy(CONFIG)
    config["encoder"]["models"]["mpnet"] = {"path": "resources/encoders/mpnet"}
    config["encoder"]["tuning"]["models"]["mpnet-sts"] = {"start": "mpnet"}
    config["fusion"]["encoder_folds"] = 2
    config["runs"] = {
        "mpnet": {"stage": "encoder", "encoder": "mpnet"},
        "fusion-mpnet": {"stage": "fusion", "encoder": "mpnet", "groups": ["ngrams", "encoder"]},
        "mpnet-sts": {"stage": "encoder", "model": "mpnet-sts"},
    }
    config["seed_study"]["runs"] = []
    runs = runs_of(config)
    news = TEST["news"]
    assert run_source(runs["mpnet"], news) == "resources/encoder/mpnet/2016/news.parquet"
    assert run_source(runs["mpnet-sts"], news) == "resources/encoder/mpnet-sts/2016/news.parquet"
    # a named encoder is never trained: read in-sample whatever encoder_folds says
    assert fusion_plan.fold_sources(config, runs["fusion-mpnet"]) == []
    splits = fusion_plan.fusion_splits(config, runs["fusion-mpnet"], DATASETS)
    assert list(splits["train"][0].encoder) == ["resources/encoder/mpnet/2012/MSRpar-train.parquet"]
    assert list(splits["dev_validate"][0].encoder) == ["resources/encoder/mpnet/2015/answers-forums.parquet"]
    # one job per encoder, for exactly the sets something reads: every set for the fusion's encoder,
    # the test sets for a tuned encoder that only a run of stage encoder reads
    tables = fusion_plan.encoder_table_sets(config, DATASETS)
    assert list(tables) == ["mpnet", "mpnet-sts"]
    assert [d for d, _ in tables["mpnet"]] == DATASETS
    assert tables["mpnet-sts"] == [(d, True) for d in DATASETS if d.role == "test"]
    # the tuning starts from the named encoder's folder, its folds too: an input where a rule makes it (so the
    # job waits for it), else known by its bytes (the `model` param) alone
    settings = plan.tuned_encoder_settings(config, "mpnet-sts")
    assert settings["start"] == "mpnet"
    assert plan.tuned_encoder_inputs(config, settings, DATASETS)["encoder_folder"] == []
    made = lambda name: encoder.job_inputs(config, name, made_by_workflow=lambda path: True)
    assert plan.tuned_encoder_inputs(config, settings, DATASETS, made)["encoder_folder"] == ["resources/encoders/mpnet"]
    assert plan.tuned_encoder_settings(config, "mpnet-sts.fold0of2")["start"] == "mpnet"
    # what a job opens: stsynth.encoders.encoder, for every rule that loads an encoder
    assert encoder.job_entry(config, "mpnet") == {"name": "mpnet", "path": "resources/encoders/mpnet"}
    assert encoder.job_entry(config, "mpnet-sts.fold1of2") == {"tuned": "mpnet-sts.fold1of2"}
    assert encoder.job_inputs(config, "mpnet-sts.fold1of2") == ["resources/models/mpnet-sts.fold1of2"]
    assert encoder.job_folder({"tuned": "mpnet-sts"}, ["resources/models/mpnet-sts"]) == Path(
        "resources/models/mpnet-sts"
    )
    with pytest.raises(ValueError, match="no model folder as input"):
        encoder.job_folder({"tuned": "mpnet-sts"}, [])
    config["encoder"]["models"]["mpnet"]["similarity"] = "dot"  # eval-only: left out of `all`'s params
    assert "similarity" not in encoder.job_entry(config, "mpnet")
    assert encoder.job_entry(config, "mpnet", evaluation=True)["similarity"] == "dot"
    # a package or hub encoder lives outside the working directory: no input folder
    assert encoder.job_inputs(CONFIG, "minilm") == []
    assert (
        plan.tuned_encoder_inputs(CONFIG, plan.tuned_encoder_settings(CONFIG, "minilm-sts"), DATASETS)["encoder_folder"]
        == []
    )


def test_the_project_encodes_every_set_with_minilm_and_the_test_sets_with_its_tuned_encoder():
    tables = fusion_plan.encoder_table_sets(CONFIG, DATASETS)
    assert list(tables) == [
        "minilm",
        "minilm-sts",
        "minilm-task-internal",
        "minilm-synthetic",
        "minilm-sts-synthetic",
        "minilm-sts-dev",  # then the seed study's:
        *(f"{tuned}.seed{s}" for tuned in ("minilm-sts", "minilm-sts-dev") for s in (2, 3, 4, 5)),
    ]
    # a seeded encoder encodes what its unseeded one does
    assert tables["minilm-sts.seed3"] == tables["minilm-sts"]
    assert [d for d, _ in tables["minilm"]] == DATASETS
    assert [d for d, _ in tables["minilm-synthetic"]] == list(TEST.values())
    # every line of a test set (its predictions), the scored lines of a set that is only fitted and scored
    assert all(every_line == (d.role == "test") for d, every_line in tables["minilm"])
    # the dev-protocol tuned encoder: the fusion's dev splits only (2012-2015), never a test set
    assert {(d.role, every_line) for d, every_line in tables["minilm-sts-dev"]} == {("train", False)}


def test_a_head_run_reads_dev_tables_on_dev_splits_and_final_ones_on_train_and_test():
    from stsynth.sts2017 import head_plan

    runs = runs_of(CONFIG)
    assert run_source(runs["head-minilm-sts"], TEST["news"]) == "results/head/head-minilm-sts/predictions.parquet"
    splits = head_plan.head_splits(CONFIG, runs["head-minilm-sts"], DATASETS)
    by_split = {split: {f"{e['year']}/{e['dataset']}": e for e in entries} for split, entries in splits.items()}
    assert set(by_split["dev_validate"]) == {
        f"2015/{n}" for n in ("answers-forums", "answers-students", "belief", "headlines", "images")
    }
    assert by_split["dev_train"]["2014/images"]["vectors"] == [
        "resources/sentence_vectors/encoder/minilm-sts-dev/2014/images.parquet"
    ]
    assert by_split["train"]["2015/images"]["vectors"] == [
        "resources/sentence_vectors/encoder/minilm-sts/2015/images.parquet"
    ]
    assert set(by_split["test"]) == {f"2016/{name}" for name in TEST}
    assert ("encoder", "minilm") in head_plan.vector_tables(CONFIG)
    assert head_plan.tables_of_kind(CONFIG, "encoder") == ["minilm", "minilm-sts", "minilm-sts-dev"]


def test_head_settings_are_the_grid_over_the_defaults_or_a_fixed_preset():
    from stsynth.sts2017 import head_plan

    config = copy.deepcopy(CONFIG)
    config["runs"]["tai"] = {"stage": "head", "vectors": ["minilm"], "preset": "tai"}
    runs = runs_of(config)
    grid = head_plan.head_settings(config, runs["head-minilm"])
    assert grid["choose_epochs"] and len(grid["points"]) == 4
    assert {(p["hidden"], p["learning_rate"]) for p in grid["points"]} == {
        (50, 0.01),
        (150, 0.01),
        (50, 0.05),
        (150, 0.05),
    }
    fixed = head_plan.head_settings(config, runs["tai"])
    assert not fixed["choose_epochs"] and fixed["points"] == [
        {**CONFIG["head"]["defaults"], **CONFIG["head"]["presets"]["tai"]}
    ]


def test_paraphrase_embedding_models_read_their_pairs_gold_and_dev_sets():
    from stsynth.pipeline.overlays import resolved_config
    from stsynth.sts2017 import head_plan

    # the 2017 system (config/sts2017.yaml) on the 2016 protocol: its PE twin learns from 2012-2014, scored on 2015
    config = resolved_config([REPO / "config.yaml", REPO / "config/sts2017.yaml"], {"protocol": "semeval2016"})
    settings = head_plan.pe_settings(config, "pe-dev")
    inputs = head_plan.pe_inputs(config, settings, DATASETS)
    assert inputs["pairs"] == ["resources/paraphrase_pairs/task-internal-dev.parquet"] and inputs["ppdb"] == []
    assert "resources/pairs/2015/belief.parquet" in inputs["dev_pairs"]
    assert all("/2015/" not in path and "/2016/" not in path for path in inputs["gold_pairs"])
    assert head_plan.pe_inputs(config, {**settings, "ppdb_pairs": 10}, DATASETS)["ppdb"] == [
        "resources/corpus/ppdb/ppdb-xl-lexical.txt"
    ]
    points = head_plan.pe_grid_points(config)
    assert len(points) == 8 and {p["delta"] for p in points} == {0.4, 1.0}
    with pytest.raises(KeyError, match="not a paraphrase-embedding model"):
        head_plan.pe_settings(config, "pe-typo")


def test_the_vocabulary_reads_the_sets_its_setting_names():
    config = copy.deepcopy(CONFIG)
    names = lambda: {(d.year, d.name) for d in plan.vocabulary_datasets(config, DATASETS)}
    train = {(d.year, d.name) for d in select(DATASETS, role="train")}
    config["vectors"]["minilm-static"]["vocabulary"] = "training"
    assert names() == train and not any(year == 2016 for year, _ in names())  # no test sentence read
    config["vectors"]["minilm-static"]["vocabulary"] = "all"
    assert names() == {(d.year, d.name) for d in DATASETS}
    config["vectors"]["minilm-static"]["vocabulary"] = "dev-training"  # the dev analog (config/vocabulary-dev.yaml)
    assert names() == {(y, n) for y, n in train if y in (2012, 2013, 2014)}  # the protocol's train sets, read from it
    assert config["vectors"]["minilm-static"]["vocabulary"] == "dev-training"  # resolve writes no years back


def test_fold_model_names_have_one_owner():
    from stsynth.core.folds import base_model, fold_model, fold_names, with_fold_models

    names = fold_names("synthetic", 3)
    assert names == ["synthetic.fold0of3", "synthetic.fold1of3", "synthetic.fold2of3"]
    assert [fold_model(name, "paragram model") for name in names[:2]] == [
        ("synthetic", {"folds": 3, "fold": 0}),
        ("synthetic", {"folds": 3, "fold": 1}),
    ]
    assert fold_model("synthetic", "paragram model") == ("synthetic", None)
    assert base_model("minilm-sts.fold3of2") == "minilm-sts" and base_model("minilm") == "minilm"
    with pytest.raises(ValueError, match="fold 3 is not in 0..2"):
        fold_model("synthetic.fold3of3", "paragram model")
    import re

    pattern = re.compile(with_fold_models("synthetic|task-internal"))
    assert all(pattern.fullmatch(name) for name in [*names, "task-internal", "task-internal.fold1of2"])
    assert not pattern.fullmatch("synthetic.fold1") and not pattern.fullmatch("other.fold0of2")
