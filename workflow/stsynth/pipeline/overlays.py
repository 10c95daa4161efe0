"""Config overlays: what adds to a list, and which file a validation error comes from.

Snakemake merges ``--configfile`` overlays into config.yaml key by key: a mapping in an overlay adds
to the mapping below it (``runs:``, ``encoder.models:``, ``eval.tasks:``), but a list replaces the list
below it whole: an overlay with one ``datasets:`` entry leaves that one dataset. To add to a list, an
overlay writes ``extra_<key>:`` beside it (``extra_datasets:`` at the top, ``eval.extra_encoders:``,
``eval.extra_models:``): :func:`append_extras` appends them, in overlay order, before validation.

:func:`schema_problems` validates the merged config with the workflow's JSON schema and names, for
every problem, the config key and where it was set (:class:`ConfigOrigins`: the files that give that very
key, or ``--config``), so an error in an overlay points at the overlay.

:func:`declare` is start-up's one sequence over a merged config, in the Snakefile and outside it alike: the
datasets file read, the extras appended, the schema's defaults filled and its check. :func:`declared_config` is
the config a run is given, outside Snakemake (tests, tools): the files merged as Snakemake merges them, then
:func:`declare`; :func:`resolved_config` that config as the stages read it (its protocol resolved).
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from ..core import yaml_text
from ..core.wording import counted
from .checks import ConfigError

EXTRA = "extra_"
# The checkout and its schema (this file: workflow/stsynth/pipeline/overlays.py).
CHECKOUT = Path(__file__).resolve().parents[3]
SCHEMA = CHECKOUT / "workflow" / "schemas" / "config.schema.yaml"


class OverlayError(ValueError):
    """An ``extra_<key>`` whose ``<key>`` is no list."""


def append_extras(config: dict, where: str = "") -> None:
    """Append every ``extra_<key>`` of the config (at the top, in ``eval``, and wherever an ``extra_<key>`` holds
    a list beside a list ``<key>``: ``scoring.compare.extra_pairs``, ``encoder.tuning.extra_dev_check``) to
    ``<key>``, in place, and drop the ``extra_`` keys. Below the top and ``eval`` a key that merely starts with
    ``extra_`` and holds no list is a name (a run, a model) and is left alone."""
    strict = where in ("", "eval.")
    for key in [k for k in config if isinstance(k, str) and k.startswith(EXTRA)]:
        if not strict and not (isinstance(config[key], list) and isinstance(config.get(key[len(EXTRA) :]), list)):
            continue
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
        if isinstance(value, dict):
            append_extras(value, f"{where}{key}.")


def typed_command_line(config: dict, command_line: dict) -> None:
    """The values ``--config key={a: 1}`` nests, typed as a config file types them, in place: Snakemake reads a
    top-level value as a number, a boolean or text, but everything inside a mapping or list as text (YAML's base
    loader), so ``fusion={seed: 3}`` would give the seed ``'3'``. Each nested text is read as YAML reads it in a
    file (``3`` a number, ``true`` a boolean, ``x`` text); a text YAML cannot read stays as it is."""

    def typed(value):
        if isinstance(value, dict):
            return {key: typed(item) for key, item in value.items()}
        if isinstance(value, list):
            return [typed(item) for item in value]
        if isinstance(value, str):
            try:
                read = yaml_text.safe_load(value)
            except yaml.YAMLError:
                return value
            return read if read is None or isinstance(read, (bool, int, float, str)) else value
        return value

    for key, value in command_line.items():
        if isinstance(value, (dict, list)) and key in config:
            config[key] = _typed_over(config[key], typed(value))


def _typed_over(merged, typed_value):
    """``merged`` (the config's value after Snakemake merged --config into it) with the typed command-line values
    put where the command line set them."""
    if isinstance(merged, dict) and isinstance(typed_value, dict):
        return {**merged, **{key: _typed_over(merged.get(key), item) for key, item in typed_value.items()}}
    return typed_value


def merge_defaults(config: dict, schema: dict) -> None:
    """A mapping of names the schema marks ``x-merge-default`` (the feature groups, their sets, the eval tasks) is the
    schema's default with the config's names added (a later one replacing a default of the same name), in place,
    before validation: an overlay that adds a group keeps the project's own."""

    def walk(node: dict, section: dict) -> None:
        for key, child in node.get("properties", {}).items():
            if key not in section:
                continue
            if child.get("x-merge-default") and isinstance(section[key], dict):
                section[key] = {**child["default"], **section[key]}
            elif isinstance(section[key], dict):
                walk(child, section[key])

    walk(schema, config)


def sets_key(data, key: str) -> str | None:
    """How a config file's data (or ``--config``'s) gives the key ``key`` (``a.b[0].c``, as problems name keys):
    ``"set"`` (its mappings down to the key, or the list holding it: a list is given whole), ``"extended"`` (an
    ``extra_<list>`` that appends to the list holding it), or None. A name with dots in it (a run ``x.y``) is
    matched as one key."""
    if key == "" or (isinstance(data, list) and key.startswith("[")):
        return "set"
    if not isinstance(data, dict):
        return None
    names = sorted((str(name) for name in data), key=len, reverse=True)
    for name in names:
        if key == name or key.startswith((name + ".", name + "[")):
            rest = key[len(name) :].lstrip(".")
            return "set" if rest.startswith("[") else sets_key(data[name], rest)
    for name in names:
        if name.startswith(EXTRA) and key.startswith(f"{name[len(EXTRA) :]}["):
            return "extended"
    return None


class ConfigOrigins:
    """Where a config key got its value: the last of the config files (config.yaml first, then the overlays)
    that gives that very key, and those after it that append to its list (``extra_<list>``), or ``--config``
    (Snakemake's config from the command line), which overrides them all; a key none of them gives has the
    schema's default."""

    def __init__(self, configfiles, command_line=None):
        self.files, seen = [], set()
        for path in configfiles:
            if (resolved := Path(path).resolve()) in seen:  # the Snakefile's configfile given again
                continue
            seen.add(resolved)
            try:
                self.files.append((str(path), yaml_text.safe_load(Path(path).read_text()) or {}))
            except (OSError, yaml.YAMLError):
                continue
        self.command_line = dict(command_line or {})

    def __call__(self, key: str) -> str:
        """`` (set in mine.yaml)``, `` (set with --config)``, or nothing. An item of a top-level list (``datasets[4]``)
        is named by the one file that gave it: the list's own (the datasets file where ``datasets`` names one), or
        the overlay whose ``extra_<list>`` appended it."""
        if sets_key(self.command_line, key):
            return " (set with --config)"
        if item := self.item_origin(key):
            return f" (set in {item})"
        found = [(path, sets_key(data, key)) for path, data in self.files]
        last = max((i for i, (_, how) in enumerate(found) if how == "set"), default=0)
        files = [path for path, how in found[last:] if how]
        return f" (set in {', '.join(files)})" if files else ""

    def item_origin(self, key: str) -> str | None:
        """The file that gave item ``i`` of a top-level list ``key`` names (``datasets[4].fields``), or None."""
        match = re.match(r"([A-Za-z_]+)\[(\d+)\]", key)
        if not match:
            return None
        name, index = match.group(1), int(match.group(2))
        parts: list[tuple[str, int]] = []
        for path, data in self.files:
            if isinstance(value := data.get(name), (list, str)):
                parts = [self.list_part(path, value)]
            if isinstance(data.get(EXTRA + name), list):
                parts.append((path, len(data[EXTRA + name])))
        for path, count in parts:
            if index < count:
                return path
            index -= count
        return None

    @staticmethod
    def list_part(path: str, value) -> tuple[str, int]:
        """(the file the items are in, how many): a list in the config file, or the file a string names (relative
        to the checkout: ``datasets: config/datasets.yaml``)."""
        if isinstance(value, list):
            return path, len(value)
        listed = Path(value) if Path(value).is_absolute() else CHECKOUT / value
        try:
            return str(listed), len(yaml_text.safe_load(listed.read_text()) or [])
        except (OSError, yaml.YAMLError):
            return str(listed), 0


def origins_named(message: str, origins: ConfigOrigins) -> str:
    """A message of problems, one per ``  key: ...`` line, with where each key was set."""
    lines = message.split("\n")
    return "\n".join(
        f"{line}{origins(line.strip().split(':', 1)[0])}" if line.startswith("  ") and ":" in line else line
        for line in lines
    )


def read_schema(path: str | Path) -> dict:
    """The config schema (the checkout's own file)."""
    return yaml_text.safe_load(Path(path).read_text(encoding="utf-8"))


def key_name(path: list) -> str:
    """A key path as the problems name it: ``datasets[3].role``."""
    return "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else str(p)) for i, p in enumerate(path))


def schema_problems(config: dict, schema_path: str | Path, origins: ConfigOrigins, more: list[str] = ()) -> list[str]:
    """Every way the config breaks the schema, each naming its key and where that key was set; a value that does not
    match a pattern is told what the key takes (its description), not the regular expression. ``more``: the
    problems of the start-up checks that need no valid config (stsynth.pipeline.config_checks.early_problems), so
    one pass reports them all."""
    import jsonschema

    schema = read_schema(schema_path)
    validator = jsonschema.Draft202012Validator(schema)
    problems = []
    for error in sorted(validator.iter_errors(config), key=lambda e: list(map(str, e.absolute_path))):
        key = key_name(list(error.absolute_path))
        message = error.message
        if error.validator == "pattern" and error.schema.get("description"):
            message = f"{error.instance!r} is not what this key takes: {error.schema['description']}"
        problems.append(f"{key or '(top)'}: {message}{origins(key) if key else ''}")
    for problem in more:
        key = problem.split(":", 1)[0]
        problems.append(f"{problem}{origins(key)}")
    return problems


class _KeyRecordingLoader(yaml_text.SAFE_LOADER):
    """A safe loader that notes every mapping key given twice (YAML loaders keep the last one silently); libyaml's,
    since Snakemake has read these files already and refused a bad one."""

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
        raise ConfigError(f"{counted(len(problems), 'repeated key')}:\n  " + "\n  ".join(problems))


def declare(config: dict, checkout: str | Path, origins: ConfigOrigins, schema: str | Path = SCHEMA) -> None:
    """The merged config as a run declares it, in place: the datasets file read (a bad one raises
    stsynth.pipeline.protocol.ProtocolError), the extras appended, the schema's defaults filled, the schema's
    check, and each paraphrase-embedding model's source and study run (stsynth.pipeline.runs); a bad value raises
    snakemake's WorkflowError naming every problem and where its key was set (:func:`schema_problems`, with the
    early checks' problems, stsynth.pipeline.config_checks)."""
    from snakemake.exceptions import WorkflowError
    from snakemake.utils import validate

    from .protocol import load_datasets
    from .runs import declare_paraphrase_studies

    load_datasets(config, checkout)
    append_extras(config)
    merge_defaults(config, read_schema(schema))
    try:
        validate(config, str(schema))  # also fills the schema's defaults
    except WorkflowError:  # only then every problem again, with where its key was set, and those of the early checks
        from .config_checks import early_problems

        problems = schema_problems(config, schema, origins, early_problems(config))
        raise WorkflowError(f"{counted(len(problems), 'config problem')}:\n  " + "\n  ".join(problems)) from None
    if problems := declare_paraphrase_studies(config):
        raise WorkflowError(f"{counted(len(problems), 'config problem')}:\n  " + "\n  ".join(problems))


def declared_config(files, overrides: dict | None = None, schema: str | Path = SCHEMA) -> dict:
    """The config as a workflow run with these config files (config.yaml first, then the overlays) and
    ``--config`` values declares it, after start-up's merge and validation: each file merged over the ones before
    it as Snakemake merges them (a mapping adds to the one below, anything else replaces it), the datasets file
    read (stsynth.pipeline.protocol.load_datasets), the extras appended, the schema's defaults filled (a bad value
    raises snakemake's WorkflowError, as a run's start-up does: :func:`declare`). A file of it is a config a run
    accepts."""
    from snakemake.utils import update_config

    config: dict = {}
    for path in files:
        update_config(config, yaml_text.safe_load(Path(path).read_text()) or {})
    update_config(config, overrides or {})
    declare(config, CHECKOUT, ConfigOrigins(files, overrides), schema)
    return config


def resolved_config(files, overrides: dict | None = None, schema: str | Path = SCHEMA) -> dict:
    """:func:`declared_config` as every stage reads it: datasets given their years, the protocol resolved
    (stsynth.pipeline.protocol.resolve; corpus paths stay as written)."""
    from ..core.datasets import with_year
    from .protocol import resolve

    config = declared_config(files, overrides, schema)
    config["datasets"] = [with_year(entry) for entry in config["datasets"]]
    resolve(config, CHECKOUT)
    return config
