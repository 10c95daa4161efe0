"""Shared fixtures: a tiny STS corpus with its own manifest and mirror, and a runner for the real Snakefile.

`workspace` copies the tiny corpus of `.test/` (a few hand-made datasets in every released format:
2-field train files, 4-field 2016 English with blank gold lines, CRLF 4-field es-en; their manifest;
`.test/config.yaml`, the overlay a reader can run by hand) into a tmp folder, with a config.yaml that
is the project's own config with that overlay merged over it, so every stage's knobs are the real
defaults unless a test overrides them. Tests that need other datasets build them with TinyDataset.
"""

from __future__ import annotations

import copy
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
SHARED_CORPUS = REPO.parent / "shared" / "sts-corpus"
TEST_CONFIG = REPO / ".test"  # the tiny corpus and its overlay, as files a reader can open


def project_config(*overlays: str | Path) -> dict:
    """The project's config.yaml (with these overlays, paths relative to the checkout) as every stage reads it: the
    schema's defaults filled, the protocol resolved (stsynth.pipeline.overlays.resolved_config)."""
    from stsynth.pipeline.overlays import resolved_config

    return resolved_config([REPO / "config.yaml", *(REPO / overlay for overlay in overlays)])


def declared_project_config(*overlays: str | Path) -> dict:
    """The same as a run is given it (stsynth.pipeline.overlays.declared_config): a workspace's config.yaml."""
    from stsynth.pipeline.overlays import declared_config

    return declared_config([REPO / "config.yaml", *(REPO / overlay for overlay in overlays)])


def tiny_pairs(year: int, name: str) -> list[tuple[str, str, float | None]]:
    """(sentence 1, sentence 2, gold) of a `.test` dataset (gold None on a blank line: unscored)."""
    folder = TEST_CONFIG / "corpus" / f"TINY{year}"
    lines = (folder / f"STS.input.{name}.txt").read_bytes().decode().splitlines()
    gold = (folder / f"STS.gs.{name}.txt").read_text().splitlines()
    return [(*line.split("\t")[:2], float(score) if score else None) for line, score in zip(lines, gold, strict=True)]


# (sentence 1, sentence 2, gold) of the `.test` datasets, for tests that build variants of them:
# graded paraphrases, so every similarity has something to rank.
TRAIN_PAIRS = tiny_pairs(2012, "tinytrain")
DEV_PAIRS = tiny_pairs(2015, "tinydev")
TEST_PAIRS = tiny_pairs(2016, "tinytest")  # 2016-style: the gold of every third line is blank (unscored)
ES_EN_PAIRS = tiny_pairs(2016, "tinynews")


@dataclass
class TinyDataset:
    year: int
    name: str
    role: str
    track: str
    pairs: list
    fields: int = 2
    crlf: bool = False
    blank_every: int = 0  # every n-th gold line left blank (unscored)

    @property
    def folder(self) -> str:
        return f"TINY{self.year}"

    def files(self) -> dict[str, bytes]:
        newline = "\r\n" if self.crlf else "\n"
        lines, gold = [], []
        for number, (s1, s2, score) in enumerate(self.pairs, start=1):
            extra = [f"note {number}", f"source {number}"][: self.fields - 2]
            lines.append("\t".join([s1, s2, *extra]))
            unscored = self.blank_every and number % self.blank_every == 0
            gold.append("" if unscored else f"{score:.3f}")
        return {
            f"{self.folder}/STS.input.{self.name}.txt": (newline.join(lines) + newline).encode(),
            f"{self.folder}/STS.gs.{self.name}.txt": ("\n".join(gold) + "\n").encode(),
        }

    def config_entry(self) -> dict:
        """The dataset's config entry; its role is the protocol's to give (.test/config.yaml's protocol tiny)."""
        scored = sum(1 for n in range(1, len(self.pairs) + 1) if not (self.blank_every and n % self.blank_every == 0))
        return {
            "year": self.year,
            "name": self.name,
            "track": self.track,
            "fields": self.fields,
            "scored": scored,
            "input": f"{self.folder}/STS.input.{self.name}.txt",
            "gold": f"{self.folder}/STS.gs.{self.name}.txt",
        }


