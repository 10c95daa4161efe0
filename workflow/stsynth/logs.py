"""Send a workflow script's log records to the rule's ``log:`` file."""
from __future__ import annotations

import logging


def log_to(path: str) -> logging.Logger:
    logging.basicConfig(filename=path, filemode="w", level=logging.INFO, force=True,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.captureWarnings(True)
    return logging.getLogger("stsynth")
