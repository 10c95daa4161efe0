"""The seed study: seeded run and model names, what a seed run trains and reads, the spread and
sign tables, and the config checks (no Snakemake; the workflow's plan of it: tests/test_targets.py)."""

import copy
import re

import numpy as np
import pandas as pd
import pytest

from conftest import REPO, project_config
from stsynth.core.datasets import select
from stsynth.core.folds import base_model, seed_model, seed_name, with_fold_models
from stsynth.core.paths import EVENT_VECTOR_SOURCES
from stsynth.dcu2016 import fusion_plan
from stsynth.pipeline import plan
from stsynth.pipeline.checks import VECTOR_BASES, ConfigError
from stsynth.pipeline.config_checks import check_config
from stsynth.pipeline.runs import headline_runs, run_comparisons, run_source, runs_of, study_runs
from stsynth.results.seed_study import sign_table, spread_markdown, spread_table

CONFIG = project_config()
DATASETS = plan.datasets_of(CONFIG)
MODELS = plan.paragram_models(CONFIG, DATASETS)
TEST = {d.name: d for d in select(DATASETS, role="test")}


def test_seed_names_have_one_owner_and_combine_with_folds():
    assert seed_name("synthetic", 3) == "synthetic.seed3" and seed_name("synthetic", None) == "synthetic"
    assert seed_model("synthetic.seed3") == ("synthetic", 3) and seed_model("synthetic") == ("synthetic", None)
    assert base_model("minilm-sts.seed2.fold1of2") == "minilm-sts" and base_model("minilm-sts.seed2") == "minilm-sts"
    pattern = re.compile(with_fold_models("synthetic|task-internal"))
    assert all(pattern.fullmatch(name) for name in ["synthetic.seed2", "task-internal.seed12.fold0of2"])
    assert not pattern.fullmatch("synthetic.fold0of2.seed2") and not pattern.fullmatch("other.seed2")


def test_a_seed_model_is_its_model_with_that_seed_and_its_folds_too():
    base = plan.paragram_settings(CONFIG, MODELS, "synthetic")
    seeded = plan.paragram_settings(CONFIG, MODELS, "synthetic.seed4")
    assert base["seed"] == 1 and seeded["seed"] == 4
    assert {k: v for k, v in seeded.items() if k != "seed"} == {k: v for k, v in base.items() if k != "seed"}
    fold = plan.paragram_settings(CONFIG, MODELS, "synthetic.seed4.fold1of2")
    assert fold["seed"] == 4 and fold["holdout"] == {"folds": 2, "fold": 1} and fold["dev_years"] == []
    with pytest.raises(KeyError, match="'nope' is not a paragram model"):
        plan.paragram_settings(CONFIG, MODELS, "nope.seed2")


def test_a_seeded_tuned_encoder_starts_from_its_start_models_same_seed():
    settings = plan.tuned_encoder_settings(CONFIG, "minilm-sts-synthetic.seed3.fold0of2")
    assert settings["seed"] == 3 and settings["start"] == "minilm-sts.seed3.fold0of2"
    named_start = plan.tuned_encoder_settings(CONFIG, "minilm-sts.seed3")
    assert named_start["seed"] == 3 and named_start["start"] == "minilm"  # a named encoder is no one's seed


