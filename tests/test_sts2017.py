"""The SemEval-2017 protocol end to end on a tiny corpus: every Table-1 run (paraphrase embeddings,
event embeddings, the W2V baseline, averaged word vectors, the regression head), Table 1 beside the
paper's, repeatable to the byte; bad input refused before any job."""

import shutil

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import (
    DEV_PAIRS,
    REPO,
    SMALL_MINILM_STATIC,
    TEST_PAIRS,
    TRAIN_PAIRS,
    TinyDataset,
    Workspace,
    copy_of,
    make_workspace,
    shared_build,
)
from stsynth.sts2017 import head
from stsynth.word_vectors.vectors import read_vectors
from test_provenance import planned_jobs

TRACK5 = [
    ("A person is on a team.", "A person plays on a team.", 4.2),
    ("The car needs some work.", "Our vehicles will be in museums.", 0.6),
    ("A woman is instructing the workers.", "A woman is working as a nurse.", 1.4),
    ("Two dogs play in the snow.", "Two dogs are playing in snow.", 4.9),
    ("A man is cooking food.", "A man is riding a bike.", 0.3),
    ("The girl sings a song.", "A girl is singing.", 4.0),
]
DATASETS = [
    TinyDataset(2012, "tinytrain", "train", "en", TRAIN_PAIRS),
    TinyDataset(2015, "tinydev", "train", "en", DEV_PAIRS),
    TinyDataset(2016, "tinytest", "train", "en", TEST_PAIRS, fields=4, blank_every=3),
    TinyDataset(2017, "track5", "test", "en", TRACK5),  # the name Table 1's paper figures are of
]
TABLE1 = {
    "w2v": "W2V",
    "ee": "EE",
    "paragram-small": "paragram-small",
    "paragram-xxl": "paragram-XXL",
    "pe": "PE",
    "pe-w2v": "PE+W2V",
    "pe-ee-official": "PE+EE (official)",
    "pe-ee": "PE+EE",
}


def protocol_2017(tmp_path) -> Workspace:
    """The project's config.yaml with config/sts2017.yaml's Table-1 runs, on the tiny corpus (2012 and 2015
    train, 2016 dev, 2017 test), with small models."""
    overlay = yaml.safe_load((REPO / "config/sts2017.yaml").read_text())
    work = make_workspace(tmp_path, DATASETS)
    work.keep_runs({"baseline": {"stage": "baseline"}, **{run: overlay["runs"][run] for run in TABLE1}})
    # the 2017 system's models and sentence vectors, as config/sts2017.yaml declares them
    work.write_config({key: overlay[key] for key in ("paraphrase_cnn", "sentence_vectors")})
    kjv = {"program": "bible", "passages": "gen1:1-gen4:26"} if shutil.which("bible") else None
    work.write_config(
        {
            # the SemEval-2017 protocol's shape on the tiny sets: train 2012 and 2015, choose on 2016, refit, test 2017
            "protocol": "tiny2017",
            "protocols": {"tiny2017": {"train": [2012, 2015], "dev": [2016], "refit_on_dev": True, "test": [2017]}},
            # the vocabulary as config.yaml has it (training: no track-5 word), small; PE and the paragram-XXL
            # stand-in start from it and encode the words it lacks where they meet them (unknown: encode)
            "vectors": {"minilm-static": SMALL_MINILM_STATIC},
            "paraphrase_cnn": {
                "defaults": {
                    "vectors": "minilm-static",
                    "filters": 8,
                    "dimension": 6,
                    "epochs": 2,
                    "finetune_epochs": 2,
                    "head_hidden": 4,
                },
            },
            # the stand-ins of the real protocol need the PPDB file the tiny corpus lacks: their bases stand in here
            "sentence_vectors": {"paragram-xxl": {"mean": "minilm-static"}, "paragram-small": {"mean": "glove-6b-50d"}},
            "events": {
                "corpus": {"kjv": kjv},
                "skipgram": {"dimension": 8, "min_count": 1, "epochs": 2},
            },
            "head": {
                "defaults": {"epochs": 3},
                "grid": {"hidden": [4], "learning_rate": [0.01, 0.05]},
            },
            "report": {"paper_table1": TABLE1},
            "scoring": {"compare": {"reference": "baseline", "pairs": [["pe-ee", "pe"], ["pe", "paragram-xxl"]]}},
        }
    )
    return work


@pytest.fixture
def tiny_2017(tmp_path_factory) -> Workspace:
    """The tiny 2017 protocol's `all`, built once per suite run (conftest.shared_build) and only read here: a
    test that changes the tree works on a copy."""

    def build(root):
        work = protocol_2017(root)
        work.snakemake("all")
        return work

    return shared_build(tmp_path_factory, "tiny-2017", build)


