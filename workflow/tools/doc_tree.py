"""A built working directory as `make docs` reads it (:class:`Tree`), and how a figure is written.

The docs check (docs.py, doc_marks.py) renders every marked figure of README.md and docs/ from such trees;
doc_blocks.py holds what each block and inline figure kind writes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from stsynth.core.paths import PAPER_TABLES, REPORT_PARTS, scores_path
from stsynth.core.scoring import p_value_cell
from stsynth.pipeline.cli import (  # workflow/stsynth/pipeline/targets.tsv: each target's overlays and folder
    OVERLAYS,
    TARGETS,
)
from stsynth.pipeline.overlays import resolved_config

DOC_FILES = ("README.md", "docs/results.md", "docs/reproducibility.md")
TREES = {name: TARGETS[name].directory for name in ("all", "sts2017", "stsb", "eval")}  # tree -> its working directory
CHECKOUT_CONFIG = Path(__file__).resolve().parents[2] / "config.yaml"
TABLE1_FILE = PAPER_TABLES["sts2017_table1"] + ".parquet"  # the 2017 system's Table 1 (rule paper_table1)

BLOCK = re.compile(r"<!-- generated: (?P<name>[\w-]+)[^>]*-->\n(?P<body>.*?)<!-- end generated: (?P=name) -->", re.S)
FIGURE = re.compile(r"<!-- fig: (?P<key>.+?) -->(?P<value>.*?)<!-- /fig -->")
NUMBER = re.compile(r"[−+-]?\d*\.\d+|\d+")
DECIMAL = re.compile(r"(?<![\w.])\d?\.\d{3,}\b")


class NotBuilt(Exception):
    """A file a block or figure reads does not exist in its tree: the mark is left as it is."""


class NotInBuild(Exception):
    """The file exists but has no row for what the mark names (a renamed run, a typo): a difference."""


@dataclass
class Tree:
    """One built working directory: its tables, read once."""

    name: str
    root: Path
    _cache: dict = field(default_factory=dict)

    def table(self, relpath: str) -> pd.DataFrame:
        if relpath not in self._cache:
            path = self.root / relpath
            if not path.exists():
                raise NotBuilt(f"{path} (tree {self.name})")
            self._cache[relpath] = pd.read_parquet(path)
        return self._cache[relpath]

    def config(self, *overlays: Path) -> dict:
        """The config the tree's protocol is built with, resolved (the schema's defaults filled): its own
        config.yaml (a checkout's `make all`), else that of the checkout this code is in (a tree built elsewhere
        with `--directory`), under the protocol's overlay; then ``overlays`` over it."""
        if not overlays and "config" in self._cache:
            return self._cache["config"]
        path = self.root / "config.yaml"
        protocol = [CHECKOUT_CONFIG.parent / overlay for overlay in OVERLAYS.get(self.name, [])]
        config = resolved_config([path if path.exists() else CHECKOUT_CONFIG, *protocol, *overlays])
        if not overlays:
            self._cache["config"] = config
        return config

    def protocol_runs(self) -> set[str]:
        """The runs of the protocol's own config: a block that lists every row of a shared table lists these, so
        an overlay that adds runs to the same tree (`make mpnet`, `make sts2017-cross`, ...) leaves it as it is."""
        return set(self.config()["runs"])

    def protocol_groups(self) -> set[str]:
        """The groups of the protocol's own test sets: the rows a block reads from a scores or comparisons table,
        so a set added beside the protocol (``role: test``, scored in a group of its own) leaves every block as
        it is, whatever overlay added it."""
        datasets = self.config()["datasets"]
        return {str(d.get("group", d["year"])) for d in datasets if d["role"] == "test" and not d.get("added")}

    def protocol_rows(self, table: pd.DataFrame) -> pd.DataFrame:
        """The rows of a scores or comparisons table that are the protocol's own test groups'."""
        return table[table["group"].astype(str).isin(self.protocol_groups())] if "group" in table else table

    def machine(self) -> str:
        """The CPU the tree was built on, as its report's provenance names it (results/report.md)."""
        path = self.root / REPORT_PARTS["results"]
        if not path.exists():
            raise NotBuilt(f"{path} (tree {self.name})")
        found = re.search(r"^\| CPU \| (.+?) \|$", path.read_text(), re.M)
        if not found:
            raise NotInBuild(f"{path} names no CPU")
        return found[1]

    def scores(self, run: str) -> pd.DataFrame:
        return self.table(scores_path(run))

    def score(self, run: str, track: str, dataset: str) -> pd.Series:
        table = self.protocol_rows(self.scores(run))
        rows = table[(table["track"] == track) & (table["dataset"] == dataset)]
        if len(rows) != 1:
            raise NotInBuild(f"{self.root}/{scores_path(run)} has {len(rows)} rows for {track} {dataset}")
        return rows.iloc[0]

    def comparison(self, run: str, against: str, track: str, metric: str = "pearson") -> pd.Series:
        table = self.protocol_rows(self.table(scores_path("comparisons")))
        rows = table[
            (table["run"] == run)
            & (table["against"] == against)
            & (table["track"] == track)
            & (table["metric"] == metric)
        ]
        if len(rows) != 1:
            raise NotInBuild(f"{self.root}/{scores_path('comparisons')} has no {run} − {against} ({track}, {metric})")
        return rows.iloc[0]


def trees_of(roots: dict[str, str | Path]) -> dict[str, Tree]:
    return {name: Tree(name, Path(root)) for name, root in roots.items()}


# --- formatting: one place for how a figure is written --------------------------------------------


def ci(row: pd.Series, metric: str = "pearson") -> str:
    return f"{row[metric]:.4f} [{row[f'{metric}_ci_low']:.3f}, {row[f'{metric}_ci_high']:.3f}]"


def signed(value: float, digits: int = 4) -> str:
    return f"{value:+.{digits}f}".replace("-", "−")


def difference(row: pd.Series) -> str:
    interval = f"[{signed(row['ci_low'])}, {signed(row['ci_high'])}]"
    return f"{signed(row['difference'])} {interval}, p {p_value_cell(row['p_value'])}"


def paper(value) -> str:
    """A published figure as printed."""
    return "" if value is None else str(value)


RUNS_2016 = [
    "baseline",
    "paragram-raw",
    "task-internal",
    "synthetic",
    "synthetic-per-set",
    "encoder",
    "fusion",
    "fusion-encoder",
    "encoder-sts",
    "fusion-tuned",
]


EN_SETS = ["answer-answer", "headlines", "plagiarism", "postediting", "question-question"]


ES_EN_SETS = ["news", "multisource"]


PAPER_RUNS = {"task-internal": "task-internal", "synthetic": "synthetic", "fusion": "fusion"}  # ours -> DCU's name