TINY_DATASETS = [
    TinyDataset(2012, "tinytrain", "train", "en", TRAIN_PAIRS),
    TinyDataset(2015, "tinydev", "train", "en", DEV_PAIRS),
    TinyDataset(2016, "tinytest", "test", "en", TEST_PAIRS, fields=4, blank_every=3),
    TinyDataset(2016, "tinynews", "test", "es-en", ES_EN_PAIRS, fields=4, crlf=True),
]


# minilm-static on 50 frequent words and 8 dimensions, for tiny builds that need its vocabulary (not 20k words).
SMALL_MINILM_STATIC = {"frequent_words": 50, "pca_components": 8}

# A fusion dev search of one grid point, for tiny builds that run one.
TINY_FUSION_GRID = {
    "init": [[]],
    "max_depth": [2],
    "learning_rate": [0.1],
    "subsample": [1.0],
    "max_estimators": 20,
    "step": 10,
}


def added_table(path: Path, name: str, rows: list[tuple[str, str, float]]) -> dict:
    """A tab-separated table of (s1, s2, score) rows written at ``path``, as the config entry of a test set added
    beside the protocol (``role: test``)."""
    path.write_text("a\tb\tscore\n" + "".join(f"{s1}\t{s2}\t{score}\n" for s1, s2, score in rows))
    columns = {"sentence1": "a", "sentence2": "b", "score": "score"}
    return {
        "name": name,
        "role": "test",
        "track": "en",
        "format": "table",
        "path": str(path),
        "delimiter": "\t",
        "columns": columns,
    }


def merge(base: dict, overrides: dict) -> dict:
    """Deep-merge overrides into a copy of base (dicts merge, everything else replaces)."""
    merged = copy.deepcopy(base)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


@dataclass
class Workspace:
    path: Path
    mirror: Path
    manifest: Path
    config: dict
    configfiles: list[Path] | None = None  # the overlays a run stacks (as make stacks them), else its config.yaml

    def write_config(self, overrides: dict | None = None) -> Path:
        if overrides:
            self.config = merge(self.config, overrides)
        config_path = self.path / "config.yaml"
        config_path.write_text(yaml.safe_dump(self.config, sort_keys=False))
        return config_path

    def keep_runs(self, runs: dict) -> None:
        """Set `runs:` and drop every name of a run no longer there (the workflow refuses them, as it
        would a user's trimmed config that still compares or plots a removed run)."""
        self.config["runs"] = {
            name: {**entry, "against": [run for run in entry["against"] if run in runs]}
            if "against" in entry
            else entry
            for name, entry in runs.items()
        }
        compare, report = self.config["scoring"]["compare"], self.config["report"]
        compare["reference"] = compare["reference"] if compare["reference"] in runs else None
        compare["pairs"] = [pair for pair in compare["pairs"] if set(pair) <= set(runs)]
        report["scatter_runs"] = [run for run in report["scatter_runs"] if run in runs]
        self.config["seed_study"]["runs"] = [run for run in self.config["seed_study"]["runs"] if run in runs]
        for key in ("paper_systems", "training_curves", "paper_table1"):
            report[key] = {run: value for run, value in report[key].items() if run in runs}

    def snakemake(
        self, *args: str, check: bool = True, env: dict | None = None, timeout: float = 900
    ) -> subprocess.CompletedProcess:
        """Run the project's real Snakefile in this workspace; on failure show its output."""
        return run_snakemake(self.path, *args, check=check, env=env, timeout=timeout, configfiles=self.configfiles)


