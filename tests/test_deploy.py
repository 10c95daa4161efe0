"""The workflow deployed the ways Snakemake workflows are: run by an interpreter that has the env file's packages
but not this package (no `pip install -e .`: the Snakefile puts the checkout's own source on its jobs' path), and
used as a module of another folder's Snakefile, as snakedeploy writes it. Both on the tiny corpus; the module's
score and prediction bytes are the plain run's."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import sysconfig
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from conftest import REPO, SMALL_MINILM_STATIC, make_workspace, snakemake_cores

# snakedeploy's Snakefile (its template use_module.smk.jinja), with a local checkout for the module's source
DEPLOYED_SNAKEFILE = """\
from snakemake.utils import min_version


min_version("6.10.0")


configfile: "config/config.yaml"


# declare {checkout} as a module
module stsynth:
    snakefile:
        {snakefile}
    config:
        config


# use all rules from {checkout}
use rule * from stsynth
"""
# Two runs of the tiny `all`: its pairs, word vectors, a trained (torch) paragram model and its export, predictions,
# scores, their comparison and the report (its other runs add more of the same jobs and minutes to the suite).
RUNS = {"baseline": {"stage": "baseline"}, "task-internal": {"stage": "paragram", "model": "task-internal"}}
SMALL_VECTORS = {"vectors": {"minilm-static": SMALL_MINILM_STATIC}}  # a minute less a build


def without_this_package(folder: Path) -> Path:
    """A virtualenv on this interpreter whose packages are this one's site-packages read as a plain folder, so
    none of its .pth files is run: the editable install of stsynth (a .pth) is not there, every other package is."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    [site] = (folder / "lib").glob("python*/site-packages")
    (site / "env-packages.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return folder / "bin" / "python"


def without_pythonpath() -> dict:
    """This process's environment without PYTHONPATH: nothing but the interpreter's own packages is importable."""
    return {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}


def run(python: Path, *args: str, cwd: Path, check: bool = True) -> subprocess.CompletedProcess:
    environment = without_pythonpath()
    result = subprocess.run(
        [str(python), "-m", "snakemake", "--cores", str(snakemake_cores()), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=environment,
        timeout=900,
    )
    assert result.returncode == 0 or not check, f"{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    return result


def deploy(folder: Path, snakefile: str, config: dict) -> Path:
    """What snakedeploy writes: a copy of config/ (config/config.yaml the user's config) and workflow/Snakefile."""
    shutil.copytree(REPO / "config", folder / "config")
    assert not (folder / "config/config.yaml").is_symlink()  # copied as the file it names, config.yaml
    (folder / "config/config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    (folder / "workflow").mkdir()
    (folder / "workflow/Snakefile").write_text(DEPLOYED_SNAKEFILE.format(checkout=REPO, snakefile=snakefile))
    return folder


def outputs(work: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(work)): path.read_bytes()
        for folder in ("results/scores", "results/predictions")
        for path in sorted((work / folder).rglob("*"))
        if path.is_file()
    }


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("venv")
    python = without_this_package(folder)
    probe = subprocess.run(
        [str(python), "-c", "import stsynth"], capture_output=True, text=True, cwd=folder, env=without_pythonpath()
    )
    assert probe.returncode != 0 and "No module named 'stsynth'" in probe.stderr  # what the runs below lack
    assert subprocess.run([str(python), "-c", "import snakemake, torch"], env=without_pythonpath()).returncode == 0
    return python


@pytest.fixture(scope="module")
def plain_build(bare_python, tmp_path_factory):
    workspace = make_workspace(tmp_path_factory.mktemp("plain"))
    workspace.keep_runs(RUNS)
    workspace.write_config(SMALL_VECTORS)
    config = workspace.path / "config.yaml"
    run(bare_python, "all", "--snakefile", str(REPO / "Snakefile"), "--configfile", str(config), cwd=workspace.path)
    return workspace


@pytest.mark.workflow
def test_an_environment_without_the_package_runs_the_workflow_from_its_source(plain_build):
    work = plain_build.path
    report = (work / "results/report.md").read_text()
    # its wall-time table holds the cached rule's jobs, from Snakemake's log, and names no uncached rule cached
    [cached] = [line for line in report.splitlines() if "for the cached rules (" in line]
    named = cached.split("for the cached rules (")[1].split(":")[0]
    assert set(named.split(", ")) == {"`vectors_minilm_static`", "`paragram_train`"}  # its two `cache: True` rules
    assert "| paragram_train (log) | 1 |" in report and "| vectors_minilm_static (log) | 1 |" in report
    assert {"baseline", "task-internal"} <= {p.stem for p in (work / "results/scores").glob("*.parquet")}


@pytest.mark.workflow
def test_the_workflow_as_a_module_gives_the_plain_runs_bytes(plain_build, bare_python, tmp_path):
    deployment = deploy(tmp_path / "deployment", f'"{REPO}/Snakefile"', plain_build.config)
    run(bare_python, cwd=deployment)  # `snakemake --cores N` in the deployment, as snakedeploy says
    built = outputs(deployment)
    assert built and built == outputs(plain_build.path)
    # Snakemake's own HTML report of the deployment, with the report's tables and plots
    run(bare_python, "--report", "report.html", cwd=deployment)
    html = (deployment / "report.html").read_text()
    assert "report.md" in html and "scatter-task-internal.png" in html


def test_the_catalog_file_says_what_the_tests_run():
    """.snakemake-workflow-catalog.yml's usage (the catalog's keys), and the config snakedeploy copies from config/."""
    usage = yaml.safe_load((REPO / ".snakemake-workflow-catalog.yml").read_text())["usage"]
    assert set(usage) == {"mandatory-flags", "software-stack-deployment", "report"}
    assert set(usage["mandatory-flags"]) == {"desc", "flags"} and "--cores" in usage["mandatory-flags"]["flags"]
    stacks = usage["software-stack-deployment"]
    assert stacks == {"conda": True, "apptainer": False, "apptainer+conda": False} and usage["report"] is True
    assert (REPO / "envs/stsynth.yaml").is_file()  # the conda stack the file claims
    assert (REPO / "config/config.yaml").resolve() == (REPO / "config.yaml").resolve()  # one file, two names


@pytest.mark.subprocess
def test_a_module_read_from_a_server_is_refused_naming_the_local_clone(tmp_path):
    """A remote module (snakedeploy's github(...) source; here a URL of a server on 127.0.0.1) has no checkout for
    its jobs to import the package from: refused before anything runs, saying what to do instead."""
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(REPO))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/Snakefile"
        deployment = deploy(tmp_path / "deployment", f'"{url}"', {})
        result = run(Path(sys.executable), "-n", cwd=deployment, check=False)
    finally:
        server.shutdown()
    assert result.returncode != 0
    assert "stsynth runs as a module from a local checkout only: clone it" in result.stdout + result.stderr
