"""stsynth.pipeline.snakemake_startup: what the workflow changes in Snakemake at start-up. The scheduler fix keeps at
most one pending wake-up, on a daemon timer (measured: a run with 150 finished jobs and 4 waiting ones spent
34.4 s of main-process CPU in 85 s without it, 3.9 s with it); these tests fail loudly when a Snakemake
upgrade removes what it patches or reads, instead of the fix being dropped with only a warning."""

import inspect
import threading
import time
from types import SimpleNamespace

import pytest
import snakemake
import snakemake.api  # noqa: F401  (snakemake.workflow alone is a circular import)
from packaging.version import Version
from snakemake.scheduling import job_scheduler
from snakemake.workflow import Workflow

from stsynth.pipeline import snakemake_startup
from stsynth.pipeline.snakemake_startup import CHECKED_ON, PATCHED_METHOD, cap_cores, normalise_config, reevaluate_once

# Snakemake's own method, read before any test installs the fix in this process.
ORIGINAL = getattr(job_scheduler.JobScheduler, PATCHED_METHOD, None)


class Scheduler:
    def __init__(self):
        self._open_jobs = threading.Semaphore(0)


def test_one_pending_wake_up_at_a_time_and_it_never_blocks_exit():
    scheduler = Scheduler()
    first = reevaluate_once(scheduler, 0.2)
    assert first is not None and first.daemon
    assert reevaluate_once(scheduler, 0.2) is None  # coalesced: still one timer
    assert scheduler._open_jobs.acquire(timeout=2)  # the wake-up happens
    first.join()
    assert not scheduler._open_jobs.acquire(blocking=False)  # exactly one
    assert reevaluate_once(scheduler, 0.01) is not None  # once it fired, a new one may start
    time.sleep(0.05)


def test_the_installed_snakemake_is_one_the_patch_was_checked_on():
    installed = Version(snakemake.__version__)
    assert Version(CHECKED_ON[0]) <= installed <= Version(CHECKED_ON[1]), (
        f"Snakemake {installed} is outside the releases stsynth.pipeline.snakemake_startup was checked on "
        f"{CHECKED_ON}: "
        "read its JobScheduler and Workflow source, then widen CHECKED_ON (or drop the fix if upstream has it)"
    )


def test_the_patched_method_exists_and_still_starts_a_timer_per_call():
    assert ORIGINAL is not None, (
        f"snakemake.scheduling.job_scheduler.JobScheduler.{PATCHED_METHOD} is gone: "
        "the scheduler fix would not be applied; see stsynth.pipeline.snakemake_startup"
    )
    if ORIGINAL is not reevaluate_once:  # this process has not installed the fix yet
        source = inspect.getsource(ORIGINAL)
        assert "threading.Timer" in source and "_open_jobs.release" in source, source
    assert list(inspect.signature(ORIGINAL).parameters) == ["self", "delay"]
    assert snakemake_startup.coalesce_reevaluations()
    assert getattr(job_scheduler.JobScheduler, PATCHED_METHOD) is reevaluate_once


def test_the_private_workflow_attributes_the_core_cap_reads_exist():
    source = inspect.getsource(Workflow)
    for attribute in ("nodes", "is_main_process", "register_resource"):
        assert hasattr(Workflow, attribute), f"snakemake.workflow.Workflow has no {attribute}: cap_cores needs it"
    assert "def _cores(self)" in source or "self._cores =" in source, (
        "snakemake.workflow.Workflow has no _cores: stsynth.pipeline.snakemake_startup.cap_cores reads it"
    )


@pytest.mark.parametrize("cores, nodes, capped", [(8, None, 2), (2, None, None), (8, 4, None), (None, None, None)])
def test_cores_are_capped_only_for_a_local_run_asking_for_more_than_there_are(cores, nodes, capped):
    registered = {}
    workflow = SimpleNamespace(_cores=cores, nodes=nodes, register_resource=registered.__setitem__)
    note = cap_cores(workflow, usable=2)
    assert registered == ({"_cores": capped} if capped else {})
    assert (note is not None) == bool(capped)


def test_the_config_is_made_checkout_relative_and_every_dataset_gets_a_year(tmp_path):
    config = {
        "corpus": {"manifest": "workflow/corpus_manifest.tsv", "mirrors": ["mirror", "https://example.org/m"]},
        "datasets": [{"name": "mine", "role": "test", "track": "en", "path": "x.tsv"}],
    }
    normalise_config(config, str(tmp_path))
    assert config["corpus"]["manifest"] == str(tmp_path / "workflow/corpus_manifest.tsv")
    assert config["corpus"]["mirrors"] == [str(tmp_path / "mirror"), "https://example.org/m"]
    assert "year" in config["datasets"][0]