def test_the_study_repeats_each_run_with_every_trained_part_seeded():
    runs = runs_of(CONFIG)
    study = plan.seed_study_runs(CONFIG)
    assert study["fusion"] == ["fusion.seed2", "fusion.seed3", "fusion.seed4", "fusion.seed5"]
    assert runs["synthetic.seed2"].model == "synthetic.seed2" and runs["synthetic.seed2"].seed_of == "synthetic"
    assert (
        run_source(runs["synthetic-per-set.seed5"], TEST["news"])
        == "resources/similarity/synthetic-per-set-2016-news.seed5/2016/news.parquet"
    )
    # never in `all`, and read by the study's own table rather than listed among the study runs
    seeded = {name for names in study.values() for name in names}
    assert not seeded & set(headline_runs(CONFIG)) and not seeded & set(study_runs(CONFIG))
    # a fusion seed run: its paragram models (final, dev and their folds) and its regressor seeded, a named encoder not
    splits = fusion_plan.fusion_splits(CONFIG, runs["fusion-encoder.seed3"], DATASETS)
    tables = {path for entries in splits.values() for entry in entries for _, paths in entry.paragram for path in paths}
    assert {path.split("/")[2] for path in tables} == {
        "task-internal.seed3",
        "synthetic.seed3",
        "task-internal.seed3.fold0of2",
        "task-internal.seed3.fold1of2",
        "synthetic.seed3.fold0of2",
        "synthetic.seed3.fold1of2",
        "task-internal-dev.seed3",
        "synthetic-dev.seed3",
        "task-internal-dev.seed3.fold0of2",
        "task-internal-dev.seed3.fold1of2",
        "synthetic-dev.seed3.fold0of2",
        "synthetic-dev.seed3.fold1of2",
    }
    assert {path.split("/")[2] for entries in splits.values() for entry in entries for path in entry.encoder} == {
        "minilm"
    }
    assert fusion_plan.fusion_settings(CONFIG, runs["fusion-encoder.seed3"])["seed"] == 3
    plain = fusion_plan.fusion_settings(CONFIG, runs["fusion-encoder"])  # config fusion and the protocol's splits
    assert {key: value for key, value in plain.items() if key not in ("dev", "train_years")} == CONFIG["fusion"]


def test_a_tuned_run_in_the_study_reads_its_seeded_encoders():
    config = copy.deepcopy(CONFIG)
    config["seed_study"] = {"seeds": [7], "runs": ["encoder-sts", "fusion-tuned"]}
    runs = runs_of(config)
    assert runs["encoder-sts.seed7"].encoder == ("minilm-sts.seed7", "minilm-sts.seed7")
    assert runs["fusion-tuned.seed7"].encoder == ("minilm-sts.seed7", "minilm-sts-dev.seed7")
    config["seed_study"]["runs"] = ["encoder"]  # a named encoder's run: nothing to seed
    with pytest.raises(ValueError, match="seed_study.runs: encoder .stage encoder. trains nothing"):
        runs_of(config)


def test_the_signs_pair_only_runs_paired_seed_by_seed():
    pairs = plan.seed_study_pairs(CONFIG)
    assert ["synthetic", "task-internal"] in pairs and ["fusion-encoder", "fusion"] in pairs
    assert ["fusion-encoder", "encoder"] in pairs  # the named encoder's figure is the same on every seed
    assert ["baseline", "task-internal"] in pairs and ["paragram-raw", "task-internal"] in pairs
    assert ["encoder-sts", "encoder"] in pairs and ["fusion-tuned", "fusion-encoder"] in pairs
    # a run seeds reach but the study leaves out cannot be paired seed by seed
    assert ["encoder-sts-synthetic", "encoder-sts"] in run_comparisons(CONFIG)
    assert not any("encoder-sts-synthetic" in pair or "head-minilm-sts" in pair for pair in pairs)


def score_table(run: str, figures: dict[str, float]) -> pd.DataFrame:
    rows = [
        {"run": run, "track": "en", "group": "2016", "dataset": dataset, "pearson": value}
        for dataset, value in figures.items()
    ]
    rows += [{"run": run, "track": "en", "group": "2016", "dataset": "ALL (mean)", "pearson": 0.0}]
    return pd.DataFrame(rows)


def test_spread_and_signs_over_the_seeds():
    headline = {"a": score_table("a", {"x": 0.70, "ALL": 0.80})}
    seeded = {"a": [score_table("a.seed2", {"x": 0.72, "ALL": 0.82}), score_table("a.seed3", {"x": 0.74, "ALL": 0.78})]}
    spread = spread_table(headline, seeded)
    assert list(spread["dataset"]) == ["x", "ALL"]  # the official rows only
    alls = spread.set_index("dataset").loc["ALL"]
    assert alls["seeds"] == 3 and alls["headline"] == 0.80 and alls["mean"] == pytest.approx(0.80)
    assert alls["sd"] == pytest.approx(np.std([0.80, 0.82, 0.78], ddof=1)) and (alls["min"], alls["max"]) == (
        0.78,
        0.82,
    )
    figures = {"a": [headline["a"], *seeded["a"]], "b": [score_table("b", {"ALL": 0.79})]}
    signs = sign_table([["a", "b"]], figures).iloc[0]
    assert signs["seeds"] == 3 and not signs["same_sign"]  # +0.01, +0.03, -0.01
    assert signs["min"] == pytest.approx(-0.01) and signs["max"] == pytest.approx(0.03)
    figures["b"] = [score_table("b", {"ALL": 0.70})]
    assert sign_table([["a", "b"]], figures).iloc[0]["same_sign"]
    text = spread_markdown(spread, sign_table([["a", "b"]], figures))
    assert "| `a` | en | 2016 | 3 | 0.8000 | 0.8000 ± 0.0200 | 0.7800 – 0.8200 | 0.0200 |" in text
    assert "| `a` − `b` | en | 2016 | 3 | +0.1000 | +0.0800 – +0.1200 | yes |" in text


