"""A job's code, known by its content: the digest of a workflow script and of every stsynth module it imports,
directly or not (:func:`code_digest`). Every script rule has it as its `code` param: Snakemake's code trigger and
its between-workflow cache key see a script's text but not the modules it imports, so without it a changed
module would rerun nothing and a cached output (its key chains the keys of every job upstream) could be stale.
What is hashed is each module's syntax tree without its docstrings: a comment, a docstring or a reformatting
changes no job; a changed statement does.

Parsing the ~140 modules is about a third of a second on every Snakemake start (and every cluster job's), so a
script's digest is remembered between invocations (:data:`MEMO_FOLDER`, beside the package's bytecode, as Python
keeps its own) with the SHA-256 of every file it was computed from and the module paths it found absent: it is
served only while each of those files has the same bytes and each absent path is still absent, so the memo
never changes a digest; deleting it costs time only.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path

from ..core.corpus import sha256_of

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


def _stat_key(path: Path) -> tuple[int, ...]:
    """What a file's in-process caches are keyed by besides its path: a file rewritten meanwhile is read again."""
    status = path.stat()
    return status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino


def _module_candidates(name: str) -> tuple[Path, ...]:
    """The files a dotted stsynth module name may live in, in the order Python looks."""
    parts = name.split(".")[1:]
    return (ROOT.joinpath(*parts).with_suffix(".py"), ROOT.joinpath(*parts, "__init__.py")) if parts else ()


def _module_file(name: str) -> Path | None:
    """The file of a dotted stsynth module name, found without importing it (None: an attribute, not a module)."""
    return next((path for path in _module_candidates(name) if path.is_file()), None)


@functools.cache
def _parsed(path: Path, name: str | None, stat_key: tuple[int, ...]) -> tuple[str, frozenset[str], str]:
    """A module's syntax tree without docstrings, dumped, the stsynth modules it imports, and the SHA-256 of the
    bytes both came from (one read)."""
    data = path.read_bytes()
    tree = ast.parse(data.decode("utf-8"))
    return (
        ast.dump(_without_docstrings(tree)),
        frozenset(_imported_modules(tree, name)),
        hashlib.sha256(data).hexdigest(),
    )


def _module_closure(script: Path) -> tuple[dict[str, str], dict[str, str], set[Path]]:
    """Every stsynth module the script reaches -> its dumped syntax tree; each file read -> the SHA-256 of its
    bytes; the paths found absent."""
    seen: dict[str, str] = {}
    files: dict[str, str] = {}
    absent: set[Path] = set()
    todo: list[tuple[str | None, Path]] = [(None, script)]
    while todo:
        name, path = todo.pop()
        if (name or "<script>") in seen:
            continue
        seen[name or "<script>"], imported, files[str(path)] = _parsed(path, name, _stat_key(path))
        for module in imported:
            if (file := _module_file(module)) is not None:
                todo.append((module, file))
            else:
                absent.update(_module_candidates(module))
    return seen, files, absent


# One small file per script, under the package's __pycache__ and named, as bytecode is, by the interpreter that
# parsed it (ast.dump's text is the interpreter's).
MEMO_FOLDER = f"__pycache__/code-digests.{sys.implementation.cache_tag}"


_file_sha256 = functools.cache(lambda path, stat_key: sha256_of(path))  # once per process per (path, stat)


def _bytes_digest(path: Path) -> str:
    return _file_sha256(path, _stat_key(path))


def _memo_file(script: Path) -> Path:
    return ROOT / MEMO_FOLDER / f"{hashlib.sha256(str(script).encode()).hexdigest()[:32]}.json"


def _remembered(script: Path) -> str | None:
    """The script's remembered digest, if every file it came from has the same bytes and every absent path is
    still absent."""
    try:
        entry = json.loads(_memo_file(script).read_text())
        if entry["script"] == str(script) and all(
            _bytes_digest(Path(path)) == sha for path, sha in entry["files"].items()
        ):
            return None if any(Path(path).exists() for path in entry["absent"]) else entry["digest"]
    except (OSError, ValueError, KeyError):
        pass
    return None


def _remember(script: Path, entry: dict) -> None:
    """Write one script's entry, atomically (two Snakemake starts at once); a package folder that cannot be
    written to is not memoised."""
    memo = _memo_file(script)
    try:
        memo.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=memo.parent, suffix=".tmp")
        with os.fdopen(handle, "w") as out:
            json.dump(entry, out)
        os.replace(temporary, memo)
    except OSError:
        pass


def code_digest(script: str | Path) -> str:
    """SHA-256 over the script's and its stsynth modules' syntax (module docstring)."""
    script = Path(script).resolve()
    if (remembered := _remembered(script)) is not None:
        return remembered
    trees, files, absent = _module_closure(script)
    digest = hashlib.sha256()
    for name, tree in sorted(trees.items()):
        digest.update(f"{name}\0{tree}\0".encode())
    _remember(
        script,
        {
            "script": str(script),
            "digest": digest.hexdigest(),
            "files": files,
            "absent": sorted(map(str, absent)),
        },
    )
    return digest.hexdigest()
