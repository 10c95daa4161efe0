"""The package's architecture: its layer contracts (import-linter, pyproject.toml) can fail, docs/architecture.md
draws the layers they check, and the rule files and README keep their conventions."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from conftest import REPO

PACKAGE = REPO / "workflow" / "stsynth"
DOC = REPO / "docs" / "architecture.md"


def contracts() -> list[dict]:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]


def layers() -> list[list[str]]:
    """The layer contract's layers, lowest first, each a list of its independent subpackages."""
    (contract,) = [c for c in contracts() if c["type"] == "layers"]
    return [[name.strip() for name in layer.split("|")] for layer in reversed(contract["layers"])]


def lint_imports(tmp_path: Path, edit=None) -> subprocess.CompletedProcess:
    """import-linter with the project's contracts on a copy of the package (``edit(copy)`` changed first)."""
    shutil.copytree(PACKAGE, tmp_path / "stsynth", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    if edit:
        edit(tmp_path / "stsynth")
    # lint-imports puts its working directory first on the path: the copy, not the installed package
    return subprocess.run(
        [str(Path(sys.executable).parent / "lint-imports")], cwd=tmp_path, capture_output=True, text=True
    )


@pytest.mark.subprocess
def test_the_layer_contracts_hold_and_fail_on_an_upward_import_a_cycle_or_a_loose_module(tmp_path):
    assert lint_imports(tmp_path / "as-is").returncode == 0

    def upward(package):  # a function-level import counts as much as one at the top
        plan = package / "pipeline" / "plan.py"
        plan.write_text(plan.read_text() + "\n\ndef f():\n    from ..results import report\n")

    broken = lint_imports(tmp_path / "upward", upward)
    assert broken.returncode == 1 and "stsynth.pipeline.plan -> stsynth.results.report" in broken.stdout

    def cycle(package):
        folds = package / "core" / "folds.py"
        folds.write_text(folds.read_text() + "\n\ndef g():\n    from . import paths\n")
        paths = package / "core" / "paths.py"
        paths.write_text(paths.read_text() + "\n\ndef h():\n    from . import folds\n")

    assert lint_imports(tmp_path / "cycle", cycle).returncode == 1

    def loose(package):
        (package / "helpers.py").write_text("X = 1\n")

    assert lint_imports(tmp_path / "loose", loose).returncode == 1  # exhaustive: every module in a layer


def test_the_documented_map_is_the_contracts_layer_order():
    """docs/architecture.md draws the layer contract's layers, lowest first."""
    drawn = {
        int(number): re.findall(r"\w+", names.split("  ")[0])
        for number, names in re.findall(r"^layer (\d)\s+(.*)$", DOC.read_text(), flags=re.MULTILINE)
    }
    assert [drawn[number] for number in sorted(drawn)] == layers()
    subpackages = {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
    assert subpackages == {group for layer in layers() for group in layer}


BUILT = {"resources/", "results/", "logs/", "benchmarks/", "runs/"}  # what a build writes, not in git


def readme_layout() -> list[str]:
    """The paths the README's "Where things are" block names (its first column)."""
    text = (REPO / "README.md").read_text()
    block = text.split("## Where things are", 1)[1].split("```", 2)[1]
    paths = []
    for line in block.splitlines():
        if line.strip() and not line.startswith(" "):
            first_column = re.split(r"\s{2,}", line.strip(), maxsplit=1)[0]
            paths += [path.strip() for path in first_column.split(",")]
    return paths


@pytest.mark.subprocess
def test_the_readme_layout_names_every_top_level_entry_and_nothing_that_is_not_there():
    import subprocess

    listed = readme_layout()
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
    top = {path.split("/")[0] + ("/" if "/" in path else "") for path in tracked} - {
        ".gitignore",
        ".gitattributes",
        "README.md",
    }
    unnamed = sorted(entry for entry in top if not any(path == entry or path.startswith(entry) for path in listed))
    assert not unnamed, f"README.md, Where things are: no line for {unnamed}"
    missing = [path for path in listed if path not in BUILT and not (REPO / path).exists()]
    assert not missing, f"README.md, Where things are: {missing} do not exist"


def test_input_functions_are_named_one_way_and_live_in_the_helper_files():
    """A function of the rule files is an input function named get_<what> (as rna-seq-star-deseq2 names them),
    or one of the few helpers of resources and wildcard constraints; it sits in a common*.smk helper file, which
    holds no rule."""
    helpers = {"_made_by_workflow", "gpu_resources", "attempt_minutes", "_alternatives"}
    problems = []
    for path in sorted((REPO / "workflow/rules").glob("*.smk")):
        text = path.read_text()
        functions = re.findall(r"^def (\w+)\(", text, flags=re.MULTILINE)
        if functions and not path.name.startswith("common"):
            problems.append(f"{path.name}: defines {functions}; input functions belong in a common*.smk file")
        if path.name.startswith("common") and re.search(r"^\s*rule \w+:", text, flags=re.MULTILINE):
            problems.append(f"{path.name}: a helper file with a rule")
        problems += [
            f"{path.name}: {name} is not named get_<what>"
            for name in functions
            if not name.startswith("get_") and name not in helpers
        ]
    assert not problems, problems


def test_settings_are_layered_by_one_function():
    """defaults -> preset or grid point -> entry -> seed and fold are stsynth.pipeline.plan.layered_settings."""
    from stsynth.pipeline.plan import layered_settings

    layered = layered_settings(
        {"a": 1, "dev_years": [2015]}, {"a": 2, "b": 3}, {"b": 4}, seed=7, holdout={"fold": 0, "folds": 2}
    )
    assert layered == {"a": 2, "dev_years": [], "b": 4, "seed": 7, "holdout": {"fold": 0, "folds": 2}}
    assert list(layered) == ["a", "dev_years", "b", "seed", "holdout"]  # key order kept: params compare as built


def test_the_one_cosine_keeps_each_callers_floats():
    """cosines is what the sentence vectors and MTEB's evaluator computed (float64, 0 for a zero vector);
    unit_cosines the encoders' dot product of normalised embeddings, bit for bit."""
    import numpy as np

    from stsynth.core.similarity import cosines, unit_cosines

    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(50, 7)).astype(np.float32), rng.normal(size=(50, 7)).astype(np.float32)
    a[3] = 0
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    norms = np.linalg.norm(a64, axis=1) * np.linalg.norm(b64, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        np.testing.assert_array_equal(cosines(a, b), np.where(norms > 0, (a64 * b64).sum(axis=1) / norms, 0.0))
    assert cosines(a, b)[3] == 0
    unit_a, unit_b = (
        a / np.maximum(np.linalg.norm(a, axis=1, keepdims=True), 1e-12),
        b / np.linalg.norm(b, axis=1, keepdims=True),
    )
    np.testing.assert_array_equal(unit_cosines(unit_a, unit_b), (unit_a.astype(np.float64) * unit_b).sum(axis=1))
    np.testing.assert_allclose(unit_cosines(unit_a, unit_b), cosines(a, b), atol=1e-6)