def snakemake_cores() -> int:
    """A test's Snakemake run gets the machine's cores shared among pytest-xdist's workers (`make test`
    runs two or more): a workflow per core rather than two each taking every core, where torch's and
    OpenMP's threads would outnumber the cores and thrash."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    return max(1, len(os.sched_getaffinity(0)) // workers)  # the cores the workflow caps --cores at


def snakemake_command(workdir: Path, *args: str, configfiles: list[Path] | None = None) -> list[str]:
    """The command line :func:`run_snakemake` runs."""
    return [
        sys.executable,
        "-m",
        "snakemake",
        "--snakefile",
        str(REPO / "Snakefile"),
        "--directory",
        str(workdir),
        "--configfile",
        *map(str, configfiles or [workdir / "config.yaml"]),
        "--cores",
        str(snakemake_cores()),
        *args,
    ]


def run_snakemake(
    workdir: Path,
    *args: str,
    check: bool = True,
    env: dict | None = None,
    timeout: float = 900,
    configfiles: list[Path] | None = None,
) -> subprocess.CompletedProcess:
    """The real Snakefile in ``workdir`` on its config.yaml (or on ``configfiles``, stacked as make stacks overlays)."""
    command = snakemake_command(workdir, *args, configfiles=configfiles)
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env={**os.environ, **(env or {})})
    if check and result.returncode != 0:
        raise AssertionError(
            f"snakemake {' '.join(args)} failed ({result.returncode}):\n"
            f"{result.stdout[-6000:]}\n{result.stderr[-6000:]}"
        )
    return result


def write_corpus(root: Path, datasets: list[TinyDataset]) -> Path:
    """Write the datasets' files under root and return a manifest listing them."""
    rows = ["relpath\tsha256\tbytes\torigin"]
    for dataset in datasets:
        for relpath, content in dataset.files().items():
            target = root / "mirror" / relpath
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
            rows.append(
                f"{relpath}\t{hashlib.sha256(content).hexdigest()}\t{len(content)}\t"
                f"http://127.0.0.1:9/unreachable/{relpath}"
            )
    manifest = root / "manifest.tsv"
    manifest.write_text("\n".join(rows) + "\n")
    return manifest


def make_workspace(root: Path, datasets: list[TinyDataset] | None = None) -> Workspace:
    """The project's config.yaml with `.test/config.yaml` over it, on a copy of the `.test` corpus under
    ``root`` (the `workspace` fixture's), or on a corpus of other ``datasets`` written there."""
    overlay = yaml.safe_load((TEST_CONFIG / "config.yaml").read_text())
    if datasets is None:
        shutil.copytree(TEST_CONFIG / "corpus", root / "mirror")
        manifest = Path(shutil.copy(TEST_CONFIG / "manifest.tsv", root / "manifest.tsv"))
    else:
        manifest = write_corpus(root, datasets)
        overlay["datasets"] = [d.config_entry() for d in datasets]
    config = merge(
        declared_project_config(),
        {**overlay, "corpus": {"manifest": str(manifest), "mirrors": [str(root / "mirror")]}},
    )
    work = Workspace(root / "work", root / "mirror", manifest, config)
    work.path.mkdir()
    work.write_config()
    return work


def copy_of(build: Workspace, folder: Path, corpus: bool = False) -> Workspace:
    """A copy of a shared build's working directory, mtimes kept (Snakemake sees it as built), for a test that
    changes the tree. Its config's paths are absolute and still hold: the shared corpus mirror and manifest are
    only read, or, with ``corpus``, copied beside it for a test that edits them."""
    shutil.copytree(build.path, folder, symlinks=True)
    work = Workspace(folder, build.mirror, build.manifest, copy.deepcopy(build.config), build.configfiles)
    if corpus:
        work.mirror = Path(shutil.copytree(build.mirror, folder.parent / "mirror", symlinks=True))
        work.manifest = Path(shutil.copy2(build.manifest, folder.parent / "manifest.tsv"))
        work.write_config({"corpus": {"manifest": str(work.manifest), "mirrors": [str(work.mirror)]}})
    return work


