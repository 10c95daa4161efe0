"""docs/architecture.md's module table against the package's real imports: the map cannot drift."""
from __future__ import annotations

import pytest
import ast
import re
from pathlib import Path

from conftest import REPO

PACKAGE = REPO / "workflow" / "stsynth"
DOC = REPO / "docs" / "architecture.md"


def real_imports(package: Path = PACKAGE, top_level_only: bool = False) -> dict[str, set[str]]:
    """Module -> the package modules it imports anywhere in its file (relative or ``stsynth.`` imports), or
    with ``top_level_only`` those imported when the module itself is."""
    modules = {path.stem for path in package.glob("*.py")} - {"__init__"}
    graph = {}
    for module in modules:
        imported = set()
        tree = ast.parse((package / f"{module}.py").read_text())
        for node in (tree.body if top_level_only else ast.walk(tree)):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                imported |= {node.module.split(".")[0]} if node.module else {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("stsynth"):
                parts = node.module.split(".")
                imported |= {parts[1]} if len(parts) > 1 else {alias.name for alias in node.names}
            elif isinstance(node, ast.Import):
                imported |= {alias.name.split(".")[1] for alias in node.names if alias.name.startswith("stsynth.")}
        graph[module] = (imported & modules) - {module}
    return graph


def documented_imports(text: str) -> dict[str, set[str]]:
    """The rows of the doc's "Package dependencies" table: module -> the modules it lists."""
    section = text.split("## Package dependencies", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| ([^|]*) \|", section, flags=re.MULTILINE)
    return {module: set(re.findall(r"`(\w+)`", imports)) for module, imports in rows}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    found, done = [], set()

    def visit(module, path):
        if module in path:
            found.append(path[path.index(module):] + [module])
            return
        if module in done:
            return
        for imported in sorted(graph[module]):
            visit(imported, path + [module])
        done.add(module)

    for module in sorted(graph):
        visit(module, [])
    return found


def test_the_documented_module_table_is_the_packages_import_graph():
    real, documented = real_imports(), documented_imports(DOC.read_text())
    problems = [f"{module}: not in docs/architecture.md's table" for module in sorted(set(real) - set(documented))]
    problems += [f"{module}: in the table, not in the package" for module in sorted(set(documented) - set(real))]
    for module in sorted(set(real) & set(documented)):
        if real[module] != documented[module]:
            problems.append(f"{module}: imports {sorted(real[module])}, the table says {sorted(documented[module])}")
    assert not problems, "docs/architecture.md, Package dependencies:\n" + "\n".join(problems)


def test_the_check_fails_when_an_import_is_added_without_the_doc(tmp_path):
    package = tmp_path / "stsynth"
    package.mkdir()
    for path in PACKAGE.glob("*.py"):
        (package / path.name).write_text(path.read_text())
    (package / "folds.py").write_text((package / "folds.py").read_text() + "\nfrom .tables import markdown_rows\n")
    real, documented = real_imports(package), documented_imports(DOC.read_text())
    assert real["folds"] == {"tables"} and documented["folds"] == set()
    assert real["folds"] != documented["folds"]


def test_the_package_has_no_import_cycle_at_import_time():
    assert cycles(real_imports(top_level_only=True)) == []
    assert cycles({"a": {"b"}, "b": {"a"}}) == [["a", "b", "a"]]
    # the one loop through imports inside functions, which the doc names
    assert cycles(real_imports()) == [["sentence_vectors", "paraphrase_cnn", "head", "sentence_vectors"]]


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
    top = {path.split("/")[0] + ("/" if "/" in path else "") for path in tracked} - {".gitignore", ".gitattributes",
                                                                                  "README.md"}
    unnamed = sorted(entry for entry in top if not any(path == entry or path.startswith(entry) for path in listed))
    assert not unnamed, f"README.md, Where things are: no line for {unnamed}"
    missing = [path for path in listed if path not in BUILT and not (REPO / path).exists()]
    assert not missing, f"README.md, Where things are: {missing} do not exist"


def code_files() -> list[Path]:
    return sorted([*(REPO / "workflow").rglob("*.py"), *(REPO / "workflow/rules").glob("*.smk"), REPO / "Snakefile"])


@pytest.mark.parametrize("literal, owner", [
    # the event corpus's word-vector sources and the corpus part each reads
    ('"event-embeddings"', "workflow/stsynth/paths.py"),
    ('"word2vec"', "workflow/stsynth/paths.py"),
])
def test_a_decision_is_written_in_its_owner_only(literal, owner):
    """One owner for each decision (docs/architecture.md): its literal appears in that module's code alone."""
    holders = [str(path.relative_to(REPO)) for path in code_files() if literal in path.read_text()]
    assert holders == [owner], f"{literal} is written in {holders}; only {owner} may hold it"


def test_the_cosine_to_score_mapping_is_written_once():
    """5 x cosine (the STS scale) is stsynth.predict.predictions_from_cosines; nothing else multiplies by 5 but
    the gold rescaling of a dataset declared on another scale (stsynth.pairs, a different decision)."""
    pattern = re.compile(r"(?<![\w.])5(?:\.0)? \* (?!\*)|\* 5(?:\.0)?\b(?!\s*\*)")
    holders = [str(path.relative_to(REPO)) for path in code_files() for line in path.read_text().splitlines()
               if pattern.search(line.split("#", 1)[0]) and '"' not in line]
    assert holders == ["workflow/stsynth/pairs.py", "workflow/stsynth/predict.py"], holders  # once each


def test_the_docs_check_takes_every_path_from_stsynth_paths():
    """stsynth.paths owns every path of a built tree: the docs check names none itself."""
    text = (REPO / "workflow/stsynth/docs.py").read_text()
    assert not re.findall(r"[\"'/](?:results|resources|logs|benchmarks)/", text)
