"""The `stsynth` command (and so every `make` target that runs the workflow): a config file it is given that cannot
be an overlay is refused in one line naming it, before Snakemake starts."""

import os
import subprocess

import pytest

from conftest import REPO
from stsynth.pipeline import cli


@pytest.mark.parametrize(
    "content, said",
    [
        (None, "no such file"),
        (b"runs: {fusion: {stage: fusion}\n", "is not YAML (line 2:"),
        (b"- protocol: mine\n", "holds no mapping of config keys (it is a list;"),
        (b"", "holds no mapping of config keys (it is empty;"),
        (b"\xff\xfe protocol: mine\n", "cannot be read ("),
    ],
)
def test_an_overlay_that_cannot_be_one_is_refused_in_one_line_naming_it(tmp_path, capsys, content, said):
    overlay = tmp_path / "mine.yaml"
    if content is not None:
        overlay.write_bytes(content)
    # no Snakemake is started: the fast tier refuses any program this test would start
    assert cli.main(["all", "--overlay", str(overlay), "--", "-n"]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"stsynth: overlay {overlay}: {said}"), lines


def test_a_config_file_for_snakemake_is_checked_too_and_a_good_overlay_passes(tmp_path, capsys):
    good = tmp_path / "good.yaml"
    good.write_text("protocol: semeval2016\n")
    assert cli.config_file_problem(good) is None
    assert cli.config_file_problem(tmp_path) == f"is a folder, not a file ({tmp_path})"
    named = cli.config_files_named([str(good)], ["-n", "--configfile", "a.yaml", "b.yaml", "-p", "--configfile=c.yaml"])
    assert named == [
        ("overlay", str(good)),
        ("--configfile", "a.yaml"),
        ("--configfile", "b.yaml"),
        ("--configfile", "c.yaml"),
    ]
    missing = tmp_path / "typo.yaml"
    assert cli.main(["all", "--overlay", str(good), "--", "-n", "--configfile", str(missing)]) == 2
    assert capsys.readouterr().err == f"stsynth: --configfile {missing}: no such file ({missing})\n"


@pytest.mark.subprocess
def test_make_with_a_mistyped_overlay_says_so_in_one_line(tmp_path):
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS"))}
    # DIR: were the overlay let through, the build would not touch the checkout's own tree
    result = subprocess.run(
        ["make", "--no-print-directory", "all", "OVERLAYS=no-such-overlay.yaml", f"DIR={tmp_path}"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env=environment,
    )
    assert result.returncode != 0
    assert f"stsynth: overlay no-such-overlay.yaml: no such file ({REPO / 'no-such-overlay.yaml'})" in result.stderr
    assert "Traceback" not in result.stdout + result.stderr
