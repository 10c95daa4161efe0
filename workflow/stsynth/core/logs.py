"""Send a workflow script's log records, and any error that stops it, to the rule's ``log:`` file."""

from __future__ import annotations

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
    return log
