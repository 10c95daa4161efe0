"""`make docs` / `make check-docs`: write, or check, every generated figure of README.md and docs/ from
built trees (doc_marks.py). --check exits 1 naming file, line and both values of each figure that differs."""

import argparse
import sys
from pathlib import Path

from doc_marks import SEED_WIDTHS, render, tolerances
from doc_tree import DOC_FILES, TREES, trees_of


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when a figure differs")
    parser.add_argument(
        "--tree",
        action="append",
        default=[],
        metavar="NAME=DIR",
        help=f"a built working directory (defaults: {', '.join(f'{k}={v}' for k, v in TREES.items())})",
    )
    parser.add_argument("--docs-root", default=".", help="the checkout whose README.md and docs/ are read")
    parser.add_argument("files", nargs="*", default=list(DOC_FILES), help="Markdown files (relative to --docs-root)")
    args = parser.parse_args()
    roots = dict(TREES)
    for item in args.tree:
        name, _, root = item.partition("=")
        if name not in TREES or not root:
            parser.error(f"--tree {item}: expected NAME=DIR with NAME one of {', '.join(TREES)}")
        roots[name] = root
    trees = trees_of(roots)
    texts = {name: (Path(args.docs_root) / name).read_text() for name in args.files}
    # a training-dependent figure may differ within the seed study's spread (the doc's own block says how far)
    others = [(Path(args.docs_root) / name).read_text() for name in DOC_FILES if name not in texts]
    allowed = tolerances([*texts.values(), *others])
    differences, tolerated, not_robust, not_checked, checked, unmarked, machines = [], [], [], [], 0, {}, {}
    for name, text in texts.items():
        path = Path(args.docs_root) / name
        outcome = render(text, name, trees, allowed)
        differences += outcome.differences
        tolerated += outcome.tolerated
        not_robust += outcome.not_robust
        machines.update(dict.fromkeys(outcome.machines))
        not_checked += outcome.not_checked
        checked += outcome.checked
        unmarked[name] = len(outcome.unmarked)
        if not args.check and outcome.text != text:
            path.write_text(outcome.text)
            print(f"wrote {path}")
    for line in not_checked:
        print(f"not checked: {line}")
    for name, count in unmarked.items():
        print(
            f"{name}: {count} lines with figures outside marks "
            "(prose: papers' figures and earlier builds' studies; not checked)"
        )
    if args.check:
        for docs_cpu, build_cpu in machines:
            print(f"the docs hold figures built on: {docs_cpu}; this build ran on: {build_cpu}")
        for line in tolerated:
            print(f"within tolerance: {line}")
        for line in not_robust:
            print(f"not robust: {line}")
        for line in differences:
            print(line, file=sys.stderr)
        print(
            f"check-docs: {checked} marks checked, {len(differences)} differ, {len(tolerated)} within the seed "
            f"study's tolerance ({SEED_WIDTHS} × a run's seed sd; {len(not_robust)} of them with a p that crosses "
            f"0.05), {len(not_checked)} not built"
        )
        return 1 if differences else 0
    print(f"docs: {checked} marks written from the build, {len(not_checked)} not built (left as they are)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
