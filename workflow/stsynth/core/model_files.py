"""The settings a project model file carries: safetensors metadata under the key ``stsynth`` (a JSON object).

Read without torch (``framework="numpy"`` opens the header alone), so a job that only reads a model's settings,
such as a model card's, does not pay torch's import."""

from __future__ import annotations

import json
from pathlib import Path

METADATA_KEY = "stsynth"


def stored_settings(path: str | Path) -> dict:
    """The JSON object a model file was saved with (its ``stsynth`` metadata)."""
    from safetensors import safe_open

    with safe_open(str(path), framework="numpy") as handle:
        return json.loads(handle.metadata()[METADATA_KEY])
