"""Config overlays: what adds to a list, and which file a validation error comes from.

Snakemake merges ``--configfile`` overlays into config.yaml key by key: a mapping in an overlay adds
to the mapping below it (``runs:``, ``encoder.models:``, ``eval.tasks:``), but a list replaces the list
below it whole: an overlay with one ``datasets:`` entry leaves that one dataset. To add to a list, an
overlay writes ``extra_<key>:`` beside it (``extra_datasets:`` at the top, ``eval.extra_encoders:``,
``eval.extra_models:``): :func:`append_extras` appends them, in overlay order, before validation.

:func:`schema_problems` validates the merged config with the workflow's JSON schema and names, for
every problem, the config key and the config files that set that key's section, so an error in an
overlay points at the overlay.

:func:`resolved_config` is the config a run sees, outside Snakemake (tests, tools): the files merged as
Snakemake merges them, the extras appended, the schema's defaults filled.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from .checks import ConfigError

EXTRA = "extra_"
# The schema of a checkout (this file: workflow/stsynth/pipeline/overlays.py).
SCHEMA = Path(__file__).resolve().parents[2] / "schemas" / "config.schema.yaml"


class OverlayError(ValueError):
    """An ``extra_<key>`` whose ``<key>`` is no list."""


def append_extras(config: dict, where: str = "") -> None:
    """Append every ``extra_<key>`` of the config (at the top and in its sections) to ``<key>``, in
    place, and drop the ``extra_`` keys."""
    for key in [k for k in config if isinstance(k, str) and k.startswith(EXTRA)]:
        target, extra = key[len(EXTRA) :], config.pop(key)
        if not isinstance(extra, list):
            raise OverlayError(f"{where}{key}: a list to append to {where}{target} (got {type(extra).__name__})")
        if target in config and not isinstance(config[target], list):
            raise OverlayError(
                f"{where}{key}: {where}{target} is a {type(config[target]).__name__}, not a list: "
                f"a mapping in an overlay adds to it already, write {where}{target}: in the overlay"
            )
        config[target] = [*config.get(target, []), *extra]
    for key, value in config.items():
        if isinstance(value, dict) and key in ("eval",):
            append_extras(value, f"{where}{key}.")


def files_setting(configfiles: list[str], section: str) -> list[str]:
    """The config files (in order) that set top-level key ``section`` or ``extra_<section>``."""
    found = []
    for path in configfiles:
        try:
            data = yaml.safe_load(Path(path).read_text()) or {}
        except (OSError, yaml.YAMLError):
            continue
        if isinstance(data, dict) and (section in data or f"{EXTRA}{section}" in data):
            found.append(str(path))
    return found


def schema_problems(config: dict, schema_path: str | Path, configfiles: list[str]) -> list[str]:
    """Every way the config breaks the schema, each naming its key and the files that set its section."""
    import jsonschema

    schema = yaml.safe_load(Path(schema_path).read_text())
    validator = jsonschema.Draft202012Validator(schema)
    problems = []
    for error in sorted(validator.iter_errors(config), key=lambda e: list(map(str, e.absolute_path))):
        path = list(error.absolute_path)
        key = (
            "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else str(p)) for i, p in enumerate(path))
            or "(top)"
        )
        files = files_setting(configfiles, str(path[0])) if path else []
        problems.append(f"{key}: {error.message}" + (f" (set in {', '.join(files)})" if files else ""))
    return problems


class _KeyRecordingLoader(yaml.SafeLoader):
    """A SafeLoader that notes every mapping key given twice (YAML loaders keep the last one silently)."""

    def __init__(self, stream, name: str):
        super().__init__(stream)
        self.name, self.repeated = name, []

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            first_line = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                line = key_node.start_mark.line + 1
                if key in first_line:
                    self.repeated.append(
                        (
                            line,
                            f"{self.name}:{line}: key {key!r} is given again (first on line "
                            f"{first_line[key]}); YAML would keep the last value without a word",
                        )
                    )
                first_line.setdefault(key, line)
        return super().construct_mapping(node, deep=deep)


def check_unique_keys(paths) -> None:
    """Raise ConfigError naming every key that a config file (config.yaml or an overlay) gives twice."""
    problems = []
    for path in paths:
        loader = _KeyRecordingLoader(Path(path).read_text(encoding="utf-8"), str(path))
        try:
            loader.get_single_data()
        finally:
            loader.dispose()
        problems += [message for _, message in sorted(loader.repeated)]
    if problems:
        raise ConfigError(f"{len(problems)} repeated key(s):\n  " + "\n  ".join(problems))


def resolved_config(files, overrides: dict | None = None, schema: str | Path = SCHEMA) -> dict:
    """The config a workflow run with these config files (config.yaml first, then the overlays) and
    ``--config`` values sees after start-up's merge and validation: each file merged over the ones before it
    as Snakemake merges them (a mapping adds to the one below, anything else replaces it), the extras
    appended, the schema's defaults filled (a bad value raises snakemake's WorkflowError)."""
    from snakemake.utils import update_config, validate

    config: dict = {}
    for path in files:
        update_config(config, yaml.safe_load(Path(path).read_text()) or {})
    update_config(config, overrides or {})
    append_extras(config)
    validate(config, str(schema))
    return config