def test_a_seed_run_missing_a_set_is_named():
    headline = {"a": score_table("a", {"x": 0.7, "ALL": 0.8})}
    with pytest.raises(ValueError, match="a seed run of a lacks sets its headline run scores: en x"):
        spread_table(headline, {"a": [score_table("a.seed2", {"ALL": 0.8})]})


@pytest.mark.parametrize(
    "seeds, runs, message",
    [
        ([2], ["nope"], "seed_study.runs\\[0\\]: 'nope' is not a run in runs"),
        ([2], ["encoder-task-internal"], "seed_study.runs\\[0\\]: encoder-task-internal is a study run"),
        ([2], ["baseline"], "seed_study.runs\\[0\\]: baseline .stage baseline. trains nothing"),
        ([3, 1], ["fusion"], "seed_study.seeds\\[1\\]: 1 is a seed the headline runs use"),
    ],
)
def test_the_config_check_names_a_run_or_seed_the_study_cannot_repeat(seeds, runs, message):
    config = copy.deepcopy(CONFIG)
    config["seed_study"] = {"seeds": seeds, "runs": runs}
    manifest = {line.split("\t")[0] for line in (REPO / CONFIG["corpus"]["manifest"]).read_text().splitlines()[1:]}
    with pytest.raises(ConfigError, match=message):
        check_config(config, manifest, {"encoder", "encoder_token_f1"})


@pytest.mark.parametrize("section, key", [("events", "skipgram"), ("vectors", "ppdb")])
def test_the_config_check_refuses_the_skipgram_and_ppdb_seeds_of_the_headline_runs(section, key):
    config = copy.deepcopy(CONFIG)
    config["seed_study"] = {"seeds": [2, 3], "runs": ["fusion"]}
    (config[section][key]["trainer"] if key == "ppdb" else config[section][key])["seed"] = 3
    manifest = {line.split("\t")[0] for line in (REPO / CONFIG["corpus"]["manifest"]).read_text().splitlines()[1:]}
    with pytest.raises(
        ConfigError,
        match="seed_study.seeds\\[1\\]: 3 is a seed the headline runs use .*events.skipgram.seed, "
        "vectors.ppdb.trainer.seed",
    ):
        check_config(config, manifest, {"encoder", "encoder_token_f1"})


def test_check_docs_reads_its_tolerances_from_the_block_this_module_writes():
    """The docs check (workflow/tools/doc_marks.py) parses the seed-study block's rows: the writer's format and
    the reader's stay one."""
    import doc_marks

    headline = {"a": score_table("a", {"x": 0.70, "ALL": 0.80})}
    seeded = {"a": [score_table("a.seed2", {"x": 0.76, "ALL": 0.82})]}
    for name in doc_marks.SEED_BLOCKS:
        block = (
            f"<!-- generated: {name} -->\n{spread_markdown(spread_table(headline, seeded), sign_table([], {}))}"
            f"<!-- end generated: {name} -->\n"
        )
        assert doc_marks.tolerances([block]) == {
            "a": pytest.approx({"ALL": 3 * 0.0141, "sets": 3 * 0.0424, "block": name})
        }


