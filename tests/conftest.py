"""Shared fixtures: a tiny STS corpus with its own manifest and mirror, and a runner for the real Snakefile.

`workspace` builds, in a tmp folder, a corpus mirror of a few hand-made datasets in every
released format (2-field train files, 4-field 2016 English with blank gold lines, CRLF
4-field es-en), a manifest of their sha256, and a config.yaml that is the project's own
config with only the corpus and dataset list replaced, so every stage's knobs are the real
defaults unless a test overrides them.
"""
from __future__ import annotations

import copy
import hashlib
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
SHARED_CORPUS = REPO.parent / "shared" / "sts-corpus"


# (sentence 1, sentence 2, gold): graded paraphrases, so every similarity has something to rank.
TRAIN_PAIRS = [
    ("A man is playing a guitar.", "A man plays the guitar.", 4.8),
    ("A woman is slicing an onion.", "A woman cuts an onion.", 4.4),
    ("The cat sits on the mat.", "A cat is sitting on a mat.", 4.6),
    ("Two dogs run in the park.", "Dogs are running in a park.", 4.2),
    ("A man is playing a flute.", "A man is eating pasta.", 0.6),
    ("The stock market fell sharply today.", "Shares dropped steeply on Monday.", 3.6),
    ("A child is riding a bike.", "A kid rides a bicycle.", 4.9),
    ("The president met the prime minister.", "A boy is swimming in the lake.", 0.0),
    ("Police arrested 3 men in Paris.", "Three men were arrested by police in Paris.", 4.7),
    ("A woman is dancing on stage.", "A woman is singing on stage.", 2.4),
    ("The train arrived late.", "The bus left early.", 1.0),
    ("A bird is flying over the sea.", "A bird flies above the ocean.", 4.5),
]
DEV_PAIRS = [
    ("A man is cutting a tomato.", "A man slices a tomato.", 4.6),
    ("A girl is playing the piano.", "A girl plays piano.", 4.9),
    ("A dog is barking at a cat.", "The weather is sunny today.", 0.2),
    ("Prices rose 5 percent in May.", "Prices increased by 5% in May.", 4.4),
    ("A man is driving a car.", "A woman is riding a horse.", 1.2),
    ("The team won the match.", "The team lost the game.", 2.0),
]
TEST_PAIRS = [  # 2016-style: the gold of every third line is blank (unscored)
    ("A boy is kicking a ball.", "A boy kicks a football.", 4.7),
    ("The city council approved the budget.", "The budget was approved by the council.", 4.5),
    ("A woman is peeling a potato.", "A man is playing drums.", 0.4),
    ("Two men are fighting.", "Two men are arguing loudly.", 2.8),
    ("The sun rises in the east.", "The sun comes up in the east.", 4.9),
    ("Café prices doubled in 2015.", "Coffee costs went up twice in 2015.", 3.4),
    ("A cat is chasing a mouse.", "A dog is sleeping.", 0.8),
    ("She bought 2 apples.", "She bought two apples.", 5.0),
    ("The plane landed safely.", "The flight arrived without problems.", 4.0),
]
ES_EN_PAIRS = [
    ("Un hombre está tocando la guitarra.", "A man is playing the guitar.", 5.0),
    ("La mujer corta una cebolla.", "A woman is dancing.", 0.6),
    ("El gato duerme en la cama.", "The cat is sleeping on the bed.", 4.8),
    ("Los precios subieron en mayo.", "The team won the match in May.", 1.0),
    ("Un niño monta en bicicleta.", "A child rides a bike.", 4.9),
]


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
        scored = sum(1 for n in range(1, len(self.pairs) + 1) if not (self.blank_every and n % self.blank_every == 0))
        return {"year": self.year, "name": self.name, "role": self.role, "track": self.track,
                "fields": self.fields, "scored": scored,
                "input": f"{self.folder}/STS.input.{self.name}.txt", "gold": f"{self.folder}/STS.gs.{self.name}.txt"}


