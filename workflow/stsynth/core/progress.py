"""Progress lines in a job's log: done / total, rate and time left, at least every ``every`` seconds.

Every job that can run longer than about 30 s reports through one :class:`Progress`, so a slow job
can be told from a hung one by reading its log (``logs/...``), on a laptop or a Slurm node alike::

    2026-11-24 17:02:11 INFO stsynth: fine-tuning minilm-sts: 120/425 steps (28%), 1.9 steps/s, 2 min 40 s left

A line is written when the work starts, then whenever ``every`` seconds have passed since the last
one, and when it ends. The check runs at each step and, on the real clock, in a daemon thread that
looks every ``every / 4`` seconds, so one step longer than ``every`` (an all-mpnet-base-v2 batch on a
busy CPU took 30 s) still gets its lines. ``STSYNTH_PROGRESS_SECONDS`` overrides ``every`` (the
tests use 0: a line per step).
"""

from __future__ import annotations

import logging
import os
import threading
import time
import weakref

DEFAULT_EVERY = 20.0  # seconds: below the 30 s promise, with room for a step in progress


def duration(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes, seconds = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


class Progress:
    """``with Progress(log, "fine-tuning minilm-sts", total, "steps") as progress: ... progress.advance()``."""

    def __init__(
        self,
        log: logging.Logger,
        what: str,
        total: int,
        unit: str = "items",
        every: float | None = None,
        clock=time.monotonic,
    ):
        self.log, self.what, self.total, self.unit, self.clock = log, what, int(total), unit, clock
        self.every = float(os.environ.get("STSYNTH_PROGRESS_SECONDS", DEFAULT_EVERY)) if every is None else every
        self.done = 0
        self.started = self.last = clock()
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        self.log.info("%s: %d %s to do", what, self.total, unit)
        if self.every > 0 and clock is time.monotonic:
            threading.Thread(
                target=_heartbeat,
                args=(weakref.ref(self), self.stopped, self.every / 4),
                daemon=True,
                name=f"progress: {what}",
            ).start()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, kind, error, traceback) -> None:
        self.stopped.set()
        if kind is None:
            self.finish()

    def line(self) -> str:
        elapsed = self.clock() - self.started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        share = f" ({100 * self.done / self.total:.0f}%)" if self.total else ""
        left = duration((self.total - self.done) / rate) if rate > 0 else "unknown"
        return (
            f"{self.what}: {self.done}/{self.total} {self.unit}{share}, {rate:.3g} {self.unit}/s, "
            f"{duration(elapsed)} elapsed, {left} left"
        )

    def advance(self, count: int = 1) -> None:
        self.done += count
        self.report_if_due()

    def report_if_due(self) -> None:
        with self.lock:
            now = self.clock()
            if now - self.last >= self.every:
                self.last = now
                self.log.info(self.line())

    def finish(self) -> None:
        self.stopped.set()
        elapsed = self.clock() - self.started
        rate = f", {self.done / elapsed:.3g} {self.unit}/s" if elapsed > 0 else ""
        self.log.info(
            "%s: done, %d/%d %s in %s%s", self.what, self.done, self.total, self.unit, duration(elapsed), rate
        )


def _heartbeat(progress_ref, stopped: threading.Event, interval: float) -> None:
    """Lines for a step that outlasts ``every``; ends with the work, or once nothing holds the Progress."""
    while not stopped.wait(interval):
        progress = progress_ref()
        if progress is None:
            return
        progress.report_if_due()
        del progress
