"""A job's code digest (stsynth.pipeline.code): it follows the script's stsynth imports, directly or not, and
moves with a changed statement, not with a comment, a docstring or a reformatting."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from stsynth.pipeline import code


@pytest.fixture
def package(tmp_path, monkeypatch):
    """A small stand-in stsynth package: the script imports a, which imports b; c is imported by nobody."""
    root = tmp_path / "stsynth"
    (root / "core").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "core" / "__init__.py").write_text("")
    (root / "core" / "a.py").write_text('"""A."""\nfrom . import b\n\n\ndef f():\n    return b.g() + 1\n')
    (root / "core" / "b.py").write_text("def g():\n    return 1\n")
    (root / "core" / "c.py").write_text("def h():\n    return 2\n")
    script = tmp_path / "job.py"
    script.write_text("from stsynth.core.a import f\n\nprint(f())\n")
    monkeypatch.setattr(code, "ROOT", root)
    code._parsed.cache_clear()
    yield root, script
    code._parsed.cache_clear()
    shutil.rmtree(root)


def digest_after(path, text, script):
    path.write_text(text)
    code._parsed.cache_clear()
    return code.code_digest(script)


def test_a_module_imported_indirectly_moves_the_digest(package):
    root, script = package
    before = code.code_digest(script)
    assert digest_after(root / "core" / "b.py", "def g():\n    return 3\n", script) != before


def test_a_module_nobody_imports_does_not(package):
    root, script = package
    before = code.code_digest(script)
    assert digest_after(root / "core" / "c.py", "def h():\n    return 5\n", script) == before


def test_comments_docstrings_and_layout_do_not(package):
    root, script = package
    before = code.code_digest(script)
    reformatted = (
        '"""Another docstring."""\nfrom . import b  # why\n\n\n'
        'def f():\n    """F."""\n    return (b.g()\n            + 1)\n'
    )
    assert digest_after(root / "core" / "a.py", reformatted, script) == before


def test_the_script_itself_does(package):
    _, script = package
    before = code.code_digest(script)
    assert digest_after(script, "from stsynth.core.a import f\n\nprint(f() * 2)\n", script) != before


def memo_of(script):
    return code._memo_file(script.resolve())


def test_a_later_start_reads_the_digest_from_the_memo_of_the_files_bytes(package):
    _, script = package
    before = code.code_digest(script)
    entry = json.loads(memo_of(script).read_text())
    assert entry["digest"] == before and len(entry["files"]) == 4  # the script, stsynth.core, a and b
    memo_of(script).write_text(json.dumps({**entry, "digest": "remembered"}))
    code._parsed.cache_clear()
    assert code.code_digest(script) == "remembered"  # served without parsing


def test_a_file_with_other_bytes_is_parsed_again_whatever_its_mtime(package):
    root, script = package
    before = code.code_digest(script)
    b = root / "core" / "b.py"
    status = b.stat()
    b.write_text("def g():\n    return 9\n")  # the same size
    os.utime(b, ns=(status.st_atime_ns, status.st_mtime_ns))
    code._parsed.cache_clear()
    assert code.code_digest(script) != before
    assert json.loads(memo_of(script).read_text())["digest"] == code.code_digest(script)


def test_a_module_file_that_appears_where_a_name_was_an_attribute_is_followed(package):
    root, script = package
    (root / "core" / "a.py").write_text("from stsynth.core import d\n\n\ndef f():\n    return 1\n")
    code._parsed.cache_clear()
    before = code.code_digest(script)  # stsynth.core.d: an attribute (of the package), no file
    (root / "core" / "d.py").write_text("X = 1\n")
    code._parsed.cache_clear()
    assert code.code_digest(script) != before


def test_a_package_folder_that_cannot_be_written_to_is_not_memoised(package, monkeypatch):
    root, script = package
    monkeypatch.setattr(code, "MEMO_FOLDER", "not-a-folder/memo")
    (root / "not-a-folder").write_text("a file, so no folder can be made under it")
    assert code.code_digest(script) == digest_after(script, script.read_text(), script)
