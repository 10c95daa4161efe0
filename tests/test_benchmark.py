"""Your own benchmark end to end: three files named nothing like STS's and a protocol of a few lines (the README's
"Bring your own benchmark"), under config.yaml and config/sts2017.yaml, build every headline run of both systems,
each search choosing on the benchmark's dev set; small models keep it tiny (the test's own overlay)."""

import re
import shutil

import pandas as pd
import pytest
import yaml

from conftest import (
    DEV_PAIRS,
    REPO,
    SHARED_CORPUS,
    SMALL_MINILM_STATIC,
    TEST_PAIRS,
    TINY_FUSION_GRID,
    TRAIN_PAIRS,
    Workspace,
    copy_of,
    shared_build,
)
from stsynth.pipeline import plan
from stsynth.pipeline.overlays import declared_config, resolved_config
from stsynth.pipeline.runs import headline_runs

# the overlay a user writes: a protocol and three files, in a format of their own (a tab-separated table)
MINE = """\
protocol: koala
protocols: {koala: {train: [koala-train], dev: [koala-dev], test: [koala-test]}}
extra_datasets:
  - &koala {name: koala-train, track: en, format: table, path: FOLDER/train.tsv, delimiter: "\\t",
            columns: {sentence1: left, sentence2: right, score: rating}, score_range: [0, 10]}
  - {<<: *koala, name: koala-dev, path: FOLDER/dev.tsv}
  - {<<: *koala, name: koala-test, path: FOLDER/test.tsv}
"""
# what the test adds to keep it small: tiny vocabularies, one epoch, small CNNs and heads, a short Bible
SMALL = {
    "vectors": {"minilm-static": SMALL_MINILM_STATIC},
    "paragram": {"presets": {"dev-chosen": {"epochs": 1, "batch_size": 4}, "paper": {"epochs": 1, "batch_size": 4}}},
    "encoder": {"tuning": {"defaults": {"epochs": 1, "batch_size": 4}}},
    "fusion": {
        "folds": 0,  # in-sample paragram cosines: no fold models to train
        "grid": TINY_FUSION_GRID,
    },
    "paraphrase_cnn": {
        "defaults": {"vectors": "minilm-static", "filters": 8, "dimension": 6, "epochs": 1, "head_hidden": 4}
    },
    "sentence_vectors": {"paragram-xxl": {"mean": "minilm-static"}, "paragram-small": {"mean": "glove-6b-50d"}},
    "events": {
        "corpus": {"kjv": {"program": "bible", "passages": "gen1:1-gen2:25"}},
        "skipgram": {"dimension": 8, "min_count": 1, "epochs": 1},
    },
    "head": {"defaults": {"epochs": 2}, "grid": {"hidden": [4], "learning_rate": [0.05]}},
}


def write_benchmark(folder) -> None:
    for part, pairs in (("train", TRAIN_PAIRS), ("dev", DEV_PAIRS), ("test", TEST_PAIRS)):
        rows = [f"{s1}\t{s2}\t{2 * gold:g}" for s1, s2, gold in pairs if gold is not None]  # a 0-10 scale
        (folder / f"{part}.tsv").write_text("left\tright\trating\n" + "\n".join(rows) + "\n")


@pytest.fixture
def koala(tmp_path_factory) -> Workspace:
    """A user's benchmark through both systems (`all`), built once per suite run (conftest.shared_build) and only
    read here: a test that changes the tree works on a copy."""
    if shutil.which("bible") is None:
        pytest.skip("bible-kjv is not installed (make sts2017 installs it)")

    def build(root):
        write_benchmark(root)
        mine, small = root / "mine.yaml", root / "small.yaml"
        mine.write_text(MINE.replace("FOLDER", str(root)))
        small.write_text(yaml.safe_dump(SMALL))
        # as make all OVERLAYS=... stacks them
        files = [REPO / "config.yaml", REPO / "config/sts2017.yaml", small, mine]
        work = Workspace(root / "runs/koala", SHARED_CORPUS, SHARED_CORPUS / "MANIFEST.tsv", {}, files)
        work.snakemake("all", timeout=1500)
        return work

    return shared_build(tmp_path_factory, "koala", build)


