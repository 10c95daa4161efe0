"""stsynth.core.progress: done/total, rate and time left at least every `every` seconds, start and end lines."""

import logging

from stsynth.core.progress import Progress, duration


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_lines_at_start_every_interval_and_end(caplog):
    clock, log = Clock(), logging.getLogger("test_progress")
    with caplog.at_level(logging.INFO, logger="test_progress"):
        with Progress(log, "fine-tuning", 400, "steps", every=20.0, clock=clock) as progress:
            for _ in range(400):
                clock.now += 0.25  # 4 steps/s: a line every 80 steps
                progress.advance()
    lines = [record.getMessage() for record in caplog.records]
    assert lines[0] == "fine-tuning: 400 steps to do"
    assert lines[1] == "fine-tuning: 80/400 steps (20%), 4 steps/s, 20 s elapsed, 1 min 20 s left"
    assert len(lines) == 1 + 5 + 1  # start, one every 20 s of a 100 s job, end
    assert lines[-1] == "fine-tuning: done, 400/400 steps in 1 min 40 s, 4 steps/s"


def test_a_failed_job_writes_no_done_line(caplog):
    clock, log = Clock(), logging.getLogger("test_progress")
    with caplog.at_level(logging.INFO, logger="test_progress"):
        try:
            with Progress(log, "encoding", 10, "pairs", every=20.0, clock=clock) as progress:
                progress.advance(3)
                raise RuntimeError("disk full")
        except RuntimeError:
            pass
    assert [record.getMessage() for record in caplog.records] == ["encoding: 10 pairs to do"]


def test_the_interval_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("STSYNTH_PROGRESS_SECONDS", "0")
    assert Progress(logging.getLogger("test_progress"), "x", 1).every == 0.0
    monkeypatch.delenv("STSYNTH_PROGRESS_SECONDS")
    assert Progress(logging.getLogger("test_progress"), "x", 1).every == 20.0


def test_durations_read_as_a_person_would():
    assert [duration(s) for s in (4.4, 59.6, 61, 3599, 3600, 7380)] == [
        "4 s",
        "60 s",
        "1 min 01 s",
        "59 min 59 s",
        "1 h 00 min",
        "2 h 03 min",
    ]


def test_a_step_longer_than_the_interval_still_gets_its_lines(caplog):
    import time

    log = logging.getLogger("test_progress")
    with caplog.at_level(logging.INFO, logger="test_progress"):
        with Progress(log, "encoding", 2, "batches", every=0.4) as progress:
            time.sleep(1.3)  # one slow batch: the daemon thread writes the lines a step would
            progress.advance(2)
        time.sleep(0.5)  # finished: nothing more
    lines = [record.getMessage() for record in caplog.records]
    assert lines[0] == "encoding: 2 batches to do" and lines[-1].startswith("encoding: done, 2/2 batches")
    middle = lines[1:-1]
    assert len(middle) >= 2 and all(line.startswith("encoding: 0/2 batches (0%)") for line in middle[:2])
