"""Send a workflow script's log records, and any error that stops it, to the rule's ``log:`` file."""

from __future__ import annotations

import atexit
import gc
import logging
import sys


def log_to(path: str) -> logging.Logger:
    logging.basicConfig(
        filename=path,
        filemode="w",
        level=logging.INFO,
        force=True,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.captureWarnings(True)
    log = logging.getLogger("stsynth")

    def log_then_raise(kind, error, traceback):
        # The rule's log then carries the error (file and line of bad input) next to what was read.
        log.error("%s: %s", kind.__name__, error, exc_info=(kind, error, traceback))
        sys.__excepthook__(kind, error, traceback)

    sys.excepthook = log_then_raise
    # A job's interpreter, on its way out, collects every object its libraries made: 0.3 s a job with torch
    # loaded, 1.1 s with sentence-transformers (measured). Frozen objects are left to the process's exit;
    # the exit status, the log's flush (logging's own exit handler, after this one) and the outputs stay as they are.
    atexit.unregister(gc.freeze)  # once, however often a process opens a log (a test opens many)
    atexit.register(gc.freeze)
    return log
