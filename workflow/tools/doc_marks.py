"""`make docs` / `make check-docs`: every marked figure of README.md and docs/ rendered from built trees,
and what differs from the Markdown.

``make check-docs`` renders every block and inline figure (doc_blocks.py) again and names the file, line and
both values of every figure that differs. A block or figure whose tree lacks its files (the STS 2017
protocol not built, ``make studies`` not run, ...) is left as it is and listed as not checked. A figure of a
training-dependent run may differ within the seed study's spread (:func:`tolerances`): its score, a difference
of two such runs with its interval (a p value may then move too: where it crosses 0.05 the check says the
significance is not robust), a DCU table's line, and Table 4's rank order (a feature's Gini within the spread of
the importances over the seeds). A figure that depends on no training must be exact. The check names the CPU of
the build the docs hold (the ``machine`` mark) and how far this build is from it.
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
PER_SET_BLOCKS = {"per-set-2016", "per-set-2016-encoders", "dcu-table2", "dcu-table3"}  # lines of per-set figures
# blocks whose lines name no run: the runs whose figures they hold, side by side (each its own tolerance)
BLOCK_RUNS = {
    "dcu-table2": ("task-internal", "synthetic", "fusion"),
    "dcu-table3": ("task-internal", "synthetic", "fusion"),
}
RANKED_BLOCKS = {"dcu-table4": "fusion"}  # a rank order of a run's feature importances (:func:`same_ranking`)
# Blocks with a row per encoder a tree may or may not have evaluated (make eval evaluates all-MiniLM-L6-v2; all-mpnet-
# base-v2 needs EVAL_OVERLAYS=config/eval-mpnet.yaml): rows are matched by their first ``n`` cells, a row the tree
# lacks is "not built" (kept as the docs have it), a row the docs lack is a difference naming it.
KEYED_BLOCKS = {"eval-leaderboard": 1, "eval-mteb": 2}


def row_key(line: str, cells: int) -> tuple[str, ...] | None:
    """The first ``cells`` cells of a Markdown table row (None for the header's rule or a line of no table)."""
    parts = [cell.strip() for cell in line.strip().strip("|").split("|")]
    if not line.startswith("|") or set(line) <= set("|-: "):
        return None
    return tuple(parts[:cells])


def keyed_rows(old: str, new: str, cells: int) -> tuple[str, list[str], list[str]]:
    """The block with the build's row for every row the docs have and the build too, the docs' row where the build
    lacks it, the build's new rows at the end; and the keys of the rows not built and of those the docs lack."""
    built = {row_key(line, cells): line for line in new.splitlines()}
    merged, not_built = [], []
    for line in old.splitlines():
        key = row_key(line, cells)
        if key is None or key == next(iter(built)):  # the header and its rule: the build's
            merged.append(built.get(key, line) if key else line)
        elif key in built:
            merged.append(built[key])
        else:
            merged.append(line)
            not_built.append(" / ".join(key))
    documented = {row_key(line, cells) for line in old.splitlines()}
    extra = [line for key, line in built.items() if key is not None and key not in documented]
    return "\n".join(merged + extra) + "\n", not_built, [" / ".join(row_key(line, cells)) for line in extra]


IMPORTANCE_BLOCK = "seed-study-importances"  # the spread of each seeded fusion run's importances
IMPORTANCE_ROW = re.compile(r"^\| `(?P<run>[^`]+)` \| `[^`]+` \| \d+ \| [\d.]+ \| [\d.]+ ± (?P<sd>\d*\.\d+) \|", re.M)
SIGNIFICANCE = 0.05
P_VALUE = re.compile(r"p (?:< )?(?P<p>\d*\.\d+)")


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
            elif block["name"] == IMPORTANCE_BLOCK:
                for row in IMPORTANCE_ROW.finditer(block["body"]):
                    run = found.setdefault(row["run"], {"ALL": 0.0, "sets": 0.0, "block": block["name"]})
                    run["importance"] = max(run.get("importance", 0.0), SEED_WIDTHS * float(row["sd"]))
    return found


def value(number: str) -> float:
    return float(number.replace("−", "-"))


def unit(number: str) -> float:
    """Half a unit of the number's last printed digit: what printing alone may move."""
    return 0.5 * 10 ** -len(number.partition(".")[2])


@dataclass
class Closeness:
    distance: float  # the largest move of a number, as printed
    flips: list[tuple[str, str]]  # (doc's p, build's p) of each p value that crosses SIGNIFICANCE


def within(old: str, new: str, tolerance: float) -> Closeness | None:
    """Whether two lines are the same text but for numbers, each within ``tolerance`` (plus half a unit of its
    last printed digit): how far they are then, else None. A p value ("p 0.047", "p < 0.001") may move
    whatever its size, since it follows its difference and interval: the ones that cross 0.05 are listed."""
    p_values = lambda text: [match["p"] for match in P_VALUE.finditer(text)]
    old_p, new_p = p_values(old), p_values(new)
    old, new = P_VALUE.sub("p", old), P_VALUE.sub("p", new)
    if NUMBER.sub("#", old) != NUMBER.sub("#", new) or len(old_p) != len(new_p):
        return None
    pairs = list(zip(NUMBER.findall(old), NUMBER.findall(new)))
    if any(abs(value(a) - value(b)) > tolerance + unit(a) + 1e-12 for a, b in pairs):
        return None
    flips = [(a, b) for a, b in zip(old_p, new_p) if (value(a) < SIGNIFICANCE) != (value(b) < SIGNIFICANCE)]
    return Closeness(max([0.0, *(abs(value(a) - value(b)) for a, b in pairs)]), flips)


def tolerance_of(names, allowed: dict[str, dict], level: str, side_by_side: bool = False) -> tuple[float, list[str]]:
    """The tolerance of a figure (``level`` ALL, or sets: a line of every test set's figure) naming these
    runs, and the runs that have one: the sum of theirs (a difference of two runs moves with both), or with
    ``side_by_side`` (a line of several runs' own figures) the largest."""
    runs = [name for name in dict.fromkeys(names) if name in allowed and level in allowed[name]]
    tolerances_ = [allowed[run][level] for run in runs]
    return (max(tolerances_, default=0.0) if side_by_side else sum(tolerances_)), runs


def ranked_rows(block: str) -> list[tuple[str, str, str]]:
    """(rank and the paper's columns, our feature, our figure) of each row of a rank table (DCU Table 4)."""
    rows = []
    for line in block.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0].isdigit():
            rows.append((" | ".join(cells[:3]), cells[3], cells[4]))
    return rows


