"""stsynth.plan: where each run's scores come from, model settings, fusion splits (no Snakemake)."""
import copy

import pytest
import yaml

from conftest import REPO
from stsynth import plan

CONFIG = yaml.safe_load((REPO / "config.yaml").read_text())
DATASETS = plan.datasets_of(CONFIG)
MODELS = plan.paragram_models(CONFIG, DATASETS)
TEST = {d.name: d for d in plan.select(DATASETS, role="test")}


def test_every_run_names_the_table_its_predictions_come_from():
    runs = plan.runs_of(CONFIG)
    news, headlines = TEST["news"], TEST["headlines"]
    assert plan.run_source(runs["baseline"], headlines) == "resources/pairs/2016/headlines.parquet"
    assert plan.run_source(runs["synthetic"], news) == "resources/similarity/synthetic/2016/news.parquet"
    assert plan.run_source(runs["synthetic-per-set"], news) == \
        "resources/similarity/synthetic-per-set-2016-news/2016/news.parquet"
    assert plan.run_source(runs["encoder"], news) == "resources/encoder/2016/news.parquet"
    assert plan.run_source(runs["fusion-encoder"], news) == "results/fusion/fusion-encoder/predictions.parquet"
    other = plan.Run("other", "external", predictions="their-system/{year}/{dataset}.txt")
    assert plan.run_source(other, news) == "their-system/2016/news.txt"
    # every stage has a shipped run, but external (another system's files: tests/test_scoring.py)
    assert {run.stage for run in runs.values()} == set(plan.RUN_STAGES) - {"external"}


def test_an_unknown_stage_is_named():
    config = copy.deepcopy(CONFIG)
    config["runs"]["odd"] = {"stage": "ensemble"}
    with pytest.raises(ValueError, match="runs.odd.stage: 'ensemble' is not one of"):
        plan.runs_of(config)


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
    per_set = [name for name in MODELS if name.startswith(plan.PER_SET_PREFIX)]
    assert len(per_set) == len(TEST)
    assert MODELS["synthetic-per-set-2016-news"]["pairs"] == ["synthetic-2016-news"]


def test_training_inputs_follow_the_model():
    inputs = plan.training_inputs(plan.paragram_settings(CONFIG, MODELS, "task-internal-dev"), DATASETS)
    assert inputs["pairs"] == ["resources/paraphrase_pairs/task-internal-dev.parquet"]
    assert inputs["vectors"] == "resources/vectors/minilm-static.parquet"
    assert all("/2015/" in path for path in inputs["dev_pairs"]) and len(inputs["dev_pairs"]) == 5
    assert not any("/2016/" in path for path in inputs["unlabeled"])


def test_fusion_training_rows_read_fold_models_and_test_rows_the_final_model():
    runs = plan.runs_of(CONFIG)
    splits = plan.fusion_splits(CONFIG, runs["fusion-encoder"], DATASETS)
    assert [len(splits[k]) for k in ("dev_train", "dev_validate", "train", "test")] == [17, 5, 22, 7]
    first_train = splits["train"][0]["paragram"]["paraphrase_synthetic"]
    assert first_train == [f"resources/similarity/synthetic.fold{i}of2/2012/MSRpar-train.parquet" for i in range(2)]
    news = next(entry for entry in splits["test"] if entry["dataset"] == "news")
    assert news["paragram"]["paraphrase_synthetic"] == ["resources/similarity/synthetic/2016/news.parquet"]
    assert news["encoder"] == "resources/encoder/2016/news.parquet"
    validate = splits["dev_validate"][0]["paragram"]["paraphrase_task_internal"]
    assert validate == ["resources/similarity/task-internal-dev/2015/answers-forums.parquet"]
    assert plan.fusion_split(CONFIG, runs["fusion"], DATASETS[:1], "final", False)[0]["encoder"] is None
    in_sample = plan.fusion_splits(CONFIG, runs["fusion"], DATASETS, in_sample="paragram")
    assert in_sample["train"][0]["paragram"]["paraphrase_synthetic"] == \
        ["resources/similarity/synthetic/2012/MSRpar-train.parquet"]
    files = plan.split_files(splits["test"])
    assert len(files) == len(set(files)) and "resources/features/2016/news.parquet" in files


