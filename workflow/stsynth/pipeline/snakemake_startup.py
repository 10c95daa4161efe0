"""What the workflow changes in Snakemake and in its config at start-up, in one place: common.smk calls
:func:`start` before anything else reads the config. Each part works around something of Snakemake's:

1. **Core cap** (:func:`cap_cores`). ``--cores 8`` on a 2-core machine runs 8 threads' worth of jobs
   on 2 cores, and torch jobs then thrash (4 tuning jobs side by side took 4x as long each). A local
   run's job slots are capped to the cores this process may use (stsynth.core.threads.job_slots); cluster
   runs (``--jobs``, ``workflow.nodes``) are left alone. Snakemake has no public getter of ``--cores``:
   this reads the private ``workflow._cores`` and re-registers the ``_cores`` resource.
2. **Scheduler fix** (:func:`coalesce_reevaluations`). Snakemake's ``JobScheduler`` ends every
   scheduling round by starting a fresh ``threading.Timer`` that wakes the scheduler again after the
   rate limiter's timespan (1 s by default), and every round, whether a timer or a finished job woke
   it, starts one more. So the timers pile up, one more chain per finished job: after 130 jobs of a
   cold ``all`` the main process ran ~127 job selections a second and spent 27% of a core on them for
   the whole build (776 s of CPU over 47 min on a 2-core machine), core time the jobs themselves did
   not get. The timers are also non-daemon, so a long timespan, the obvious workaround, keeps
   Snakemake alive after its last job until the timer fires. :func:`reevaluate_once` keeps what the
   timer is for (a new look once the rate limit has passed) with at most one pending timer per
   scheduler, made a daemon so it never delays the exit. It replaces the private (and misspelt)
   ``JobScheduler._schedule_reevalutation``.
3. **Config normalisation** (:func:`normalise_config`). The corpus manifest and mirrors are relative
   to the checkout, so a run in another working directory (``snakemake --directory runs/stsb``) finds
   them; a dataset without a year gets stsynth.core.datasets.NO_YEAR; the protocol is resolved into what
   every stage reads (stsynth.pipeline.protocol.resolve). Done once, before any rule or helper reads
   ``config``, so every reader sees the same values.

Parts 1 and 2 touch Snakemake's private attributes. They were checked against the source of every
release in :data:`CHECKED_ON` (the method lives in ``snakemake.scheduling.job_scheduler`` from 9.10.0;
earlier releases keep it in ``snakemake.scheduler``, which is not patched). tests/test_startup.py fails
when the installed Snakemake lacks them or is outside that range, so an upgrade cannot drop the fix
silently. The fix could go upstream: a pending-timer check in ``_schedule_reevalutation`` itself
(an upstream change Snakemake could take).
"""

from __future__ import annotations

import os
import threading

from ..core.datasets import with_year
from ..core.paths import checkout_path
from ..core.threads import job_slots
from .protocol import resolve

# Oldest and newest Snakemake release whose private attributes below were read and found as used here.
CHECKED_ON = ("9.10.0", "9.27.1")
PATCHED_METHOD = "_schedule_reevalutation"  # sic: Snakemake's spelling


def reevaluate_once(scheduler, delay: float) -> threading.Timer | None:
    """Wake ``scheduler`` (its ``_open_jobs`` semaphore) after ``delay`` seconds, unless a wake-up is
    already pending; returns the timer started, or None."""
    pending = getattr(scheduler, "_stsynth_reevaluation", None)
    if pending is not None and pending.is_alive():
        return None
    timer = threading.Timer(delay, scheduler._open_jobs.release)
    timer.daemon = True
    scheduler._stsynth_reevaluation = timer
    timer.start()
    return timer


def coalesce_reevaluations() -> bool:
    """Install :func:`reevaluate_once` in place of Snakemake's ``_schedule_reevalutation``; False,
    changing nothing, where this Snakemake has no such method."""
    from snakemake.scheduling import job_scheduler

    if not hasattr(job_scheduler.JobScheduler, PATCHED_METHOD):
        return False
    setattr(job_scheduler.JobScheduler, PATCHED_METHOD, reevaluate_once)
    return True


def cap_cores(workflow, usable: int) -> str | None:
    """A local run's job slots capped to the ``usable`` cores; the note to log when it caps."""
    if workflow.nodes is not None or not workflow._cores:
        return None
    slots = job_slots(workflow._cores, usable)
    if slots >= workflow._cores:
        return None
    note = (
        f"--cores {workflow._cores} on a machine with {slots} usable cores: running at most {slots} cores' "
        "worth of jobs at once (jobs would only compete for the same cores)"
    )
    workflow.register_resource("_cores", slots)
    return note


def normalise_config(config: dict, basedir: str) -> None:
    """The checkout-relative corpus paths made absolute, every dataset given a year (in place)."""
    config["corpus"]["manifest"] = checkout_path(config["corpus"]["manifest"], basedir)
    config["corpus"]["mirrors"] = [checkout_path(m, basedir) for m in config["corpus"]["mirrors"]]
    config["datasets"] = [with_year(entry) for entry in config["datasets"]]


def start(workflow, config: dict, logger, checkout: str) -> None:
    """Parts 1-3 of the module docstring; 1 and 2 in the main process only (not in a job's own run), 3 with the
    protocol resolved; ``checkout`` is the folder of the workflow's own files (the Snakefile's ``CHECKOUT``)."""
    if workflow.is_main_process:
        if note := cap_cores(workflow, len(os.sched_getaffinity(0))):
            logger.info(note)
        if not coalesce_reevaluations():
            logger.warning(
                f"this Snakemake has no JobScheduler.{PATCHED_METHOD}: stsynth.pipeline.snakemake_startup's "
                f"scheduler fix is not applied (checked on Snakemake {CHECKED_ON[0]} to {CHECKED_ON[1]})"
            )
    normalise_config(config, checkout)
    resolve(config, checkout)  # a bad protocol raises stsynth.pipeline.protocol.ProtocolError
