"""`make docs` / `make check-docs`: every marked figure of README.md and docs/ rendered from built trees,
and what differs from the Markdown.

``make check-docs`` renders every block and inline figure (doc_blocks.py) again and names the file, line and
both values of every figure that differs. A block or figure whose tree lacks its files (the STS 2017
protocol not built, ``make studies`` not run, ...) is left as it is and listed as not checked. A figure of a
training-dependent run may differ within the seed study's spread (:func:`tolerances`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from doc_blocks import BLOCKS, figure
from doc_tree import BLOCK, DECIMAL, FIGURE, NUMBER, NotBuilt, NotInBuild, Tree

# --- the tolerance of training-dependent figures -----------------------------------------------------

SEED_BLOCKS = ("seed-study-2016", "seed-study-2017")  # each protocol's seed study (2017: Table 1's head runs)
SEED_WIDTHS = 3  # a figure of a run the seed study repeats may move by this many seed sds between builds
SEED_ROW = re.compile(
    r"^\| `(?P<run>[^`]+)` \| [^|]+ \| [^|]+ \| \d+ \| [^|]+ \| [\d.]+ ± (?P<sd>\d*\.\d+) \| [^|]+ \| "
    r"(?P<set_sd>\d*\.\d+) \|",
    re.M,
)
NAMED = re.compile(r"`([^`]+)`")
PER_SET_BLOCKS = {"per-set-2016", "per-set-2016-encoders"}  # blocks whose lines hold every test set's figure


def tolerances(texts: list[str]) -> dict[str, dict]:
    """Run -> how far its figures may differ from the doc's and still be the same result, for an ALL
    (``"ALL"``: SEED_WIDTHS times the largest seed sd of its ALLs) and for a test set's figure (``"sets"``: of
    its sets), and the ``"block"`` they come from, read from the committed seed-study blocks, so a fresh clone's
    check has them before `make studies` has run. A run the seed study did not repeat has none: its figures
    must be exact. A run in two protocols' studies gets the larger."""
    found: dict[str, dict] = {}
    for text in texts:
        for block in BLOCK.finditer(text):
            if block["name"] in SEED_BLOCKS:
                for row in SEED_ROW.finditer(block["body"]):
                    run = found.setdefault(row["run"], {"ALL": 0.0, "sets": 0.0, "block": block["name"]})
                    if SEED_WIDTHS * float(row["sd"]) > run["ALL"]:
                        run.update(ALL=SEED_WIDTHS * float(row["sd"]), block=block["name"])
                    run["sets"] = max(run["sets"], SEED_WIDTHS * float(row["set_sd"]), run["ALL"])
    return found


def within(old: str, new: str, tolerance: float) -> bool:
    """The same text but for numbers, each within ``tolerance`` (plus half a unit of its last printed digit);
    a p value printed as a bound ("p < 0.001") counts as that number."""
    old, new = old.replace("< ", ""), new.replace("< ", "")
    if NUMBER.sub("#", old) != NUMBER.sub("#", new):
        return False
    pairs = list(zip(NUMBER.findall(old), NUMBER.findall(new)))
    value = lambda number: float(number.replace("−", "-"))
    unit = lambda number: 0.5 * 10 ** -len(number.partition(".")[2])
    return all(abs(value(a) - value(b)) <= tolerance + unit(a) + 1e-12 for a, b in pairs)


def tolerance_of(names, allowed: dict[str, dict], level: str) -> tuple[float, list[str]]:
    """The tolerance of a figure (``level`` ALL, or sets: a line of every test set's figure) naming these
    runs: the sum of theirs (a difference of two runs moves with both), and the runs that have one."""
    runs = [name for name in dict.fromkeys(names) if name in allowed]
    return sum(allowed[run][level] for run in runs), runs


# --- writing and checking -------------------------------------------------------------------------


@dataclass
class Outcome:
    text: str  # the file with every buildable mark rendered
    differences: list[str] = field(default_factory=list)  # "file:line: ..." per differing figure
    tolerated: list[str] = field(default_factory=list)  # the same, within the seed study's tolerance
    not_checked: list[str] = field(default_factory=list)  # marks whose files are not built
    checked: int = 0
    unmarked: list[int] = field(default_factory=list)  # lines with a decimal figure outside any mark


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def first_difference(old: str, new: str) -> str:
    """Both values of the first figure that differs between two lines, or both lines."""
    old_numbers, new_numbers = NUMBER.findall(old), NUMBER.findall(new)
    for a, b in zip(old_numbers, new_numbers):
        if a != b:
            return f"the doc has {a}, the build gives {b}"
    return f"the doc has {old.strip()!r}, the build gives {new.strip()!r}"


