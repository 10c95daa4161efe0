import hashlib
import http.server
import os
import threading
from functools import partial

import pytest

from stsynth.core.corpus import CorpusError, ManifestEntry, fetch, mirrors_from, read_manifest, verify_copies


def entry_for(content: bytes, relpath="DIR/file.txt", origin="http://127.0.0.1:9/origin/DIR/file.txt"):
    return ManifestEntry(relpath, hashlib.sha256(content).hexdigest(), len(content), origin)


def put(root, relpath, content):
    path = root / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)


def test_first_mirror_with_a_verified_copy_wins(tmp_path):
    good = b"right bytes\n"
    put(tmp_path / "m1", "DIR/file.txt", b"wrong bytes\n")
    put(tmp_path / "m2", "DIR/file.txt", good)
    source = fetch(
        entry_for(good),
        tmp_path / "out" / "file.txt",
        [str(tmp_path / "missing"), str(tmp_path / "m1"), str(tmp_path / "m2")],
    )
    assert source == str(tmp_path / "m2" / "DIR/file.txt")
    assert (tmp_path / "out" / "file.txt").read_bytes() == good


def test_failure_names_every_source_and_leaves_no_file(tmp_path):
    put(tmp_path / "m1", "DIR/file.txt", b"tampered\n")
    with pytest.raises(CorpusError) as error:
        fetch(entry_for(b"original\n"), tmp_path / "out" / "file.txt", [str(tmp_path / "m1")], timeout=2)
    message = str(error.value)
    assert "m1/DIR/file.txt: sha256" in message and "http://127.0.0.1:9/origin/DIR/file.txt" in message
    assert list((tmp_path / "out").iterdir()) == []


def test_an_origin_inside_a_zip_is_read_from_that_member(tmp_path):
    """STS 2017's origins name a file inside the organizers' zip (<zip URL>#<member>)."""
    import zipfile

    content = b"A person is on a team.\tA person plays.\n"
    with zipfile.ZipFile(tmp_path / "sts2017.eval.zip", "w") as archive:
        archive.writestr("STS2017.eval/STS.input.track5.en-en.txt", content)
        archive.writestr("STS2017.eval/other.txt", b"other\n")
    origin = f"file://{tmp_path}/sts2017.eval.zip#STS2017.eval/STS.input.track5.en-en.txt"
    fetch(entry_for(content, origin=origin), tmp_path / "out" / "track5.txt", [], timeout=2)
    assert (tmp_path / "out" / "track5.txt").read_bytes() == content
    with pytest.raises(CorpusError, match="has no member 'STS2017.eval/absent.txt'"):
        fetch(
            entry_for(content, origin=origin.replace("STS.input.track5.en-en", "absent")),
            tmp_path / "out" / "x.txt",
            [],
            timeout=2,
        )
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["track5.txt"]  # nothing else left behind


def test_url_mirror_over_loopback_http(tmp_path):
    content = b"served over http\n"
    put(tmp_path / "site", "DIR/file.txt", content)
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path / "site"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        source = fetch(entry_for(content), tmp_path / "file.txt", [base], timeout=5)
    finally:
        server.shutdown()
    assert source == f"{base}/DIR/file.txt" and (tmp_path / "file.txt").read_bytes() == content


def test_environment_variable_replaces_configured_mirrors():
    assert mirrors_from(["a"], {"STSYNTH_MIRRORS": "b  http://c/"}) == ["b", "http://c/"]
    assert mirrors_from(["a"], {}) == ["a"]


def test_manifest_errors_name_the_line(tmp_path):
    path = tmp_path / "m.tsv"
    path.write_text("relpath\tsha256\tbytes\torigin\nx\tab\tnot-a-number\thttp://o/x\n")
    with pytest.raises(CorpusError, match=r"m\.tsv:2: malformed"):
        read_manifest(path)


@pytest.mark.parametrize(
    "relpath, reason",
    [
        ("../../../escape_src.txt", "it contains a '..' part"),
        ("STS2016/../../x.txt", "it contains a '..' part"),
        ("/etc/escape.txt", "it is absolute"),
        ("C:/escape.txt", "it is absolute"),
        ("STS2016\\x.txt", "it contains a backslash"),
    ],
)
def test_a_manifest_path_that_could_leave_the_corpus_folder_is_refused(tmp_path, relpath, reason):
    """Its copy goes to resources/corpus/<relpath>: '../../../x' wrote three levels above the working tree."""
    path = tmp_path / "m.tsv"
    path.write_text(
        f"relpath\tsha256\tbytes\torigin\nok/x.txt\t{'0' * 64}\t1\thttp://o/x\n{relpath}\t{'0' * 64}\t1\thttp://o/y\n"
    )
    with pytest.raises(CorpusError) as error:
        read_manifest(path)
    assert str(error.value).startswith(f"{path}:3: relpath {relpath!r} is refused: {reason}")


