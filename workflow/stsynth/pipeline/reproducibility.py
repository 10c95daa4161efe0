"""Compare two build trees file by file: is every output the same, byte for byte?

    python -m stsynth.pipeline.reproducibility [--common] TREE_A TREE_B [PATTERN ...]

PATTERN is a glob relative to a tree (default: DEFAULT_PATTERNS); --common compares only the files
both trees have (one of them a partial build). Files are compared by sha256;
the translation cache, a SQLite file whose bytes depend on insertion order, is compared by its
rows. Prints one line per pattern (files, identical, different, only in one tree) and the paths
that differ; exits 1 when anything differs or is missing from one tree.
"""

from __future__ import annotations

import hashlib
import sqlite3
import sys
from contextlib import closing
from pathlib import Path

DEFAULT_PATTERNS = [
    "resources/translated/**/*.parquet",
    "resources/round_trips/**/*.parquet",
    "resources/paraphrase_pairs/*.parquet",
    "resources/models/*.safetensors",
    "results/predictions/**/*.txt",
    "results/scores/*.parquet",
]
CACHE = "resources/cache/translations.sqlite"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def cache_rows(path: Path) -> list[tuple]:
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        return sorted(db.execute("SELECT backend, version, direction, source, target FROM translations"))


def compare(tree_a: Path, tree_b: Path, patterns: list[str], common_only: bool = False) -> tuple[list[str], bool]:
    """Report lines and whether the trees agree on every pattern."""
    lines, same = [], True
    for pattern in patterns:
        files_a = {p.relative_to(tree_a) for p in tree_a.glob(pattern) if p.is_file()}
        files_b = {p.relative_to(tree_b) for p in tree_b.glob(pattern) if p.is_file()}
        common = sorted(files_a & files_b)
        different = [f for f in common if digest(tree_a / f) != digest(tree_b / f)]
        only = [] if common_only else sorted(files_a ^ files_b)
        lines.append(
            f"{pattern}: {len(common)} files in both, {len(common) - len(different)} identical, "
            f"{len(different)} different, {len(only)} in one tree only"
        )
        lines += [f"  differs: {f}" for f in different] + [f"  in one tree only: {f}" for f in only]
        same = same and not different and not only and bool(common)
    if (tree_a / CACHE).is_file() and (tree_b / CACHE).is_file():
        rows_a, rows_b = cache_rows(tree_a / CACHE), cache_rows(tree_b / CACHE)
        lines.append(
            f"{CACHE}: {len(rows_a)} and {len(rows_b)} translations, "
            f"{'identical' if rows_a == rows_b else 'different'} rows"
        )
        same = same and rows_a == rows_b
    return lines, same


def main(argv: list[str]) -> int:
    common_only = "--common" in argv
    argv = [arg for arg in argv if arg != "--common"]
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    lines, same = compare(Path(argv[0]), Path(argv[1]), argv[2:] or DEFAULT_PATTERNS, common_only)
    print("\n".join(lines))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