def test_tuned_encoder_runs_read_their_model_and_its_folds_start_from_the_start_models_folds():
    runs = plan.runs_of(CONFIG)
    news = TEST["news"]
    assert plan.run_source(runs["encoder-sts"], news) == "resources/encoder-tuned/minilm-sts/2016/news.parquet"
    sts = plan.tuned_encoder_settings(CONFIG, "minilm-sts")
    assert sts["loss"] == "cosine" and sts["start"] is None and sts["holdout"] is None
    inputs = plan.tuned_encoder_inputs(sts, DATASETS)
    assert len(inputs["gold"]) == 22 and inputs["pairs"] == [] and inputs["dev"] == [] and "start" not in inputs
    fold = plan.tuned_encoder_settings(CONFIG, "minilm-sts-synthetic.fold1of2")
    assert fold["holdout"] == {"folds": 2, "fold": 1} and fold["start"] == "minilm-sts.fold1of2"
    assert plan.tuned_encoder_inputs(fold, DATASETS)["start"] == "resources/models/minilm-sts.fold1of2"
    dev = plan.tuned_encoder_inputs(plan.tuned_encoder_settings(CONFIG, "minilm-synthetic-dev"), DATASETS)
    assert len(dev["dev"]) == 5 and "resources/paraphrase_pairs/synthetic-2015-images.parquet" in dev["pairs"]
    with pytest.raises(KeyError, match="'minilm-nope' is not a tuned encoder"):
        plan.tuned_encoder_settings(CONFIG, "minilm-nope")


def test_a_fusion_run_with_tuned_encoders_reads_them_out_of_fold_on_training_rows():
    runs = plan.runs_of(CONFIG)
    run = runs["fusion-tuned"]
    assert run.encoder == ("minilm-sts", "minilm-sts-cosine-lr5e-5-dev")
    # the project's choice (issue 23, dev protocol): tuned encoder in-sample, paragram out of fold
    assert CONFIG["fusion"]["encoder_folds"] == 0 and plan.fold_sources(CONFIG, run) == ["paragram"]
    folded = copy.deepcopy(CONFIG)
    folded["fusion"]["encoder_folds"] = 2
    assert plan.fold_sources(folded, run) == ["paragram", "encoder"]
    assert plan.fold_sources(folded, runs["fusion-encoder"]) == ["paragram"]
    splits = plan.fusion_splits(folded, run, DATASETS)
    assert splits["train"][0]["encoder"] == [f"resources/encoder-tuned/minilm-sts.fold{i}of2/2012/MSRpar-train.parquet"
                                             for i in range(2)]
    assert splits["dev_train"][0]["encoder"][1] == \
        "resources/encoder-tuned/minilm-sts-cosine-lr5e-5-dev.fold1of2/2012/MSRpar-train.parquet"
    assert splits["dev_validate"][0]["encoder"] == "resources/encoder-tuned/minilm-sts-cosine-lr5e-5-dev/2015/answers-forums.parquet"
    assert splits["test"][-1]["encoder"] == "resources/encoder-tuned/minilm-sts/2016/multisource.parquet"
    assert "resources/encoder-tuned/minilm-sts.fold0of2/2012/MSRpar-train.parquet" in plan.split_files(splits["train"])
    in_sample = plan.fusion_splits(folded, run, DATASETS, in_sample="encoder")
    assert in_sample["train"][0]["encoder"] == "resources/encoder-tuned/minilm-sts/2012/MSRpar-train.parquet"
    assert len(in_sample["train"][0]["paragram"]["paraphrase_synthetic"]) == 2  # the other source stays out of fold
    config = copy.deepcopy(CONFIG)
    config["fusion"]["encoder_folds"] = 0
    assert plan.fusion_splits(config, run, DATASETS)["train"][0]["encoder"] == \
        "resources/encoder-tuned/minilm-sts/2012/MSRpar-train.parquet"
