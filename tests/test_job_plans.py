"""What every job of each shipped target reads is pinned: workflow/tools/job_plan.py writes a target's plan (each job's
rule, first output, inputs and params, as digests), and tests/data/job-plans/<target>.tsv holds the plan the
figures in docs/ were built with. A change of config.yaml, an overlay, a protocol or a plan function that moves
what a job reads fails here, naming the job and what moved, before any build; one that only rewrites how a
setting is said passes. A deliberate change rewrites the files:

    STSYNTH_WRITE_JOB_PLANS=1 pytest tests/test_job_plans.py
"""

import os
import subprocess
import sys

import pytest

from conftest import REPO
from stsynth.pipeline.cli import TARGETS

PLANS = REPO / "tests" / "data" / "job-plans"
MPNET = REPO / "resources" / "encoders" / "all-mpnet-base-v2" / "model.safetensors"  # make mpnet assembles it
# the targets whose `needs` (targets.tsv) is that file: planned only where it is there
NEEDS_MPNET = [
    line.split("\t")[0]
    for line in (REPO / "workflow/stsynth/pipeline/targets.tsv").read_text().splitlines()
    if not line.startswith("#") and len(line.split("\t")) > 5 and line.split("\t")[5] == str(MPNET.relative_to(REPO))
]
PINNED = [target for target in TARGETS if target not in NEEDS_MPNET]


@pytest.fixture(scope="module")
def plans(tmp_path_factory) -> dict:
    targets = [*PINNED, *(NEEDS_MPNET if MPNET.exists() else [])]
    out = tmp_path_factory.mktemp("job-plans")
    subprocess.run(
        [sys.executable, str(REPO / "workflow" / "tools" / "job_plan.py"), *targets, "--out", str(out)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    return {target: (out / f"{target}.tsv").read_text() for target in targets}


def jobs(text: str) -> dict:
    rows = [line.split("\t") for line in text.splitlines()]
    return {(row[0], row[1]): row[2:] for row in rows}


def differences(pinned: dict, planned: dict) -> list[str]:
    found = [f"planned no more: {rule} {output}" for rule, output in pinned.keys() - planned.keys()]
    found += [f"newly planned: {rule} {output}" for rule, output in planned.keys() - pinned.keys()]
    for key in pinned.keys() & planned.keys():
        (inputs_was, *params_was), (inputs_now, *params_now) = pinned[key], planned[key]
        moved = (["inputs"] if inputs_was != inputs_now else []) + sorted(
            param.split("=")[0] for param in set(params_was) ^ set(params_now)
        )
        if moved:
            found.append(f"{key[0]} {key[1]}: {', '.join(dict.fromkeys(moved))} moved")
    return sorted(found)


@pytest.mark.subprocess
@pytest.mark.parametrize("target", [*PINNED, *NEEDS_MPNET])
def test_every_job_of_a_shipped_target_reads_what_it_read(plans, target):
    if target not in plans:
        pytest.skip(f"{MPNET} is not assembled here (make {target} assembles it)")
    pinned = PLANS / f"{target}.tsv"
    if os.environ.get("STSYNTH_WRITE_JOB_PLANS"):
        pinned.parent.mkdir(parents=True, exist_ok=True)
        pinned.write_text(plans[target])
    found = differences(jobs(pinned.read_text()), jobs(plans[target]))
    assert not found, f"make {target}: {len(found)} job(s) differ from {pinned.name}:\n  " + "\n  ".join(found[:40])


def test_a_moved_param_is_named_with_its_job():
    pinned = {("fusion_fit", "results/fusion/fusion/x"): ["i1", "seed=a", "splits=b"]}
    planned = {("fusion_fit", "results/fusion/fusion/x"): ["i1", "seed=a", "splits=c"], ("new", "out"): ["i"]}
    assert differences(pinned, planned) == [
        "fusion_fit results/fusion/fusion/x: splits moved",
        "newly planned: new out",
    ]
