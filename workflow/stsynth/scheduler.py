"""A fix for Snakemake's local scheduler, applied by the workflow at start-up (workflow/rules/common.smk).

Snakemake 9.27.1's ``JobScheduler`` ends every scheduling round by starting a fresh
``threading.Timer`` that wakes the scheduler again after the rate limiter's timespan (1 s by
default), and every round, whether a timer or a finished job woke it, starts one more. So the
timers pile up, one more chain per finished job: after 130 jobs of a cold ``all`` the main process
ran ~127 job selections a second and spent 27% of a core on them for the whole build (776 s of
CPU over 47 min on this 2-core machine), core time the jobs themselves did not get. The timers
are also non-daemon, so a long timespan, the obvious workaround, keeps Snakemake alive after its
last job until the timer fires.

:func:`coalesce_reevaluations` keeps what the timer is for (a new look once the rate limit has
passed) with at most one pending timer per scheduler, made a daemon so it never delays the exit.
"""
from __future__ import annotations

import threading


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
    """Install :func:`reevaluate_once` in place of Snakemake's ``_schedule_reevalutation`` (sic);
    False, changing nothing, where this Snakemake has no such method."""
    from snakemake.scheduling import job_scheduler

    if not hasattr(job_scheduler.JobScheduler, "_schedule_reevalutation"):
        return False
    job_scheduler.JobScheduler._schedule_reevalutation = reevaluate_once
    return True