def shared_build(tmp_path_factory, name: str, build) -> Workspace:
    """The tiny tree ``build(root)`` makes (a Workspace, its targets built), made once per suite run and read by
    every test that asks for ``name``, in whichever file and pytest-xdist worker: the first to ask builds it
    under a lock, the others wait for it. The tests only read it; one that changes a tree works on
    :func:`copy_of`. A failed build is kept as failed, so each test that asks fails with its output, not
    building it again."""
    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "shared-builds"
    folder.mkdir(exist_ok=True)
    root, record, failed = folder / name, folder / f"{name}.json", folder / f"{name}.failed"
    with open(folder / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # across worker processes: the standard library's lock is enough on Linux
        if failed.exists():
            raise AssertionError(f"the shared tiny build {name!r} failed:\n{failed.read_text()}")
        if not record.exists():
            root.mkdir()
            try:
                work = build(root)
            except BaseException as error:
                failed.write_text(f"{type(error).__name__}: {error}")
                raise
            fields = {"path": work.path, "mirror": work.mirror, "manifest": work.manifest}
            record.write_text(
                json.dumps({**{k: str(v) for k, v in fields.items()}, "configfiles": work.configfiles}, default=str)
            )
    saved = json.loads(record.read_text())
    path = Path(saved["path"])
    configfiles = [Path(file) for file in saved["configfiles"]] if saved["configfiles"] else None
    config_file = path / "config.yaml"
    config = yaml.safe_load(config_file.read_text()) if config_file.exists() else {}
    return Workspace(path, Path(saved["mirror"]), Path(saved["manifest"]), config, configfiles)


@pytest.fixture
def workspace(tmp_path) -> Workspace:
    return make_workspace(tmp_path)


BASELINE_SCORES = "results/scores/baseline.md"


@pytest.fixture(scope="session")
def tiny_baseline(tmp_path_factory) -> Workspace:
    """The `workspace` fixture's tree with the baseline run's scores built (the fetched corpus, its pair and token
    tables, the predictions), once per suite run (shared_build); read only."""

    def build(root):
        work = make_workspace(root)
        work.snakemake(BASELINE_SCORES)
        return work

    return shared_build(tmp_path_factory, "tiny-baseline", build)


@pytest.fixture
def built_workspace(tiny_baseline, tmp_path) -> Workspace:
    """A copy of :func:`tiny_baseline`, with its own corpus mirror and manifest, for a test that changes any of them:
    the `workspace` fixture with the baseline's scores already built."""
    return copy_of(tiny_baseline, tmp_path / "work", corpus=True)


@pytest.fixture
def shared_corpus() -> Path:
    if not (SHARED_CORPUS / "MANIFEST.tsv").is_file():
        message = f"../shared/sts-corpus is absent ({SHARED_CORPUS}); real-corpus checks need it"
        print(message)
        pytest.skip(message)
    return SHARED_CORPUS


# `make test` hands each worker whole files (--dist loadfile), in collection order (--no-loadscope-reorder; xdist's
# default order, most tests first, put these one- to three-test files last). The files whose tests take over half
# a minute in all (make test's --durations, summed per file) go first, longest first, so that no worker runs one
# alone at the end while the others idle; the many short files after them fill the gaps.
LONGEST_FILES = [
    "test_benchmark.py",
    "test_model_identity.py",
    "test_sts2017.py",
    "test_encoder_tuning.py",
    "test_robustness.py",
    "test_slurm.py",
    "test_deploy.py",
    "test_eval.py",
    "test_fusion.py",
    "test_paragram.py",
    "test_named_encoders.py",
    "test_provenance.py",
    "test_embedding_store.py",
    "test_translate.py",
    "test_snakemake_cache.py",
    "test_targets.py",
]


def pytest_collection_modifyitems(items):
    rank = {name: place for place, name in enumerate(LONGEST_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # a stable sort: the rest keep pytest's order


@pytest.fixture(autouse=True)
def _fast_tier_starts_no_program(request, monkeypatch):
    """The tiers' promise (`make test-fast`, pytest markers): a test marked neither ``workflow`` nor
    ``subprocess`` starts no program. A child process starts through ``subprocess.Popen`` (which forks or
    posix_spawns), ``multiprocessing`` (``_posixsubprocess.fork_exec``) or ``os.system``; in such a test
    each fails, naming the marker the test lacks."""
    if request.node.get_closest_marker("workflow") or request.node.get_closest_marker("subprocess"):
        return
    import _posixsubprocess

    def refuse(*args, **kwargs):
        raise AssertionError(
            f"{request.node.nodeid} starts a program: mark it @pytest.mark.subprocess (or "
            "@pytest.mark.workflow when it runs the Snakefile), so `make test-fast` leaves it out"
        )

    monkeypatch.setattr(subprocess.Popen, "_execute_child", refuse)
    monkeypatch.setattr(_posixsubprocess, "fork_exec", refuse)
    monkeypatch.setattr(os, "system", refuse)