@pytest.mark.workflow
def test_the_2017_protocol_end_to_end_with_table_1_beside_the_paper(tiny_2017, tmp_path):
    work = copy_of(tiny_2017, tmp_path / "work")  # its seeded jobs run again below
    root = work.path
    table = pd.read_parquet(root / "results/papers/sts2017_table1.parquet")
    assert list(table["row"][:8]) == list(TABLE1.values()) and table["row"].iat[-1] == "Winner STS2017"
    ours = table.iloc[:8]
    assert ours[["train", "dev", "test"]].notna().all().all()
    assert ours.set_index("row").loc["PE", "paper_test"] == 0.7979 and pd.isna(
        ours.set_index("row").loc["PE+EE (official)", "paper_dev"]
    )
    assert table.set_index("row").loc["Winner STS2017", "paper_test"] == 0.8547
    assert list(table["run"][8:9]) == ["baseline"]  # the other headline runs, test figure only
    markdown = (root / "results/papers/sts2017_table1.md").read_text()
    assert "| PE+EE | `pe-ee` |" in markdown and "0.8015" in markdown
    assert "SemEval-2017 system, Table 1" in (root / "results/report.md").read_text()
    # each stage's own files
    epochs = pd.read_parquet(root / "resources/models/pe-dev.pe.epochs.parquet")
    assert list(epochs["step"].unique()) == ["pretrain", "finetune"] and "dev_2016_tinytest" in epochs
    dev = pd.read_parquet(root / "results/head/pe-ee/dev.parquet")
    assert dev["chosen"].sum() == 1 and len(dev[dev["method"] == "head"]) == 2 * 3  # 2 points x 3 epochs
    official = pd.read_parquet(root / "results/head/pe-ee-official/dev.parquet")
    assert official[official["chosen"]]["hidden"].iat[0] == 50  # Tai et al.'s preset, its last epoch
    # inductive: no word only track 5 holds is in the vocabulary or a PE model; its sentence vectors encode them
    tokens = lambda year, name: {
        t
        for column in ("tokens1", "tokens2")
        for sentence in pd.read_parquet(root / f"resources/pairs/{year}/{name}.tokens.parquet")[column]
        for t in sentence
    }
    track5_only = (
        tokens(2017, "track5")
        - set().union(*(tokens(d.year, d.name) for d in DATASETS[:3]))
        - set(__import__("wordfreq").top_n_list("en", 50))
    )
    assert track5_only and track5_only.isdisjoint(
        pd.read_parquet(root / "resources/models/pe.pe.vocab.parquet")["word"]
    )
    for log in ("paraphrase_cnn/pe.2017.log", "mean/minilm-static.2017.log"):  # the test part's jobs
        assert (
            f"track5.tokens.parquet: {len(track5_only)} words the" in (root / "logs/sentence_vectors" / log).read_text()
        )
    events = pd.read_parquet(root / "resources/events/2017/track5.parquet")
    assert list(events["events2"][3]) == ["play|subj|animate"]
    assert "event tokens" in (root / "logs/events/tables.log").read_text()
    # every head run's model is released with its card: the head, its PE model and the vectors it averages
    released = root / "results/models/pe-ee"
    assert {p.name for p in released.iterdir() if not p.name.startswith(".snakemake")} == {
        "model.safetensors",
        "pe.pe.safetensors",
        "pe.pe.vocab.parquet",
        "event-embeddings.parquet",
        "README.md",
    }
    card = (released / "README.md").read_text()
    assert "regression head (Tai et al. 2015" in card and "`pe`: the paraphrase embeddings of model `pe`" in card
    assert "| hidden |" in card and "head.predict(model, v1, v2)" in card
    comparisons = pd.read_parquet(root / "results/scores/comparisons.parquet")
    assert {("pe-ee", "pe"), ("pe", "paragram-xxl")} <= set(zip(comparisons["run"], comparisons["against"]))
    assert planned_jobs(work.snakemake("-n", "all")) == {}
    # deterministic seeds: each seeded job run again (the PE models, the event corpus, tables and embeddings, one
    # head run's search and fit) and what reads them (their sentence vectors, that run's predictions) come back byte
    # for byte (the epoch logs but for their seconds); the other head runs' jobs, the same code, are left out
    epochs_before = {
        path: pd.read_parquet(path).drop(columns="seconds")
        for path in root.glob("resources/models/*.pe.epochs.parquet")
    }
    kept = {
        path: path.read_bytes()
        for pattern in (
            "resources/models/*.pe.safetensors",
            "resources/models/*.pe.vocab.parquet",
            "resources/vectors/event-embeddings.parquet",
            "resources/vectors/word2vec.parquet",
            "resources/sentence_vectors/**/*.parquet",
            "results/head/*/*.parquet",
            "results/head/*/*.safetensors",
            "results/predictions/**/*.txt",
        )
        for path in root.glob(pattern)
    }
    assert len(kept) > 50
    seeded = ["paraphrase_cnn_train", "event_corpus", "event_tables", "event_embeddings", "head_dev", "head_fit"]
    targets = [
        "results/head/pe-ee/predictions.parquet",
        "resources/models/pe-dev.pe.safetensors",
        "resources/vectors/word2vec.parquet",
    ]
    rerun = planned_jobs(work.snakemake(*targets, "--forcerun", *seeded))
    assert set(seeded) | {"sentence_vectors_paraphrase_cnn", "head_predict"} <= set(rerun) and rerun["head_fit"] == 1
    changed = [str(path) for path, content in kept.items() if path.read_bytes() != content]
    assert changed == []
    for path, table in epochs_before.items():
        pd.testing.assert_frame_equal(pd.read_parquet(path).drop(columns="seconds"), table)
    # the seed study of a head run (config/sts2017.yaml's seed_study): its head, PE models and event embeddings
    # retrained with seed 2 on the same event corpus; nothing of the headline run rebuilt
    work.write_config({"seed_study": {"seeds": [2], "runs": ["pe-ee"]}})
    work.snakemake("results/seed_study/spread.parquet")
    for model in ("pe", "pe-dev"):
        assert (root / f"resources/models/{model}.seed2.pe.safetensors").read_bytes() != kept[
            root / f"resources/models/{model}.pe.safetensors"
        ]
    assert [path.name for path in root.glob("resources/vectors/*seed*")] == ["event-embeddings.seed2.parquet"]
    ee, ee_seeded = (
        read_vectors(root / f"resources/vectors/{name}.parquet")
        for name in ("event-embeddings", "event-embeddings.seed2")
    )
    assert ee_seeded.words == ee.words and not np.array_equal(ee_seeded.matrix, ee.matrix)
    assert not list(root.glob("resources/events/**/*seed*"))  # one event corpus and one set of event tables
    seeded_head = head.load(root / "results/head/pe-ee.seed2/model.safetensors")[1]
    assert seeded_head["vectors"] == ["pe.seed2", "ee.seed2"] and seeded_head["settings"]["seed"] == 2
    assert head.load(root / "results/head/pe-ee/model.safetensors")[1]["settings"]["seed"] == 1
    spread = pd.read_parquet(root / "results/seed_study/spread.parquet")
    assert set(spread["run"]) == {"pe-ee"} and (spread["seeds"] == 2).all()
    assert [str(path) for path, content in kept.items() if path.read_bytes() != content] == []


