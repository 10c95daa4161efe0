"""A job's code, known by its content: the digest of a workflow script and of every stsynth module it imports,
directly or not (:func:`code_digest`). Every script rule has it as its `code` param: Snakemake's code trigger and
its between-workflow cache key see a script's text but not the modules it imports, so without it a changed
module would rerun nothing and a cached output (its key chains the keys of every job upstream) could be stale.
What is hashed is each module's syntax tree without its docstrings: a comment, a docstring or a reformatting
changes no job; a changed statement does.
"""

from __future__ import annotations

import ast
import functools
import hashlib
from pathlib import Path

PACKAGE = "stsynth"


def _without_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            node.body = body[1:] or [ast.Pass()]
    return tree


def _imported_modules(tree: ast.AST, module: str | None) -> set[str]:
    """The stsynth modules a syntax tree imports, anywhere in it (inside functions too), as dotted names."""
    found = set()
    package = module.rsplit(".", 1)[0] if module else None
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.split(".")[0] == PACKAGE}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1] if package else []
                name = ".".join([*base, *([node.module] if node.module else [])])
            else:
                name = node.module or ""
            if name.split(".")[0] != PACKAGE:
                continue
            found.add(name)
            found |= {f"{name}.{alias.name}" for alias in node.names}  # `from .x import module`
    return found


ROOT = Path(__file__).resolve().parents[1]  # the stsynth package folder


def _module_file(name: str) -> Path | None:
    """The file of a dotted stsynth module name, found without importing it (None: an attribute, not a module)."""
    parts = name.split(".")[1:]
    for path in (ROOT.joinpath(*parts).with_suffix(".py"), ROOT.joinpath(*parts, "__init__.py")):
        if parts and path.is_file():
            return path
    return None


@functools.cache
def _parsed(path: Path, name: str | None) -> tuple[str, frozenset[str]]:
    """A module's syntax tree without docstrings, dumped, and the stsynth modules it imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return ast.dump(_without_docstrings(tree)), frozenset(_imported_modules(tree, name))


def _module_closure(script: Path) -> dict[str, str]:
    """Every stsynth module the script reaches -> its dumped syntax tree."""
    seen: dict[str, str] = {}
    todo: list[tuple[str | None, Path]] = [(None, script)]
    while todo:
        name, path = todo.pop()
        if (name or "<script>") in seen:
            continue
        seen[name or "<script>"], imported = _parsed(path, name)
        todo += [(module, file) for module in imported if (file := _module_file(module)) is not None]
    return seen


def code_digest(script: str | Path) -> str:
    """SHA-256 over the script's and its stsynth modules' syntax (module docstring)."""
    digest = hashlib.sha256()
    for name, tree in sorted(_module_closure(Path(script).resolve()).items()):
        digest.update(f"{name}\0{tree}\0".encode())
    return digest.hexdigest()