def same_ranking(old: str, new: str, tolerance: float) -> Closeness | None:
    """Whether two renderings of a rank table are the same order within ``tolerance``: the paper's columns equal
    at every rank, and each of our features' figure within the tolerance of the other rendering's (a feature
    in one top list only: its figure within the tolerance of the other list's last), so neighbours whose
    figures lie within the spread may swap. How far they are, else None."""
    old_rows, new_rows = ranked_rows(old), ranked_rows(new)
    if len(old_rows) != len(new_rows) or [r[0] for r in old_rows] != [r[0] for r in new_rows]:
        return None
    moves = []
    for these, those in ((old_rows, new_rows), (new_rows, old_rows)):
        ginis = {feature: gini for _, feature, gini in those}
        for _, feature, gini in these:
            other = ginis.get(feature)
            if other is not None:
                moves.append((abs(value(gini) - value(other)), unit(gini)))
            elif value(gini) > value(those[-1][2]) + tolerance + unit(gini):
                return None
    if any(move > tolerance + half + 1e-12 for move, half in moves):
        return None
    return Closeness(max([0.0, *(move for move, _ in moves)]), [])


# --- writing and checking -------------------------------------------------------------------------


@dataclass
class Outcome:
    text: str  # the file with every buildable mark rendered
    differences: list[str] = field(default_factory=list)  # "file:line: ..." per differing figure
    tolerated: list[str] = field(default_factory=list)  # the same, within the seed study's tolerance
    not_robust: list[str] = field(default_factory=list)  # tolerated figures whose p crosses 0.05
    machines: list[tuple[str, str]] = field(default_factory=list)  # (the docs' build's CPU, this build's)
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

    def compare(
        where: str, old: str, new: str, names, first: str, level: str = "ALL", side_by_side: bool = False
    ) -> bool:
        """Record a differing figure or line (``first``: how it differs); True when it is a difference."""
        tolerance, runs = tolerance_of(names, allowed, level, side_by_side)
        close = (same_ranking if level == "importance" else within)(old, new, tolerance) if tolerance else None
        if close is None:
            outcome.differences.append(f"{where}: {first}")
            return True
        blocks = (
            IMPORTANCE_BLOCK if level == "importance" else ", ".join(dict.fromkeys(allowed[r]["block"] for r in runs))
        )
        outcome.tolerated.append(
            f"{where}: {first}: {close.distance:.4f} away, within {SEED_WIDTHS} × the seed sd of "
            f"{', '.join(runs)} ({tolerance:.4f}; block {blocks})"
        )
        for doc_p, build_p in close.flips:
            outcome.not_robust.append(
                f"{where}: p {doc_p} in the docs, {build_p} in this build: its significance is not robust"
            )
        return False

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
        except Exception as error:  # a table of another shape than the block reads: said, and the others checked
            outcome.differences.append(f"{where}: cannot be rendered from this build: {type(error).__name__}: {error}")
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
        extra = []  # rows of a keyed block the docs lack: named as such, not as a count of lines
        if name in KEYED_BLOCKS and body:
            new, not_built, extra = keyed_rows(body, new, KEYED_BLOCKS[name])
            if not_built:
                outcome.not_checked.append(
                    f"{path}:{first_line}: block {name}: not built: the rows of {', '.join(not_built)} "
                    "(encoders this tree has not evaluated; kept as the docs have them)"
                )
            if extra:
                outcome.differences.append(
                    f"{path}:{first_line}: block {name}: the build has rows the doc lacks: {', '.join(extra)}"
                )
        if name in RANKED_BLOCKS:  # an order: compared whole, a swap of neighbours within the spread allowed
            if body != new:
                compare(
                    f"{path}:{first_line}: block {name}",
                    body,
                    new,
                    [RANKED_BLOCKS[name]],
                    first_difference(body, new),
                    "importance",
                )
            return match[0].replace(body, new, 1)
        old_lines, new_lines = body.splitlines(), new.splitlines()
        for i, (old, fresh) in enumerate(zip(old_lines, new_lines)):
            if old != fresh and compare(
                f"{path}:{first_line + i}: block {name}",
                old,
                fresh,
                NAMED.findall(fresh) or BLOCK_RUNS.get(name, []),
                first_difference(old, fresh),
                "sets" if name in PER_SET_BLOCKS else "ALL",
                side_by_side=name in BLOCK_RUNS,
            ):
                break
        else:
            if len(old_lines) != len(new_lines) and not extra:
                outcome.differences.append(
                    f"{path}:{first_line}: block {name}: the doc has {len(old_lines)} lines, "
                    f"the build gives {len(new_lines)}"
                )
        return match[0].replace(body, new, 1) if body else match[0].replace("-->\n", "-->\n" + new, 1)

    def inline(match: re.Match) -> str:
        value = rendered(f"figure {match['key']}", match.start(), lambda: figure(match["key"], trees))
        if value is None:
            return match[0]
        if match["key"].split(":")[1] == "machine":  # which CPU built the docs: reported, never a difference
            outcome.machines.append((match["value"], value))
        elif value != match["value"]:
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