def test_a_head_run_in_the_study_seeds_its_head_pe_models_skipgram_vectors_and_ppdb_tuned_vectors():
    """config/sts2017.yaml's study of Table 1: a seeded head run reads the tables of its PE models seeded s
    (final and dev protocol, each starting from the PPDB-tuned vectors seeded s), of its skip-gram vectors
    seeded s (EE, W2V) and of the paragram stand-ins' PPDB tuning seeded s, and its head is seeded s."""

    from stsynth.core.folds import with_seed_models
    from stsynth.sts2017 import head_plan

    config = project_config("config/sts2017.yaml")
    runs = runs_of(config)
    assert plan.seed_study_runs(config)["pe-ee"] == ["pe-ee.seed2", "pe-ee.seed3", "pe-ee.seed4", "pe-ee.seed5"]
    seeded, headline = runs["pe-ee.seed3"], runs["pe-ee"]
    assert seeded.vectors == ("pe.seed3", "ee.seed3") and seeded.study and seeded.seed_of == "pe-ee"
    assert head_plan.run_tables(config, seeded, "final") == [
        ("paraphrase_cnn", "pe.seed3"),
        ("events", "event-embeddings.seed3"),
    ]
    assert head_plan.run_tables(config, seeded, "dev") == [
        ("paraphrase_cnn", "pe-dev.seed3"),
        ("events", "event-embeddings.seed3"),
    ]
    assert head_plan.run_tables(config, runs["w2v.seed3"], "final") == [("mean", "word2vec.seed3")]
    assert head_plan.run_tables(config, runs["paragram-xxl"], "final") == [("mean", "ppdb-paragram-minilm-static")]
    assert head_plan.run_tables(config, runs["paragram-xxl.seed3"], "final") == [
        ("mean", "ppdb-paragram-minilm-static.seed3")
    ]
    assert head_plan.run_tables(config, runs["paragram-small.seed3"], "dev") == [
        ("mean", "ppdb-paragram-glove-6b-50d.seed3")
    ]
    # the seeded mean treats unknown words as its source's entry says (paragram-xxl: encode), and its vectors
    # are tuned with seed 3 (pair subset and trainer), all else as configured (rule vectors_ppdb_paragram)
    assert head_plan.mean_unknown(config, "ppdb-paragram-minilm-static.seed3") == "encode"
    assert head_plan.mean_unknown(config, "ppdb-paragram-glove-6b-50d.seed3") == "skip"
    ppdb = config["vectors"]["ppdb"]
    assert plan.ppdb_vector_settings(config, "minilm-static") == ppdb
    assert plan.ppdb_vector_settings(config, "minilm-static.seed3") == {
        **ppdb,
        "trainer": {**ppdb["trainer"], "seed": 3},
    }
    assert re.fullmatch(with_seed_models("|".join(VECTOR_BASES)), "glove-6b-50d.seed3")
    assert re.fullmatch(with_seed_models("|".join(EVENT_VECTOR_SOURCES)), "word2vec.seed3")  # rule event_embeddings
    points, base = (
        head_plan.head_settings(config, seeded)["points"],
        head_plan.head_settings(config, headline)["points"],
    )
    assert [p["seed"] for p in points] == [3] * len(base) and [p["seed"] for p in base] == [1] * len(base)
    assert [{k: v for k, v in p.items() if k != "seed"} for p in points] == [
        {k: v for k, v in p.items() if k != "seed"} for p in base
    ]
    assert head_plan.head_settings(config, runs["pe-ee-official.seed3"])["points"][0]["seed"] == 3  # a preset too
    pe, pe_seeded = head_plan.pe_settings(config, "pe-dev"), head_plan.pe_settings(config, "pe-dev.seed3")
    assert pe["seed"] == 1 and pe["vectors"] == "ppdb-paragram-minilm-static"
    assert pe_seeded == {**pe, "seed": 3, "vectors": "ppdb-paragram-minilm-static.seed3"}
    assert (
        head_plan.pe_inputs(config, pe_seeded, plan.datasets_of(config))["vectors"]
        == "resources/vectors/ppdb-paragram-minilm-static.seed3.parquet"
    )
    assert head_plan.pe_settings(config, "pe-minilm-static.seed3")["vectors"] == "minilm-static"  # untrained: no seed
    assert ("paraphrase_cnn", "pe.seed3") in head_plan.vector_tables(config)
    constraint = re.compile(with_seed_models("pe|pe-dev"))
    assert constraint.fullmatch("pe-dev.seed3") and not constraint.fullmatch("pe.seed3.fold0of2")
    assert ["pe-ee", "pe"] in plan.seed_study_pairs(config) and ["pe-ee", "fusion-tuned"] not in plan.seed_study_pairs(
        config
    )
