"""What the config's start-up checks share (stsynth.pipeline.config_checks, config_checks_2017): the error they
raise and :class:`Checks`, which holds the config, the problems and notes found so far, and the lookups that
resolve a name (a dataset year, a pair table, a model, an encoder) to what the config declares.
"""

from __future__ import annotations

from ..core.paths import EVENT_VECTOR_SOURCES
from .protocol import gold_table_splits

VECTOR_BASES = ("paragram-xxl", "glove-6b-50d", "minilm-static")


class ConfigError(ValueError):
    """A config value that names something the config does not define."""


def vector_sources() -> list[str]:
    return [*VECTOR_BASES, *(f"ppdb-paragram-{base}" for base in VECTOR_BASES), *EVENT_VECTOR_SOURCES]


class Checks:
    """What the section checkers share: the config, the problems and notes found so far, and the lookups
    that resolve a name (a pair table, a model, an encoder) to what the config declares."""

    def __init__(self, config: dict, manifest, features, declared: list[dict] | None = None):
        self.config, self.manifest, self.features = config, manifest, features
        self.problems: list[str] = []
        self.notes: list[str] = []
        self.datasets = config.get("datasets", [])  # those the protocol keeps, each with its role
        self.declared = self.datasets if declared is None else declared
        self.names = {f"{d['year']}/{d['name']}" for d in self.datasets}
        self.tables = [
            *gold_table_splits(config),  # each declared gold table and its dev-protocol twin
            "synthetic",
            *(f"synthetic-{n.replace('/', '-')}" for n in sorted(self.names)),
        ]
        self.models = config.get("paragram", {}).get("models", {})
        self.runs = config.get("runs", {})
        encoder = config.get("encoder", {})
        self.named = encoder.get("models", {})
        self.tuned = encoder.get("tuning", {}).get("models", {})
        self.encoders = [*self.named, *self.tuned]

    def need(self, path: str, value, known, what: str) -> None:
        if value not in known:
            choices = ", ".join(map(str, known)) or "none"
            self.problems.append(f"{path}: {value!r} is not {what} (known: {choices})")

    def need_tables(self, where: str, pairs: list[str]) -> None:
        for i, table in enumerate(pairs):
            self.need(
                f"{where}.pairs[{i}]",
                table,
                self.tables,
                "a paraphrase pair table (paraphrase_pairs.tables, synthetic or synthetic-<year>-<dataset>)",
            )

    def need_model(self, path: str, model) -> None:
        self.need(path, model, list(self.models), "a model in paragram.models")

    def need_run(self, path: str, run) -> None:
        self.need(path, run, list(self.runs), "a run in runs")

    def need_vectors(self, path: str, source) -> None:
        self.need(path, source, vector_sources(), "a word-vector source")

    def need_encoder(self, path: str, encoder) -> None:
        self.need(path, encoder, self.encoders, "an encoder (encoder.models or encoder.tuning.models)")

    def check_holdout(self, where: str, entry: dict) -> None:
        if (holdout := entry.get("holdout")) and not holdout["fold"] < holdout["folds"]:
            self.problems.append(
                f"{where}.holdout: fold {holdout['fold']} of {holdout['folds']} holds nothing out "
                f"(folds are numbered 0 to {holdout['folds'] - 1})"
            )

    def runs_of_stage(self, stage: str) -> list[str]:
        return [run for run, entry in self.runs.items() if entry.get("stage") == stage]