@pytest.mark.workflow
def test_the_studies_report_names_the_2017_protocols_sets(tiny_2017, tmp_path):
    """`studies` on a copy of the build without its paraphrase-embedding studies (pe-ppdb reads the PPDB file the tiny
    corpus lacks): its runs are Table 1's, so the sections that name sets are listed as not built yet, and those lines
    name the tiny 2017 protocol's dev sets (2016), not the 2016 protocol's (2015)."""
    work = copy_of(tiny_2017, tmp_path / "work")
    work.config["paraphrase_cnn"]["studies"] = {}
    work.write_config()
    work.snakemake("studies")
    studies = (work.path / "results/studies.md").read_text()
    assert studies.startswith("# stsynth studies")
    waiting = studies.split("## Not in this report yet")[1]
    assert "- Table 1 analog (dev protocol on the 2016 sets): needs its fusion run (fusion) in `runs:`\n" in waiting
    assert "- Synthetic-pair dev check (2016): needs the run `synthetic` in `runs:`\n" in waiting
    assert "- Fine-tuned encoder dev check (2016): needs a tuned encoder run" in waiting
    assert "2015" not in waiting


@pytest.mark.workflow
def test_the_grid_study_and_bad_input_before_any_job(tiny_2017, tmp_path):
    work = copy_of(tiny_2017, tmp_path / "work")
    work.write_config({"paraphrase_cnn": {"grid": {"delta": [0.4], "lambda": [1e-5, 1e-6]}}})
    work.snakemake("results/paraphrase_cnn/grid.md")
    grid = pd.read_parquet(work.path / "results/paraphrase_cnn/grid.parquet")
    assert list(grid["lambda"]) == [1e-5, 1e-6] and grid["finetune_dev_ALL"].notna().all()
    # a head run asking for vectors nobody declared, a preset that does not exist, an even width: refused at start
    work.write_config(
        {
            "runs": {"pe-ee": {"vectors": ["pe", "eee"], "preset": "taii"}},
            "paraphrase_cnn": {"models": {"pe": {"width": 2}}},
        }
    )
    result = work.snakemake("-n", "all", check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "runs.pe-ee.vectors[1]: 'eee' is not a sentence-vector source" in output
    assert "runs.pe-ee.preset: 'taii' is not a preset in head.presets" in output
    assert "paraphrase_cnn.models.pe.width: 2 is even" in output


@pytest.mark.workflow
def test_an_event_corpus_that_yields_nothing_is_refused_naming_why(tiny_2017, tmp_path):
    work = copy_of(tiny_2017, tmp_path / "work")
    work.keep_runs({"ee": {"stage": "head", "vectors": ["ee"]}})
    work.write_config({"events": {"corpus": {"kjv": None}, "skipgram": {"min_count": 500}}})
    result = work.snakemake("results/scores/ee.md", check=False)
    assert result.returncode != 0
    assert (
        "no token occurs 500 times (events.skipgram.min_count)"
        in (work.path / "logs/events/event-embeddings.log").read_text()
    )
    work.write_config({"events": {"corpus": {"kjv": None, "pairs": False}}})
    result = work.snakemake("-n", "results/scores/ee.md", check=False)
    assert "events.corpus: kjv is null and pairs is false, but a head run reads" in result.stdout + result.stderr
