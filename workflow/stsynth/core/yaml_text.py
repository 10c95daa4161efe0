"""YAML read through libyaml's parser where PyYAML has it: the same safe constructors and values as
``yaml.safe_load``, about fifteen times faster on the schema and the configs that every Snakemake start (every
cluster job's too) reads. Text libyaml refuses is read again by PyYAML's own parser, so a refusal says what
PyYAML says (its line and column, its wording)."""

from __future__ import annotations

import yaml

SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(text: str):
    """``yaml.safe_load(text)``, parsed by libyaml."""
    try:
        return yaml.load(text, Loader=SAFE_LOADER)
    except yaml.YAMLError:
        return yaml.safe_load(text)