def test_a_manifest_path_listed_twice_is_refused(tmp_path):
    path = tmp_path / "m.tsv"
    path.write_text(
        f"relpath\tsha256\tbytes\torigin\nx.txt\t{'0' * 64}\t1\thttp://o/x\nx.txt\t{'1' * 64}\t1\thttp://o/x\n"
    )
    with pytest.raises(CorpusError, match=r"m\.tsv:3: relpath 'x.txt' is listed twice \(first on line 2\)"):
        read_manifest(path)


@pytest.mark.workflow
def test_an_escaping_manifest_row_stops_the_workflow_before_any_job(workspace, tmp_path):
    content = b"outside\tthe tree\n"
    put(tmp_path / "source", "escape_src.txt", content)
    digest = hashlib.sha256(content).hexdigest()
    with workspace.manifest.open("a") as manifest:
        manifest.write(f"../../../escape_src.txt\t{digest}\t{len(content)}\tfile://{tmp_path}/source/escape_src.txt\n")
    workspace.config["datasets"].append(
        {
            "year": 2020,
            "name": "escape",
            "role": "test",
            "track": "en",
            "format": "stsb",
            "input": "../../../escape_src.txt",
        }
    )
    workspace.write_config()
    result = workspace.snakemake("resources/pairs/2020/escape.parquet", check=False)
    lines = len(workspace.manifest.read_text().splitlines())
    assert result.returncode != 0
    assert (
        f"{workspace.manifest}:{lines}: relpath '../../../escape_src.txt' is refused" in result.stdout + result.stderr
    )
    # where work/resources/corpus/../../../ and work/logs/corpus/../../../ lead: the copy, log and benchmark
    # landed there
    assert not list(tmp_path.glob("escape_src.txt*"))


@pytest.mark.workflow
def test_a_corpus_copy_edited_after_its_fetch_is_refused(workspace, monkeypatch):
    """It was verified once, then trusted: an edited gold file went into the pair table."""
    target = "resources/pairs/2016/tinytest.parquet"
    workspace.snakemake(target)
    copy = next((workspace.path / "resources/corpus").glob("*/STS.gs.tinytest.txt"))
    copy.write_text(
        copy.read_text().replace("4.800", "1.800", 1) if "4.800" in copy.read_text() else "1.8" + copy.read_text()[3:]
    )
    # refused before any job, by every invocation (tests/test_robustness.py runs it again and again)
    result = workspace.snakemake(target, check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0 and f"{copy.relative_to(workspace.path)}: sha256 is" in output
    assert "but the corpus manifest says" in output and "Delete it to fetch it again" in output
    # the job's own check (a copy edited between the start and the job) still names the manifest
    from stsynth.core.corpus import CorpusError, verify_copies

    monkeypatch.chdir(workspace.path)
    with pytest.raises(CorpusError, match="but the corpus manifest \\("):
        verify_copies([str(copy.relative_to(workspace.path))], workspace.manifest)
    copy.unlink()
    workspace.snakemake(target)  # fetched again, verified, and the table rebuilt from it


def test_verify_copies_checks_only_corpus_copies_and_names_the_copy(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    manifest = tmp_path / "m.tsv"
    digest = hashlib.sha256(b"original\n").hexdigest()
    manifest.write_text(f"relpath\tsha256\tbytes\torigin\nx.txt\t{digest}\t9\thttp://o/x\n")
    put(tmp_path / "resources/corpus", "x.txt", b"original\n")
    put(tmp_path, "mine.csv", b"a local file: not in the manifest\n")
    verify_copies(["resources/corpus/x.txt", "mine.csv"], manifest)
    put(tmp_path / "resources/corpus", "x.txt", b"edited\n")
    with pytest.raises(CorpusError, match=r"resources/corpus/x.txt: sha256 is [0-9a-f]{64}, but the corpus manifest"):
        verify_copies(["mine.csv", "resources/corpus/x.txt"], manifest)


def test_a_killed_fetch_leaves_nothing_behind_for_long_and_copies_are_readable(tmp_path):
    content = b"right bytes\n"
    put(tmp_path / "m", "DIR/file.txt", content)
    out = tmp_path / "out"
    out.mkdir()
    stale = out / ".file.txt.ab12_z9x"  # what mkstemp named the copy of a fetch killed mid-way
    stale.write_bytes(b"half")
    unrelated = out / ".file.txt.notes"
    unrelated.write_bytes(b"mine")
    umask = os.umask(0o022)
    try:
        fetch(entry_for(content), out / "file.txt", [str(tmp_path / "m")])
    finally:
        os.umask(umask)
    assert not stale.exists() and unrelated.exists()
    mode = (out / "file.txt").stat().st_mode & 0o777
    assert mode == 0o644, oct(mode)  # readable like any checkout file, not mkstemp's 0600


def test_project_manifest_matches_shared_corpus(shared_corpus):
    """The project's copied facts agree with the mirror's own manifest (and the files hash to them)."""
    from conftest import REPO

    ours = read_manifest(REPO / "workflow" / "corpus_manifest.tsv")
    theirs = read_manifest(shared_corpus / "MANIFEST.tsv")
    for relpath, entry in ours.items():
        assert theirs[relpath] == entry
