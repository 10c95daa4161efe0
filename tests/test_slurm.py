"""A real cluster run: the pipeline through ``--profile profiles/slurm`` on a throwaway single-node
Slurm (tests/slurm_cluster.py), scored identically to a local run.

Opt-in, since it starts root daemons: ``STSYNTH_SLURM_TEST=1 .venv/bin/pytest tests/test_slurm.py``
(``.ci/run`` sets the variable). Needs root and the Debian packages slurm-wlm and munge. Without the
variable the test is skipped with the reason printed; with it, anything missing is a failure, not a skip.

Both runs use the repository's Snakefile on the tiny corpus, in tmp working directories, so nothing in the
checkout is touched. The local reference is the suite's shared tiny build (conftest.tiny_baseline: the
baseline's scores), on a copy of which the paragram run is built too. The cluster run starts from the local
run's data preparation (the fetched corpus, pair and token tables, translations; copied with their mtimes, as a
cluster user would prepare data on the login node, whose compute nodes often have no internet) and submits
every model, prediction and scoring job to Slurm: each Slurm job costs two Snakemake start-ups, so the
preparation jobs would not fit CI's minutes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import pytest

from conftest import REPO, copy_of, run_snakemake
from slurm_cluster import DAEMONS, ClusterError, missing_prerequisites, pids, single_node_cluster

SWITCH = "STSYNTH_SLURM_TEST"
# Run -> rules whose jobs must go through Slurm (seen by the job comment the executor sets).
RUNS = {
    "baseline": set(),  # predict and score_run are localrules: they run on the submitting node
    "task-internal": {"gold_paraphrase_pairs", "vectors_glove_6b_50d", "paragram_train", "paragram_similarity__2016"},
}
# The localrules among the jobs of the runs above: never a Slurm job, always run (on this node).
LOCAL = {"predict", "score_run"}
# Kept fast, the same for both runs: 50-d GloVe (from a PyPI package) instead of the MiniLM
# vectors, and one training epoch. Equality of the scores is what is tested, not their level.
FAST = {
    "paragram": {"defaults": {"vectors": "glove-6b-50d", "unknown": "rare"}, "models": {"task-internal": {"epochs": 1}}}
}
# Data preparation, built by the local run and copied (with mtimes) before the cluster run.
PREPARED = ["corpus", "pairs", "translated", "cache"]
# A bound for failing clearly (timeout exit 124), not the expected time; `make test` runs the tests in parallel
# (pytest-xdist), where the other workers' tests share the cores with the cluster's jobs.
SLURM_RUN_SECONDS = 420 * int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
# Without slurmdbd there is no sacct; squeue only sees a finished job for MinJobAge (900 s here),
# which the executor wants >= 3 x the first status check delay.
SLURM_OPTIONS = [
    "--slurm-status-command",
    "squeue",
    "--slurm-init-seconds-before-status-checks",
    "2",
    "--slurm-no-account",
    "--slurm-keep-successful-logs",
]


@pytest.fixture
def slurm_enabled():
    if os.environ.get(SWITCH) != "1":
        message = f"Slurm cluster test is opt-in: set {SWITCH}=1 (starts root daemons munged, slurmctld, slurmd)"
        print(message)
        pytest.skip(message)
    problems = missing_prerequisites()
    if problems:
        pytest.fail(f"{SWITCH}=1 but a Slurm cluster cannot start here: " + "; ".join(problems))


def runs_in_workflow(config: dict) -> list[str]:
    """The runs of RUNS this checkout has (task-internal arrived with the paragram stage), limited to
    STSYNTH_SLURM_RUNS (comma-separated) when set, e.g. STSYNTH_SLURM_RUNS=baseline on a slow machine."""
    wanted = [r for r in os.environ.get("STSYNTH_SLURM_RUNS", ",".join(RUNS)).split(",") if r]
    unknown = set(wanted) - set(RUNS)
    if unknown:
        pytest.fail(f"STSYNTH_SLURM_RUNS names {sorted(unknown)}; this test knows {sorted(RUNS)}")
    return [run for run in wanted if config["runs"].get(run, {}).get("stage") in ("baseline", "paragram")]


def slurm_jobs() -> list[tuple[str, str]]:
    """(rule, state) of every job the cluster still remembers (MinJobAge keeps finished ones)."""
    listing = subprocess.run(
        ["squeue", "--states=all", "--noheader", "--format=%k|%T"], capture_output=True, text=True, check=True
    ).stdout
    jobs = []
    for line in listing.splitlines():
        comment, state = line.rsplit("|", 1)
        jobs.append((comment.removeprefix("rule_").split("_wildcards_")[0], state))
    return jobs


@pytest.mark.workflow
def test_slurm_run_scores_equal_local_run(slurm_enabled, tiny_baseline, tmp_path):
    reference = copy_of(tiny_baseline, tmp_path / "local")
    reference.write_config(FAST)
    local = reference.path
    runs = runs_in_workflow(reference.config)
    print(f"runs compared: {', '.join(runs)}")
    targets = [f"results/scores/{run}.parquet" for run in runs]
    cluster_run = tmp_path / "slurm"
    cluster_run.mkdir()
    shutil.copy2(local / "config.yaml", cluster_run / "config.yaml")

    started = time.monotonic()
    run_snakemake(local, *targets)  # the baseline's scores are the shared build's
    print(f"local run: {time.monotonic() - started:.0f} s")

    for folder in PREPARED:
        if (local / "resources" / folder).is_dir():
            shutil.copytree(local / "resources" / folder, cluster_run / "resources" / folder)
    command = [
        "timeout",
        "-k",
        "30",
        str(SLURM_RUN_SECONDS),
        sys.executable,
        "-m",
        "snakemake",
        "--snakefile",
        str(REPO / "Snakefile"),
        "--configfile",
        "config.yaml",
        "--profile",
        str(REPO / "profiles" / "slurm"),
        *SLURM_OPTIONS,
        *targets,
    ]
    daemons_before = {daemon: set(pids(daemon)) for daemon in DAEMONS}
    started = time.monotonic()
    # slurmstepd makes Unix sockets in the cluster's state folder, and a socket path holds at most 108 bytes:
    # under pytest-xdist tmp_path is longer (popen-gw0/...) and a batch job then never launches, so the
    # cluster keeps its state in a short folder of its own, removed afterwards.
    state = Path(tempfile.mkdtemp(prefix="stsynth-slurm-"))
    try:
        try:
            with single_node_cluster(state):
                result = subprocess.run(
                    command, cwd=cluster_run, capture_output=True, text=True, timeout=SLURM_RUN_SECONDS + 60
                )
                jobs = slurm_jobs()
        except ClusterError as error:
            pytest.fail(str(error))
        print(f"Slurm run: {time.monotonic() - started:.0f} s, {len(jobs)} Slurm jobs")
        assert result.returncode == 0, (
            f"snakemake --profile profiles/slurm failed ({result.returncode}; 124 = timed out after "
            f"{SLURM_RUN_SECONDS} s):\n{result.stderr[-6000:]}\n--- slurmctld log:\n"
            f"{(state / 'slurmctld.log').read_text()[-3000:]}\n"
            f"--- slurmd log:\n{(state / 'slurmd.log').read_text()[-3000:]}"
        )
    finally:
        shutil.rmtree(state, ignore_errors=True)

    assert {rule for rule, _ in jobs} == set().union(*(RUNS[run] for run in runs))
    assert LOCAL <= set(result.stderr.replace(":", " ").split()) - {rule for rule, _ in jobs}  # run, and here
    assert {state for _, state in jobs} == {"COMPLETED"}
    assert {daemon: set(pids(daemon)) for daemon in DAEMONS} == daemons_before, "a daemon outlived the cluster"

    for target in targets:
        # A difference in the last digits means a stage is not bit-reproducible from process to process
        # (the same inputs giving other floats), not that Slurm changed anything.
        pd.testing.assert_frame_equal(
            pd.read_parquet(cluster_run / target),
            pd.read_parquet(local / target),
            check_exact=True,
            obj=f"{target} (Slurm run vs local run)",
        )
    for run in RUNS:
        for prediction in sorted((local / "results" / "predictions" / run).rglob("*.txt")):
            twin = cluster_run / prediction.relative_to(local)
            assert twin.read_bytes() == prediction.read_bytes(), f"{twin} differs from the local run"


@pytest.mark.workflow
def test_the_slurm_profile_runs_sub_minute_jobs_locally_and_scales_runtimes(workspace):
    """A dry run through profiles/slurm (no cluster needed): the corpus fetch, parsing, tokenizing,
    prediction and scoring jobs are localrules; a job's runtime doubles on its second attempt; no job
    asks for Snakemake's 50 GB disk default."""
    result = workspace.snakemake("-n", "--profile", str(REPO / "profiles" / "slurm"), "results/scores/baseline.md")
    output = result.stdout + result.stderr
    assert "fetch_corpus_file" in output and "disk_mb=50000" not in output and "disk=50 GB" not in output
    # the localrules (a dry run prints them as rules: the real cluster run above checks they never reach
    # Slurm) are rules of the workflow, the sub-minute ones
    block = (REPO / "workflow/rules/common.smk").read_text().split("localrules:\n", 1)[1].split("\n\n", 1)[0]
    local = {line.strip().rstrip(",") for line in block.splitlines()}
    listed = set(workspace.snakemake("--list-rules").stdout.split())
    assert {"fetch_corpus_file", "pair_table", "tokenize", "predict", "score_run"} <= local <= listed
    # runtimes grow with the attempt: a second attempt asks twice the minutes
    first, second = (
        workspace.snakemake(
            "-n", "--profile", str(REPO / "profiles" / "slurm"), "--attempt", attempt, "results/scores/baseline.md"
        )
        for attempt in ("1", "2")
    )
    runtime = lambda result: sorted(
        int(part.split("=")[1].rstrip(","))
        for part in (result.stdout + result.stderr).split()
        if part.startswith("runtime=")
    )  # noqa: E731
    assert runtime(second) == [2 * minutes for minutes in runtime(first)] and runtime(first)