TINY_DATASETS = [
    TinyDataset(2012, "tinytrain", "train", "en", TRAIN_PAIRS),
    TinyDataset(2015, "tinydev", "train", "en", DEV_PAIRS),
    TinyDataset(2016, "tinytest", "test", "en", TEST_PAIRS, fields=4, blank_every=3),
    TinyDataset(2016, "tinynews", "test", "es-en", ES_EN_PAIRS, fields=4, crlf=True),
]


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

    def write_config(self, overrides: dict | None = None) -> Path:
        if overrides:
            self.config = merge(self.config, overrides)
        config_path = self.path / "config.yaml"
        config_path.write_text(yaml.safe_dump(self.config, sort_keys=False))
        return config_path

    def keep_runs(self, runs: dict) -> None:
        """Set `runs:` and drop every name of a run no longer there (the workflow refuses them, as it
        would a user's trimmed config that still compares or plots a removed run)."""
        self.config["runs"] = runs
        compare, report = self.config["scoring"]["compare"], self.config["report"]
        compare["reference"] = compare["reference"] if compare["reference"] in runs else None
        compare["pairs"] = [pair for pair in compare["pairs"] if set(pair) <= set(runs)]
        report["scatter_runs"] = [run for run in report["scatter_runs"] if run in runs]
        for key in ("paper_systems", "training_curves", "paper_table1"):
            report[key] = {run: value for run, value in report[key].items() if run in runs}

    def snakemake(self, *args: str, check: bool = True, env: dict | None = None,
                  timeout: float = 900) -> subprocess.CompletedProcess:
        """Run the project's real Snakefile in this workspace; on failure show its output."""
        return run_snakemake(self.path, *args, check=check, env=env, timeout=timeout)


def run_snakemake(workdir: Path, *args: str, check: bool = True, env: dict | None = None,
                  timeout: float = 900) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"),
               "--directory", str(workdir), "--configfile", str(workdir / "config.yaml"),
               "--cores", "2", *args]
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                            env={**os.environ, **(env or {})})
    if check and result.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed ({result.returncode}):\n"
                             f"{result.stdout[-6000:]}\n{result.stderr[-6000:]}")
    return result


def write_corpus(root: Path, datasets: list[TinyDataset]) -> Path:
    """Write the datasets' files under root and return a manifest listing them."""
    rows = ["relpath\tsha256\tbytes\torigin"]
    for dataset in datasets:
        for relpath, content in dataset.files().items():
            target = root / "mirror" / relpath
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
            rows.append(f"{relpath}\t{hashlib.sha256(content).hexdigest()}\t{len(content)}\t"
                        f"http://127.0.0.1:9/unreachable/{relpath}")
    manifest = root / "manifest.tsv"
    manifest.write_text("\n".join(rows) + "\n")
    return manifest


def make_workspace(root: Path, datasets: list[TinyDataset] = TINY_DATASETS) -> Workspace:
    """The project's config.yaml on a tiny corpus of ``datasets`` under ``root`` (the `workspace` fixture's)."""
    manifest = write_corpus(root, datasets)
    project_config = yaml.safe_load((REPO / "config.yaml").read_text())
    config = merge(project_config, {"corpus": {"manifest": str(manifest), "mirrors": [str(root / "mirror")]}})
    config["datasets"] = [d.config_entry() for d in datasets]
    # The dev check's round trips: of the tiny dev set, as the project's are of 2015 images.
    config["paragram"]["models"]["synthetic-dev"]["pairs"] = ["task-internal-dev", "synthetic-2015-tinydev"]
    tuned = config["encoder"]["tuning"]["models"]
    tuned["minilm-synthetic-dev"]["pairs"] = ["task-internal-dev", "synthetic-2015-tinydev"]
    tuned["minilm-sts-synthetic-dev"]["pairs"] = ["task-internal-dev", "synthetic-2015-tinydev"]
    work = Workspace(root / "work", root / "mirror", manifest, config)
    work.path.mkdir()
    work.write_config()
    return work


@pytest.fixture
def workspace(tmp_path) -> Workspace:
    return make_workspace(tmp_path)


@pytest.fixture
def shared_corpus() -> Path:
    if not (SHARED_CORPUS / "MANIFEST.tsv").is_file():
        message = f"../shared/sts-corpus is absent ({SHARED_CORPUS}); real-corpus checks need it"
        print(message)
        pytest.skip(message)
    return SHARED_CORPUS
