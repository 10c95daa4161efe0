"""``make decisions``: what a tree's dev searches chose (its ``results/fusion/decisions.yaml``, which `make studies`
writes) copied over the decisions file of the protocol the tree was built on (``config/decisions/<protocol>.yaml``,
which `all` reads). The protocol is the one the file records, so a 2017 tree's choices can only go to the 2017
protocol's file; ``PROTOCOL=`` (``--protocol``) may name it too, and is refused where it names another.

    python -m stsynth.pipeline.decisions --tree runs/sts2017      # make decisions DIR=runs/sts2017
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
from pathlib import Path

import yaml

from ..core import yaml_text
from ..core.paths import study_file
from .overlays import CHECKOUT

STUDY_DECISIONS = study_file("decisions", ".yaml")  # in the tree: the rule fusion_decisions's output
# the record of the files written before they had a ``protocol:`` key: their first line
OLD_RECORD = re.compile(r"^# What the dev searches of protocol (?P<protocol>\S+) chose")


class DecisionsError(ValueError):
    """A tree without a decisions file, one that names no protocol, or a protocol given that is not its own."""


def recorded_protocol(path: Path) -> str | None:
    """The protocol whose decisions file a tree's ``decisions.yaml`` is for: its ``protocol:`` key (or, in a file
    written before that key, its first line's), None where it names none."""
    text = path.read_text(encoding="utf-8")
    try:
        data = yaml_text.safe_load(text) or {}
    except yaml.YAMLError as error:
        raise DecisionsError(f"{path} is not YAML: {error}") from None
    if isinstance(data, dict) and data.get("protocol"):
        return str(data["protocol"])
    found = OLD_RECORD.match(text)
    return found["protocol"] if found else None


def record(tree: str | Path, protocol: str | None = None, checkout: str | Path = CHECKOUT) -> Path:
    """Copy ``tree``'s decisions over its protocol's decisions file in ``checkout``; the file written."""
    source = Path(tree) / STUDY_DECISIONS
    if not source.is_file():
        raise DecisionsError(f"{source} does not exist: `make studies` (with the same DIR=) writes it")
    recorded = recorded_protocol(source)
    if recorded is None and protocol is None:
        raise DecisionsError(f"{source} names no protocol: say which with PROTOCOL=")
    if protocol is not None and recorded is not None and protocol != recorded:
        raise DecisionsError(
            f"PROTOCOL={protocol}, but {source} holds what the dev searches of protocol {recorded} chose: they go to "
            f"config/decisions/{recorded}.yaml (leave PROTOCOL= out)"
        )
    target = Path(checkout) / "config" / "decisions" / f"{recorded or protocol}.yaml"
    shutil.copyfile(source, target)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make decisions", description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", default=".", help="the working directory `make studies` ran in (DIR=)")
    parser.add_argument("--protocol", help="the protocol the tree was built on (default: the one its file records)")
    options = parser.parse_args(argv)
    try:
        written = record(options.tree, options.protocol or None)
    except DecisionsError as error:
        print(f"make decisions: {error}", file=sys.stderr)
        return 2
    print(f"wrote {written.relative_to(CHECKOUT) if written.is_relative_to(CHECKOUT) else written}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
