"""docs/architecture.md's module table against the package's real imports: the map cannot drift."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from conftest import REPO

PACKAGE = REPO / "workflow" / "stsynth"
DOC = REPO / "docs" / "architecture.md"


# The package's layers, lowest first: a module imports its own subpackage and those of lower layers only
# (siblings in one layer never import each other). docs/architecture.md draws the same map.
LAYERS = [
    ["core"],
    ["translation", "word_vectors", "encoders"],
    ["pipeline"],
    ["dcu2016", "sts2017", "eval"],
    ["results"],
]


def modules_of(package: Path = PACKAGE) -> set[str]:
    """Every module as ``subpackage.module``."""
    return {f"{path.parent.name}.{path.stem}" for path in package.glob("*/*.py") if path.stem != "__init__"}


def imported_from(node: ast.ImportFrom, group: str) -> str | None:
    """What a ``from … import`` names inside the package, as ``subpackage[.module]`` (None outside it):
    ``from .head`` in sts2017 is sts2017.head, ``from ..core import paths`` and ``from stsynth.core`` are core."""
    if node.level == 0:
        module = node.module or ""
        return module.removeprefix("stsynth.") if module.startswith("stsynth.") else None
    return ".".join([*([group] if node.level == 1 else []), *(node.module.split(".") if node.module else [])])


def real_imports(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Module -> the package modules it imports anywhere in its file, inside functions too (relative or
    ``stsynth.`` imports), all as ``subpackage.module``."""
    modules = modules_of(package)
    graph = {}
    for module in modules:
        group = module.split(".")[0]
        imported = set()
        for node in ast.walk(ast.parse((package / f"{module.replace('.', '/')}.py").read_text())):
            if isinstance(node, ast.ImportFrom) and (target := imported_from(node, group)) is not None:
                imported |= {target} if target.count(".") == 1 else {f"{target}.{alias.name}" for alias in node.names}
            elif isinstance(node, ast.Import):
                imported |= {".".join(a.name.split(".")[1:3]) for a in node.names if a.name.startswith("stsynth.")}
        graph[module] = (imported & modules) - {module}
    return graph


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Each import of a module in the same or a higher layer than the importer's, other than its own subpackage."""
    layer = {group: number for number, groups in enumerate(LAYERS) for group in groups}
    return [
        f"{module} imports {imported}"
        for module, imports in sorted(graph.items())
        for imported in sorted(imports)
        if module.split(".")[0] != imported.split(".")[0]
        and layer[imported.split(".")[0]] >= layer[module.split(".")[0]]
    ]


