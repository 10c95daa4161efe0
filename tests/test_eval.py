"""`snakemake eval` (stsynth.eval.evaluation, stsynth.encoders.embedding_store): zero-shot evaluation of encoders on the
tiny corpus with tiny models the tests build, MTEB's result loader on what it writes, the embedding
cache, bad encoder entries refused before any job, and overlays that add to lists."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from stsynth.core.datasets import Dataset
from stsynth.encoders.embedding_store import encoding_units
from stsynth.eval import evaluation, mteb_results

TASKS = {"TINY16": ["2016/tinytest"], "TINY15": [2015], "TINYX": ["2016/tinynews"]}


def eval_config(workspace, models, **settings):
    workspace.config["eval"] = {
        **workspace.config["eval"],
        "encoders": [],
        "models": [str(m) for m in models],
        "tasks": TASKS,
        **settings,
    }
    workspace.write_config()


def jobs_run(result) -> list[str]:
    """The rules of the jobs a Snakemake run started (its log's `rule x:` lines)."""
    return [
        line.split()[1].rstrip(":")
        for line in (result.stdout + result.stderr).splitlines()
        if line.startswith(("rule ", "localrule "))
    ]


@pytest.mark.workflow
def test_eval_end_to_end_two_encoders_mteb_results_and_the_cache(workspace, tmp_path):
    from test_encoder import save_tiny_model

    first = save_tiny_model(tmp_path / "tiny-a")
    eval_config(workspace, [first])
    result = workspace.snakemake("eval")
    work = workspace.path
    # nothing of the paper's system: corpus copies, pair tables, the eval jobs; the es-en task is not
    # asked for (eval.crosslingual false), so nothing is translated
    assert set(jobs_run(result)) == {
        "fetch_corpus_file",
        "pair_table",
        "eval_encode",
        "eval_score",
        "eval_mteb",
        "eval_leaderboard",
        "eval",
    }
    assert not (work / "resources/translated").exists() and not (work / "resources/paragram").exists()
    scores = pd.read_parquet(work / "results/eval/scores/tiny-a.parquet")
    assert set(scores["group"]) == {"TINY16", "TINY15"}
    task = scores[scores["group"] == "TINY16"].set_index("dataset")
    assert set(task.index) == {"tinytest", "ALL", "ALL (mean)", "ALL (pooled)"}
    # one set: the pooled Spearman is the set's; the set has its bootstrap interval
    assert task.at["ALL (pooled)", "spearman"] == pytest.approx(task.at["tinytest", "spearman"])
    assert task.at["tinytest", "spearman_ci_low"] <= task.at["tinytest", "spearman"]

    # MTEB's own loader reads the TaskResult JSON and model_meta.json
    from mteb.cache import ResultCache

    results = ResultCache(work / "results/eval/mteb").load_results(include_remote=False)
    [model] = results.model_results
    assert model.model_name == "stsynth/tiny-a" and model.model_revision == mteb_results.NO_REVISION
    loaded = {r.task_name: r.scores["test"][0] for r in model.task_results}
    assert set(loaded) == {"TINY16", "TINY15"}
    assert loaded["TINY16"]["main_score"] == pytest.approx(task.at["ALL (pooled)", "spearman"])
    assert loaded["TINY16"]["cosine_spearman"] == loaded["TINY16"]["main_score"]
    assert {"manhattan_pearson", "euclidean_spearman", "pearson", "spearman"} <= set(loaded["TINY16"])

    # a second encoder (the same weights with a prompt) re-encodes nothing of the first
    first_log = (work / "logs/eval/encode/tiny-a.log").read_text()
    workspace.config["encoder"]["models"]["tiny-prompted"] = {"path": str(first), "prompt": "query: "}
    workspace.config["eval"]["encoders"] = ["tiny-prompted"]
    workspace.write_config()
    second = workspace.snakemake("eval")
    assert jobs_run(second).count("eval_encode") == 1 and "tiny-prompted" in (second.stdout + second.stderr)
    assert (work / "logs/eval/encode/tiny-a.log").read_text() == first_log
    prompted = pd.read_parquet(work / "results/eval/similarity/tiny-prompted/2016/tinytest.parquet")
    plain = pd.read_parquet(work / "results/eval/similarity/tiny-a/2016/tinytest.parquet")
    assert not np.allclose(prompted["cosine"], plain["cosine"])  # the prompt reached the encoder
    board = pd.read_parquet(work / "results/eval/leaderboard.parquet")
    assert sorted(board["encoder"]) == ["tiny-a", "tiny-prompted"]
    assert "| tiny-a | stsynth/tiny-a |" in (work / "results/eval/leaderboard.md").read_text()
    assert (work / "results/eval/leaderboard.png").stat().st_size > 0

    # an added set encodes only its own units (stsynth.encoders.embedding_store): the sets before are read
    # from the store; the earlier encoder stays on the leaderboard
    workspace.config["eval"]["tasks"] = {**TASKS, "TINY12": [2012]}
    workspace.config["eval"]["encoders"] = ["tiny-a"]
    workspace.config["encoder"]["models"].pop("tiny-prompted")
    workspace.write_config()
    workspace.snakemake("eval")
    tables = [pd.read_parquet(p) for p in sorted((work / "resources/pairs").rglob("*.parquet"))]
    sentences = {
        year: sum(len(u) for t in tables if t["year"].iat[0] == year for u in encoding_units(t, every_line=False))
        for year in (2012, 2015, 2016)
    }
    assert (
        f"{sentences[2012]} sentences encoded, {sentences[2015] + sentences[2016]} read from the embedding store"
        in (work / "logs/eval/encode/tiny-a.log").read_text()
    )
    assert sorted(pd.read_parquet(work / "results/eval/leaderboard.parquet")["encoder"]) == ["tiny-a", "tiny-prompted"]
    again = workspace.snakemake("-n", "eval")
    assert "Nothing to be done" in again.stdout + again.stderr


@pytest.mark.workflow
def test_bad_encoder_entries_are_refused_before_any_job_naming_the_key(workspace, tmp_path):
    from test_encoder import save_tiny_model

    tiny = save_tiny_model(tmp_path / "tiny")
    empty = tmp_path / "empty"
    empty.mkdir()
    cases = {
        "eval.models[0]": {"eval": {"models": [str(tmp_path / "nowhere")]}},
        "encoder.models.bad.path": {"encoder": {"models": {"bad": {"path": str(empty)}}}},
        "encoder.models.bad.sha256": {
            "encoder": {"models": {"bad": {"path": str(tiny), "sha256": {"config.json": "0" * 64}}}}
        },
        "encoder.models.bad.hub": {"encoder": {"models": {"bad": {"hub": "nobody/no-such-model"}}}},
        "eval.encoders[0]": {"eval": {"encoders": ["not-an-encoder"]}},
    }
    base = json.loads(json.dumps(workspace.config))
    for key, overrides in cases.items():
        workspace.config = json.loads(json.dumps(base))
        workspace.write_config(overrides)
        for args in (("-n", "eval"), ("eval",)):  # refused on every run, dry or not
            result = workspace.snakemake(*args, check=False, env={"HF_HUB_OFFLINE": "1"})
            output = result.stdout + result.stderr
            assert result.returncode != 0 and key.split(".sha256")[0].split("[")[0] in output, (key, output[-3000:])
            assert not jobs_run(result), key
        assert not (workspace.path / "resources/corpus").exists(), key


@pytest.mark.workflow
def test_an_overlay_adds_with_extra_datasets_and_names_itself_in_errors(workspace, tmp_path):
    overlay = tmp_path / "overlay.yaml"
    entry = {
        "year": 2016,
        "name": "tinyextra",
        "role": "test",
        "track": "en",
        "fields": 4,
        "scored": 6,
        "path": str(tmp_path / "extra.txt"),
        "gold_path": str(tmp_path / "extra.gs.txt"),
    }
    (tmp_path / "extra.txt").write_text("".join(f"A man {i}.\tA woman {i}.\tx\ty\n" for i in range(6)))
    (tmp_path / "extra.gs.txt").write_text("".join(f"{i % 5}\n" for i in range(6)))
    overlay.write_text(yaml.safe_dump({"extra_datasets": [entry], "eval": {"tasks": {"EXTRA": ["2016/tinyextra"]}}}))
    args = ("-n", "eval", "--configfile", str(workspace.path / "config.yaml"), str(overlay))
    result = workspace.snakemake(*args)
    output = result.stdout + result.stderr
    # appended: the overlay's set and config.yaml's (STS15: [2015] is the tiny dev set) side by side
    assert "resources/pairs/2016/tinyextra.parquet" in output and "resources/pairs/2015/tinydev.parquet" in output
    entry["role"] = "tested"
    overlay.write_text(yaml.safe_dump({"extra_datasets": [entry]}))
    result = workspace.snakemake(*args, check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0 and "datasets[4].role" in output and str(overlay) in output


def test_location_entries_tasks_and_mteb_similarities():
    is_dir = lambda path: path == "/models/my-model"  # noqa: E731
    find_spec = lambda name: object() if name == "my_package" else None  # noqa: E731
    assert evaluation.location_entry("/models/my-model/", "w", is_dir, find_spec) == (
        "my-model",
        {"path": "/models/my-model"},
    )
    assert evaluation.location_entry("my_package", "w", is_dir, find_spec) == ("my_package", {"package": "my_package"})
    assert evaluation.location_entry("BAAI/bge-small-en-v1.5", "w", is_dir, find_spec) == (
        "BAAI__bge-small-en-v1-5",
        {"hub": "BAAI/bge-small-en-v1.5"},
    )  # an encoder name: letters, digits, _ and -
    with pytest.raises(evaluation.EvalConfigError, match=r"eval.models\[3\]: 'nothing here' is no folder"):
        evaluation.location_entry("nothing here", "eval.models[3]", is_dir, find_spec)
    assert evaluation.mteb_folder("minilm", {"hub": "org/m", "revision": "abc"}) == "org__m/abc"

    sets = [
        Dataset(2012, "a", "en", "train", input="x", gold="y", scored=3108),
        Dataset(2012, "b", "en", "test", input="x", gold="y"),
        Dataset(2016, "c", "es-en", "test", input="x", gold="y"),
    ]
    settings = {"tasks": {"STS12": ["2012/a"], "B": [2012], "X": ["2016/c"]}, "crosslingual": False}
    with pytest.raises(evaluation.EvalConfigError, match=r"eval.tasks.B\[0\]: 2012/a is in task STS12 already"):
        evaluation.resolve_tasks(settings, sets)
    settings["tasks"]["B"] = ["2012/b"]
    assert list(evaluation.resolve_tasks(settings, sets)[0]) == ["STS12", "B"]
    assert list(evaluation.resolve_tasks({**settings, "crosslingual": True}, sets)[0]) == ["STS12", "B", "X"]
    # a task that names some undeclared set is refused; one that names none of the declared is left out, said
    with pytest.raises(evaluation.EvalConfigError, match=r"eval.tasks.X\[1\]: '2016/d' names no dataset"):
        evaluation.resolve_tasks({**settings, "tasks": {"X": ["2016/c", "2016/d"]}}, sets)
    tasks, notes = evaluation.resolve_tasks({**settings, "tasks": {"STS12": ["2012/a"], "STS13": [2013]}}, sets)
    assert list(tasks) == ["STS12"] and notes == [
        "eval.tasks.STS13: none of its datasets (2013) is declared; the task is left out"
    ]
    with pytest.raises(evaluation.EvalConfigError, match="eval.tasks: no task to evaluate"):
        evaluation.check_tasks({})
    assert mteb_results.dataset_revision("STS12", sets[:1]) == mteb_results.MTEB_TASKS["STS12"][0]
    assert mteb_results.dataset_revision("STS12", sets[1:2]) == mteb_results.NO_REVISION  # not MTEB's pairs

    # MTEB's STS evaluator: cosine, negated Manhattan and Euclidean distances, the model's own function
    from sklearn.metrics.pairwise import paired_cosine_distances, paired_euclidean_distances, paired_manhattan_distances

    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(20, 8)), rng.normal(size=(20, 8))
    similarities = evaluation.pair_similarities(a, b, (a * b).sum(1))
    assert np.allclose(similarities["cosine"], 1 - paired_cosine_distances(a, b))
    assert np.allclose(similarities["manhattan"], -paired_manhattan_distances(a, b))
    assert np.allclose(similarities["euclidean"], -paired_euclidean_distances(a, b))


def test_a_prompt_reaches_the_encoder(tmp_path):
    from stsynth.encoders.encoder import load_encoder
    from test_encoder import save_tiny_model

    folder = save_tiny_model(tmp_path / "tiny")
    plain = load_encoder(folder)
    prompted = load_encoder(folder, settings={"prompt": "query: "})
    assert np.allclose(prompted.encode(["a man"]), plain.encode(["query: a man"]), atol=1e-6)
    assert not np.allclose(prompted.encode(["a man"]), plain.encode(["a man"]))
    with pytest.raises(ValueError, match="prompt_name 'passage' is not one of the model's prompts"):
        load_encoder(folder, settings={"prompt_name": "passage"})


@pytest.mark.workflow
def test_the_stsynth_command_runs_the_makefile_targets_and_is_packaged(workspace, tmp_path):
    import tomllib

    from conftest import REPO
    from stsynth.pipeline import cli

    root = cli.workflow_root(REPO / "workflow")  # inside a checkout: that checkout
    assert root == REPO
    command = cli.snakemake_command("eval", root, "2", [str(tmp_path), "org/model"], None, ["-n"], (), tmp_path)
    assert command[command.index("--directory") + 1] == "runs/eval" and "eval" in command
    assert command[command.index("--configfile") + 1 : command.index("--configfile") + 3] == [
        str(REPO / "config.yaml"),
        str(REPO / "config/eval.yaml"),
    ]
    # the models as an overlay file (YAML written by a YAML writer: the locations as given), then the extras
    models = Path(command[command.index("--cores") - 1])
    assert command[-3:] == ["2", "eval", "-n"] and models.parent == tmp_path and "--config" not in command
    assert yaml.safe_load(models.read_text()) == {"eval": {"models": [str(tmp_path.resolve()), "org/model"]}}
    with pytest.raises(SystemExit, match="no such folder"):  # a typo in a path is no hub name
        cli.model_location(str(tmp_path / "typo"))
    stsb = cli.snakemake_command("stsb", root, "2", [], None, [])
    assert stsb[-1] == "all" and str(REPO / "config/stsb.yaml") in stsb  # no extra arguments: the target is last
    # outside a checkout: $STSYNTH_WORKFLOW, else the copy pip installed (tests/test_robustness.py: --prefix)
    assert cli.workflow_root(tmp_path, {"STSYNTH_WORKFLOW": str(REPO)}, installed=lambda: None) == REPO
    # the wheel carries every file the Snakefile reads (pyproject's data-files cover the checkout's)
    data_files = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["data-files"]
    packaged = {
        path.resolve() for patterns in data_files.values() for pattern in patterns for path in REPO.glob(pattern)
    }
    needed = [
        *REPO.glob("workflow/rules/*.smk"),
        *REPO.glob("workflow/scripts/*.py"),
        *REPO.glob("workflow/schemas/*"),
        REPO / "Snakefile",
        REPO / "config.yaml",
        REPO / "config/eval.yaml",
        REPO / "workflow/corpus_manifest.tsv",
        REPO / "requirements.txt",  # the report's provenance lists its pins
    ]
    assert {p.resolve() for p in needed} <= packaged
    for target, folder in data_files.items():
        for pattern in folder:
            assert all(
                target == f"share/stsynth/{Path(p).parent.relative_to(REPO)}".rstrip("/.") for p in REPO.glob(pattern)
            ), (target, pattern)


@pytest.mark.workflow
def test_an_mteb_task_folder_is_a_dataset_and_its_revision_is_recorded(workspace, tmp_path):
    import gzip

    from stsynth.core.datasets import InputFormatError, mteb_task_file

    folder = tmp_path / "sts-like"
    (folder / "en-en").mkdir(parents=True)
    rows = [
        {"sentence1": f"A man plays {w}.", "sentence2": f"A man is playing {w}.", "score": s}
        for w, s in (("a guitar", 4.8), ("the piano", 4.5), ("chess", 3.0), ("football", 1.2), ("cards", 0.4))
    ]
    (folder / "en-en/test.jsonl.gz").write_bytes(gzip.compress("".join(json.dumps(r) + "\n" for r in rows).encode()))
    assert mteb_task_file(folder, "test", "en-en").name == "test.jsonl.gz"
    with pytest.raises(InputFormatError, match="no file of split 'test' in this MTEB task folder"):
        mteb_task_file(folder, "test")
    workspace.config["datasets"].append(
        {
            "name": "sts-like",
            "role": "test",
            "track": "en",
            "format": "mteb",
            "path": str(folder),
            "subset": "en-en",
            "revision": "abc123",
        }
    )
    eval_config(workspace, [], tasks={"STSLIKE": ["0/sts-like"]}, encoders=["minilm"])
    workspace.snakemake(
        "results/eval/mteb/results/sentence-transformers__all-MiniLM-L6-v2/no_revision_available/STSLIKE.json"
    )
    result = json.loads(
        (
            workspace.path / "results/eval/mteb/results/sentence-transformers__all-MiniLM-L6-v2/"
            "no_revision_available/STSLIKE.json"
        ).read_text()
    )
    assert result["dataset_revision"] == "abc123" and result["scores"]["test"][0]["hf_subset"] == "en-en"
    pairs = pd.read_parquet(workspace.path / "resources/pairs/0/sts-like.parquet")
    assert list(pairs["gold"]) == [4.8, 4.5, 3.0, 1.2, 0.4] and pairs["s1"].iat[0] == "A man plays a guitar."


def test_the_docs_put_mtebs_published_figures_beside_the_eval_trees(tmp_path):
    """docs/results.md's eval-mteb block and the README's leaderboard, written from an eval tree."""
    import doc_blocks
    import doc_tree
    from stsynth.core.paths import EVAL_LEADERBOARD, eval_scores_path

    def pooled(task, pearson, spearman, pairs):
        return {
            "run": "minilm",
            "track": "en",
            "group": task,
            "year": None,
            "dataset": "ALL (pooled)",
            "pairs": pairs,
            "pearson": pearson,
            "spearman": spearman,
        }

    scores = pd.DataFrame(
        [
            pooled("STS15", 0.8473606, 0.8538962, 3000),
            pooled("STS14", 0.81, 0.76, 3750),
            {**pooled("STS15", 0.84, 0.85, 3000), "dataset": "ALL"},
        ]
    )
    (tmp_path / "results/eval/scores").mkdir(parents=True)
    scores.to_parquet(tmp_path / eval_scores_path("minilm"))
    board = pd.DataFrame(
        [
            {
                "encoder": "minilm",
                "model": "sentence-transformers/all-MiniLM-L6-v2",
                "STS15 main": 0.8538962,
                "STS15 ALL": 0.84,
                "mean": 0.8538962,
            }
        ]
    )
    board.to_parquet(tmp_path / EVAL_LEADERBOARD["table"])
    tree = doc_tree.trees_of({"eval": tmp_path})["eval"]
    table = doc_blocks.eval_mteb(tree)
    assert "| all-MiniLM-L6-v2 | STS15 | 3000 | 0.847361 / 0.853896 | 0.847361 / 0.853896 | 0.000000 |" in table
    assert "| all-MiniLM-L6-v2 | STS14 | 3750 | 0.810000 / 0.760000 | not readable here |  |" in table
    assert "| minilm | sentence-transformers/all-MiniLM-L6-v2 | 0.8539 | 0.8539 |" in doc_blocks.eval_leaderboard(tree)
    assert doc_blocks.mteb_difference(-0.0000752) == "−0.000075"


def test_the_main_score_is_mtebs_own_sts_scoring_on_the_same_embeddings():
    """stsynth.eval.mteb_results.mteb_scores (pooled over a task's sets, from the similarity tables) equals what
    mteb's STS task computes (AbsTaskSTS._calculate_scores over sklearn's paired distances, as its
    AnySTSEvaluator does) on the same embeddings and gold."""
    from mteb.abstasks.sts import AbsTaskSTS
    from sklearn.metrics.pairwise import paired_cosine_distances, paired_euclidean_distances, paired_manhattan_distances

    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(40, 8)), rng.normal(size=(40, 8))
    b[:20] = a[:20] + rng.normal(scale=0.3, size=(20, 8))  # some pairs similar
    gold = np.clip(5 - np.linalg.norm(a - b, axis=1), 0, 5)
    keys = ["2016/one", "2016/two"]
    pairs, similarity = {}, {}
    for key, rows in zip(keys, (slice(0, 25), slice(25, 40))):
        pairs[key] = pd.DataFrame({"gold": gold[rows]})
        dot = (a[rows] * b[rows]).sum(axis=1)
        similarity[key] = pd.DataFrame(evaluation.pair_similarities(a[rows], b[rows], dot))
    ours = mteb_results.mteb_scores(keys, pairs, similarity)
    theirs = AbsTaskSTS._calculate_scores(
        None,
        {
            "cosine_scores": list(1 - paired_cosine_distances(a, b)),
            "manhattan_distances": list(-paired_manhattan_distances(a, b)),
            "euclidean_distances": list(-paired_euclidean_distances(a, b)),
            "similarity_scores": list((a * b).sum(axis=1)),
        },
        list(gold / 5),
    )
    for name in ("cosine_pearson", "cosine_spearman", "manhattan_pearson", "euclidean_spearman", "pearson", "spearman"):
        assert ours[name] == pytest.approx(theirs[name], abs=1e-12), name
    import mteb

    main = mteb.get_task("STS12").metadata.main_score  # MTEB's main STS score
    assert ours["main_score"] == pytest.approx(theirs[main], abs=1e-12)


@pytest.mark.subprocess  # Snakemake's parser asks the system for its CPUs
def test_a_target_or_flag_after_the_double_dash_reaches_snakemake_where_it_reads_them(tmp_path):
    """`stsynth eval -- results/eval/leaderboard.md -n`: the words after `--` are Snakemake's own, read as a target
    and flags, none of them as a config file (they came after `--configfile A B` once: FileNotFoundError)."""
    from snakemake.cli import get_argument_parser

    from conftest import REPO
    from stsynth.pipeline import cli

    extra = ["results/eval/leaderboard.md", "--forcerun", "eval_score", "-n"]
    command = cli.snakemake_command("eval", REPO, "2", [], None, extra)
    parsed = get_argument_parser().parse_args(command[command.index("snakemake") + 1 :])
    assert parsed.targets == ["eval", "results/eval/leaderboard.md"] and parsed.dryrun
    assert parsed.configfile == [REPO / "config.yaml", REPO / "config/eval.yaml"] and set(parsed.forcerun) == {
        "eval_score"
    }