@pytest.mark.workflow
def test_your_own_benchmark_builds_every_run_of_both_systems_choosing_on_its_dev_set(koala):
    assert len(MINE.splitlines()) <= 10
    work, files = koala.path, koala.configfiles
    config = resolved_config(files)
    runs = headline_runs(config)
    # both systems: paragram, synthetic, the encoder zero-shot and fine-tuned, the fusions, PE/EE and the heads
    assert {
        "task-internal",
        "synthetic",
        "synthetic-per-set",
        "encoder",
        "encoder-sts",
        "fusion",
        "fusion-tuned",
        "pe",
        "ee",
        "pe-ee",
    } <= set(runs)
    for run in runs:
        scores = pd.read_parquet(work / f"results/scores/{run}.parquet")
        assert set(scores["group"]) == {"koala-test"} and scores["pearson"].notna().all(), run
    # every setting a search chooses is chosen on koala-dev: the fusions' (no decisions recorded for koala) and
    # the heads'; the dev twins learned from koala-train alone
    dev = pd.read_parquet(work / "results/fusion/fusion-tuned/dev.parquet")
    assert "pearson_0_koala-dev" in dev and dev["chosen"].sum() == 1
    assert "dev_0_koala-dev" in pd.read_parquet(work / "resources/models/pe-dev.pe.epochs.parquet")
    assert plan.tuned_encoder_settings(config, "minilm-sts-dev")["gold_years"] == ["koala-train"]
    assert set(pd.read_parquet(work / "resources/paraphrase_pairs/task-internal.parquet")["dataset"]) <= {
        "koala-train",
        "koala-dev",
    }
    synthetic = pd.read_parquet(work / "resources/paraphrase_pairs/synthetic.parquet")
    assert set(synthetic["dataset"]) == {"koala-test"}  # the round trips of its test set, as the paper's
    assert not (work / "results/papers").exists()  # the 2017 paper's Table 1 stands beside track 5 only
    report = (work / "results/report.md").read_text()
    assert "koala-test" in report
    # the studies it names are on its own protocol's sets, not the 2016 protocol's
    assert "- Table 1 analog (dev protocol on the koala-dev sets)\n" in report
    assert "- Synthetic-pair dev check (koala-dev)\n- Fine-tuned encoder dev check (koala-dev)\n" in report
    assert "2015" not in report


# the runs whose studies name the sets that choose: the fusion's dev-protocol table, the paragram run's gold-threshold
# sweep, the synthetic pairs' dev check, the tuned encoder's
STUDIED = ["task-internal", "synthetic", "encoder-sts", "fusion"]


@pytest.mark.workflow
def test_the_studies_report_of_your_own_benchmark_names_its_sets(koala, tmp_path):
    """`studies` on a copy of the build, with the runs whose studies name the protocol's sets (the config a run is
    given, the others left out; no study run, seeds, grid or PPDB-tuned source): every title names koala's sets, no
    title the 2016 protocol's."""
    work = copy_of(koala, tmp_path / "koala")
    work.config = declared_config(koala.configfiles)
    work.keep_runs({run: work.config["runs"][run] for run in STUDIED})
    work.config["seed_study"]["runs"] = []
    work.config["encoder"]["tuning"]["dev_check"] = ["minilm-sts"]
    work.config["encoder"]["tuning"]["grid"] = {}
    work.config["paragram"]["compare_sources"]["sources"] = ["minilm-static"]  # no PPDB tuning: names no set
    work.configfiles = [work.write_config()]
    work.snakemake("studies")
    studies = (work.path / "results/studies.md").read_text()
    for title in (
        "## Table 1 analog: dev protocol on the koala-dev sets (Pearson r)\n\nTrained on koala-train only, scored on "
        "the koala-dev sets (koala-test never chooses",
        "## Gold-threshold sweep (dev protocol)\n\nTraining pairs = koala-train gold pairs with gold ≥ t; ",
        "## Synthetic pairs on the dev protocol (koala-dev sets)",
        "## Fine-tuned encoders on the dev protocol (koala-dev)",
    ):
        assert title in studies, title
    waiting = studies.split("## Not in this report yet")[-1]  # what the report still lacks: none of these
    assert "Table 1 analog" not in waiting and "dev check" not in waiting, waiting
    assert not {"2012", "2013", "2014", "2015", "2016"} & set(re.findall(r"\b20\d\d\b", studies)), studies
