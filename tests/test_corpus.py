import hashlib
import http.server
import threading
from functools import partial

import pytest

from stsynth.corpus import CorpusError, ManifestEntry, fetch, mirrors_from, read_manifest


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
    source = fetch(entry_for(good), tmp_path / "out" / "file.txt",
                   [str(tmp_path / "missing"), str(tmp_path / "m1"), str(tmp_path / "m2")])
    assert source == str(tmp_path / "m2" / "DIR/file.txt")
    assert (tmp_path / "out" / "file.txt").read_bytes() == good


def test_failure_names_every_source_and_leaves_no_file(tmp_path):
    put(tmp_path / "m1", "DIR/file.txt", b"tampered\n")
    with pytest.raises(CorpusError) as error:
        fetch(entry_for(b"original\n"), tmp_path / "out" / "file.txt", [str(tmp_path / "m1")], timeout=2)
    message = str(error.value)
    assert "m1/DIR/file.txt: sha256" in message and "http://127.0.0.1:9/origin/DIR/file.txt" in message
    assert list((tmp_path / "out").iterdir()) == []


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


def test_project_manifest_matches_shared_corpus(shared_corpus):
    """The project's copied facts agree with the mirror's own manifest (and the files hash to them)."""
    from conftest import REPO

    ours = read_manifest(REPO / "workflow" / "corpus_manifest.tsv")
    theirs = read_manifest(shared_corpus / "MANIFEST.tsv")
    for relpath, entry in ours.items():
        assert theirs[relpath] == entry