def documented_imports(text: str) -> dict[str, set[str]]:
    """The rows of the doc's "Package dependencies" table: module -> the modules it lists."""
    section = text.split("## Package dependencies", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([\w.]+)` \| ([^|]*) \|", section, flags=re.MULTILINE)
    return {module: set(re.findall(r"`([\w.]+)`", imports)) for module, imports in rows}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    found, done = [], set()

    def visit(module, path):
        if module in path:
            found.append(path[path.index(module) :] + [module])
            return
        if module in done:
            return
        for imported in sorted(graph[module]):
            visit(imported, path + [module])
        done.add(module)

    for module in sorted(graph):
        visit(module, [])
    return found


def test_every_module_is_in_a_subpackage_of_its_system_or_stage():
    loose = sorted(path.name for path in PACKAGE.glob("*.py") if path.name != "__init__.py")
    assert not loose, f"workflow/stsynth/ holds {loose}: each module belongs in a subpackage (docs/architecture.md)"
    subpackages = {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
    assert subpackages == {group for groups in LAYERS for group in groups}


def test_the_documented_module_table_is_the_packages_import_graph():
    real, documented = real_imports(), documented_imports(DOC.read_text())
    problems = [f"{module}: not in docs/architecture.md's table" for module in sorted(set(real) - set(documented))]
    problems += [f"{module}: in the table, not in the package" for module in sorted(set(documented) - set(real))]
    for module in sorted(set(real) & set(documented)):
        if real[module] != documented[module]:
            problems.append(f"{module}: imports {sorted(real[module])}, the table says {sorted(documented[module])}")
    assert not problems, "docs/architecture.md, Package dependencies:\n" + "\n".join(problems)


def test_the_documented_map_is_the_layer_order_the_check_uses():
    """The map in docs/architecture.md draws LAYERS, and its count of edges between subpackages is the code's."""
    text = DOC.read_text()
    drawn = {
        int(number): re.findall(r"\w+", names.split("  ")[0])
        for number, names in re.findall(r"^layer (\d)\s+(.*)$", text, flags=re.MULTILINE)
    }
    assert [drawn[number] for number in sorted(drawn)] == LAYERS
    edges = {(m.split(".")[0], i.split(".")[0]) for m, imports in real_imports().items() for i in imports} - {
        (group, group) for groups in LAYERS for group in groups
    }
    assert f"The {len(edges)} edges between subpackages" in text


def copy_of_package(tmp_path) -> Path:
    package = tmp_path / "stsynth"
    for path in PACKAGE.rglob("*.py"):
        (package / path.relative_to(PACKAGE)).parent.mkdir(parents=True, exist_ok=True)
        (package / path.relative_to(PACKAGE)).write_text(path.read_text())
    return package


def test_the_check_fails_when_an_import_is_added_without_the_doc(tmp_path):
    package = copy_of_package(tmp_path)
    folds = package / "core" / "folds.py"
    folds.write_text(folds.read_text() + "\nfrom .tables import markdown_rows\n")
    real, documented = real_imports(package), documented_imports(DOC.read_text())
    assert real["core.folds"] == {"core.tables"} and documented["core.folds"] == set()


def test_no_module_imports_upward_and_the_check_sees_one_that_does(tmp_path):
    assert upward_imports(real_imports()) == []
    package = copy_of_package(tmp_path)
    plan = package / "pipeline" / "plan.py"  # a function-level import counts as much as one at the top
    plan.write_text(plan.read_text() + "\n\ndef f():\n    from ..results import report\n")
    cli = package / "pipeline" / "cli.py"
    cli.write_text(
        cli.read_text()
        + "\nfrom stsynth.pipeline.plan import Run\nfrom stsynth.eval.evaluation import dataset_revision\n"
    )
    assert upward_imports(real_imports(package)) == [
        "pipeline.cli imports eval.evaluation",
        "pipeline.plan imports results.report",
    ]


def test_the_package_has_no_import_cycle():
    assert cycles(real_imports()) == []  # imports inside functions included
    assert cycles({"a": {"b"}, "b": {"a"}}) == [["a", "b", "a"]]


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


def code_files() -> list[Path]:
    return sorted([*(REPO / "workflow").rglob("*.py"), *(REPO / "workflow/rules").glob("*.smk"), REPO / "Snakefile"])


@pytest.mark.parametrize(
    "literal, owner",
    [
        # the event corpus's word-vector sources and the corpus part each reads
        ('"event-embeddings"', "workflow/stsynth/core/paths.py"),
        ('"word2vec"', "workflow/stsynth/core/paths.py"),
    ],
)
def test_a_decision_is_written_in_its_owner_only(literal, owner):
    """One owner for each decision (docs/architecture.md): its literal appears in that module's code alone."""
    holders = [str(path.relative_to(REPO)) for path in code_files() if literal in path.read_text()]
    assert holders == [owner], f"{literal} is written in {holders}; only {owner} may hold it"


def test_the_cosine_to_score_mapping_is_written_once():
    """5 x cosine (the STS scale) is stsynth.core.similarity.predictions_from_cosines; nothing else multiplies by 5 but
    the gold rescaling of a dataset declared on another scale (stsynth.core.pairs, a different decision)."""
    pattern = re.compile(r"(?<![\w.])5(?:\.0)? \* (?!\*)|\* 5(?:\.0)?\b(?!\s*\*)")
    holders = [
        str(path.relative_to(REPO))
        for path in code_files()
        for line in path.read_text().splitlines()
        if pattern.search(line.split("#", 1)[0]) and '"' not in line
    ]
    assert holders == ["workflow/stsynth/core/pairs.py", "workflow/stsynth/core/similarity.py"], holders  # once each


def test_a_row_wise_cosine_is_written_once():
    """The cosine of row pairs is stsynth.core.similarity's (cosines, unit_cosines: one zero-vector rule, stated
    there). What else takes row norms or row-wise products is named here with the reason it is another decision."""
    norms = re.compile(r"linalg\.norm\([^)]*axis=1")
    products = re.compile(r"\* [\w\[\]:.]+\)\.sum\((?:1|axis=1)\)")
    holders = {
        kind: sorted(
            {
                str(path.relative_to(REPO))
                for path in code_files()
                for line in path.read_text().splitlines()
                if pattern.search(line.split("#", 1)[0])
            }
        )
        for kind, pattern in (("norms", norms), ("products", products))
    }
    assert holders == {
        # the alignment feature's word-by-word cosine matrix, not pairs of rows
        "norms": ["workflow/stsynth/core/similarity.py", "workflow/stsynth/dcu2016/features.py"],
        # the bootstrap's row-wise Pearson; MTEB's dot similarity beside the cosine; mean pooling under a mask
        "products": [
            "workflow/stsynth/core/scoring.py",
            "workflow/stsynth/core/similarity.py",
            "workflow/stsynth/eval/evaluation.py",
            "workflow/stsynth/word_vectors/vectors.py",
        ],
    }, holders


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


def test_every_log_and_benchmark_path_comes_from_stsynth_paths():
    """The rule files, scripts and package name no log or benchmark file themselves: paths.log_path and
    paths.benchmark_path do (the folders are paths.LOGS and paths.BENCHMARKS)."""
    literal = re.compile(r"[\"'/](?:logs|benchmarks)[/\"']")
    holders = sorted(
        {
            str(path.relative_to(REPO))
            for path in code_files()
            for line in path.read_text().splitlines()
            if literal.search(line.split("#", 1)[0])
        }
    )
    assert holders == ["workflow/stsynth/core/paths.py"], holders


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
    """defaults -> preset or grid point -> entry -> seed and fold are stsynth.pipeline.plan.layered_settings; no
    module spreads a config section's defaults into a dict itself."""
    spread = re.compile(r"\{\*\*[^}]*\[\"defaults\"\]|\{\*\*defaults\b|\{\*\*[^}]*\.get\(\"defaults\"")
    holders = sorted({str(path.relative_to(REPO)) for path in code_files() if spread.search(path.read_text())})
    assert holders == [], holders
    from stsynth.pipeline.plan import layered_settings

    layered = layered_settings(
        {"a": 1, "dev_years": [2015]}, {"a": 2, "b": 3}, {"b": 4}, seed=7, holdout={"fold": 0, "folds": 2}
    )
    assert layered == {"a": 2, "dev_years": [], "b": 4, "seed": 7, "holdout": {"fold": 0, "folds": 2}}
    assert list(layered) == ["a", "dev_years", "b", "seed", "holdout"]  # key order kept: params compare as built


def test_the_package_names_no_tree_path_but_in_stsynth_paths():
    """A string of the package's code (docstrings aside) that starts a path of a built tree is in core.paths, but
    for core.corpus's CORPUS_COPIES (which paths reads) and the comparison globs of pipeline.reproducibility."""
    tree = re.compile(r"^(?:resources|results|logs|benchmarks|runs)/")
    holders = set()
    for path in PACKAGE.rglob("*.py"):
        module = ast.parse(path.read_text())
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(module)
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        if any(
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and tree.match(node.value)
            and id(node) not in docstrings
            for node in ast.walk(module)
        ):
            holders.add(str(path.relative_to(REPO)))
    assert sorted(holders) == [
        "workflow/stsynth/core/corpus.py",
        "workflow/stsynth/core/paths.py",
        "workflow/stsynth/pipeline/reproducibility.py",
    ], sorted(holders)


def test_the_docs_check_takes_every_path_from_stsynth_paths():
    """stsynth.core.paths owns every path of a built tree: the docs check names none itself."""
    text = (REPO / "workflow/stsynth/results/docs.py").read_text()
    assert not re.findall(r"[\"'/](?:results|resources|logs|benchmarks)/", text)