def render(text: str, path: str, trees: dict[str, Tree], allowed: dict[str, dict] | None = None) -> Outcome:
    """Every mark of ``text`` (the file ``path``) rendered from ``trees``, with what differs and what is not built.
    Inline figures first: they never span lines, so the blocks' line numbers stay those of the file.
    ``allowed`` (:func:`tolerances`): a figure or table line naming a run the seed study repeated may differ
    by that run's tolerance: it is listed as tolerated, not as a difference."""
    outcome, allowed = Outcome(text), allowed or {}

    def compare(where: str, old: str, new: str, names, first: str, level: str = "ALL") -> bool:
        """Record a differing figure or line (``first``: how it differs); True when it is a difference."""
        tolerance, runs = tolerance_of(names, allowed, level)
        if tolerance and within(old, new, tolerance):
            blocks = ", ".join(dict.fromkeys(allowed[run]["block"] for run in runs))
            outcome.tolerated.append(
                f"{where}: {first}: within {SEED_WIDTHS} × the seed sd of "
                f"{', '.join(runs)} ({tolerance:.4f}; block {blocks})"
            )
            return False
        outcome.differences.append(f"{where}: {first}")
        return True

    def rendered(what: str, offset: int, make: Callable[[], str]) -> str | None:
        """make()'s text; None, with the mark listed as not built (a missing file) or as a difference (a
        file without the row it names: a typo must not hide), when it cannot be made."""
        where = f"{path}:{line_of(text, offset)}: {what}"
        try:
            value = make()
        except NotBuilt as missing:
            outcome.not_checked.append(f"{where}: not built: {missing}")
            return None
        except NotInBuild as missing:
            outcome.differences.append(f"{where}: {missing}")
            return None
        outcome.checked += 1
        return value

    def block(match: re.Match) -> str:
        name, body = match["name"], match["body"]
        if name not in BLOCKS:
            raise ValueError(
                f"{path}:{line_of(text, match.start())}: unknown generated block {name!r} (known: {', '.join(BLOCKS)})"
            )
        tree_name, writer = BLOCKS[name]
        new = rendered(f"block {name}", match.start(), lambda: writer(trees[tree_name]).rstrip("\n") + "\n")
        if new is None:
            return match[0]
        first_line = line_of(text, match.start("body"))
        old_lines, new_lines = body.splitlines(), new.splitlines()
        for i, (old, fresh) in enumerate(zip(old_lines, new_lines)):
            if old != fresh and compare(
                f"{path}:{first_line + i}: block {name}",
                old,
                fresh,
                NAMED.findall(fresh),
                first_difference(old, fresh),
                "sets" if name in PER_SET_BLOCKS else "ALL",
            ):
                break
        else:
            if len(old_lines) != len(new_lines):
                outcome.differences.append(
                    f"{path}:{first_line}: block {name}: the doc has {len(old_lines)} lines, "
                    f"the build gives {len(new_lines)}"
                )
        return match[0].replace(body, new, 1) if body else match[0].replace("-->\n", "-->\n" + new, 1)

    def inline(match: re.Match) -> str:
        value = rendered(f"figure {match['key']}", match.start(), lambda: figure(match["key"], trees))
        if value is None:
            return match[0]
        if value != match["value"]:
            arguments = match["key"].split(":")[1:]
            level = "sets" if arguments[0].startswith("score") and not arguments[3].startswith("ALL") else "ALL"
            compare(
                f"{path}:{line_of(text, match.start())}: figure {match['key']}",
                match["value"],
                value,
                arguments[1:],
                f"the doc has {match['value']}, the build gives {value}",
                level,
            )
        return f"<!-- fig: {match['key']} -->{value}<!-- /fig -->"

    text = FIGURE.sub(inline, text)
    outcome.text = BLOCK.sub(block, text)
    outcome.unmarked = unmarked_lines(outcome.text)
    return outcome


def unmarked_lines(text: str) -> list[int]:
    """Lines holding a figure with three or more decimals outside every block and inline mark: prose
    the check does not cover (papers' figures, studies of earlier builds), counted so it stays visible."""
    blank = lambda match: "\n" * match[0].count("\n")  # keeps line numbers
    bare = FIGURE.sub("", BLOCK.sub(blank, text))
    return [number for number, line in enumerate(bare.splitlines(), 1) if DECIMAL.search(line)]
