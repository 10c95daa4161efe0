"""End-to-end: the real Snakefile on the tiny fixture corpus, and the baseline on the real corpus."""

import subprocess
import sys

import pandas as pd
import pytest
import yaml

from conftest import REPO, declared_project_config, run_snakemake

OFFICIAL_BASELINE_2016 = {
    "answer-answer": 0.41133,
    "headlines": 0.54073,
    "plagiarism": 0.69601,
    "postediting": 0.82615,
    "question-question": 0.03844,
    "ALL": 0.51334,
}


@pytest.mark.workflow
def test_baseline_on_tiny_corpus(workspace):
    workspace.snakemake("results/scores/baseline.parquet")
    work = workspace.path
    scores = pd.read_parquet(work / "results/scores/baseline.parquet")
    assert set(scores["dataset"]) == {"tinytest", "tinynews", "ALL", "ALL (mean)", "ALL (pooled)"}
    tinytest = scores.set_index("dataset").loc["tinytest"]
    assert tinytest["pairs"] == 6  # 9 lines, every third gold line blank
    predictions = (work / "results/predictions/baseline/2016/tinytest.txt").read_text().splitlines()
    assert len(predictions) == 9  # unscored lines still get a prediction
    pairs = pd.read_parquet(work / "resources/pairs/2016/tinynews.parquet")
    assert pairs["s1"].iloc[0] == "Un hombre está tocando la guitarra." and "note" not in pairs["s2"].iloc[0]
    assert "read 5 lines, 5 scored, 0 unscored" in (work / "logs/pairs/2016/tinynews.log").read_text()
    for rule in ("pairs/2016/tinytest", "predict/baseline", "scores/baseline"):
        assert (work / "benchmarks" / f"{rule}.tsv").is_file()
    # Nothing to do the second time.
    assert "Nothing to be done" in workspace.snakemake("results/scores/baseline.parquet").stderr


@pytest.mark.workflow
def test_tampered_mirror_file_fails_naming_what_was_tried(workspace):
    (workspace.mirror / "TINY2016/STS.gs.tinytest.txt").write_text("4\n" * 9)
    result = workspace.snakemake("resources/pairs/2016/tinytest.parquet", check=False)
    assert result.returncode != 0
    log = (workspace.path / "logs/corpus/TINY2016/STS.gs.tinytest.txt.log").read_text()
    assert "could not fetch TINY2016/STS.gs.tinytest.txt" in log and "sha256" in log and "127.0.0.1:9" in log
    assert not (workspace.path / "resources/corpus/TINY2016/STS.gs.tinytest.txt").exists()


@pytest.mark.workflow
def test_mirror_list_can_come_from_the_environment(workspace, tmp_path):
    moved = tmp_path / "elsewhere"
    workspace.mirror.rename(moved)
    workspace.snakemake("resources/pairs/2016/tinytest.parquet", env={"STSYNTH_MIRRORS": str(moved)})


@pytest.mark.workflow
def test_bad_gold_line_stops_the_run_naming_file_and_line(workspace):
    gold = workspace.mirror / "TINY2012/STS.gs.tinytrain.txt"
    lines = gold.read_text().splitlines()
    lines[4] = "about four"
    gold.write_text("\n".join(lines) + "\n")
    import hashlib

    manifest = workspace.manifest.read_text().replace(
        [row for row in workspace.manifest.read_text().splitlines() if "STS.gs.tinytrain" in row][0].split("\t")[1],
        hashlib.sha256(gold.read_bytes()).hexdigest(),
    )
    workspace.manifest.write_text(manifest)
    result = workspace.snakemake("resources/pairs/2012/tinytrain.parquet", check=False)
    assert result.returncode != 0
    log = (workspace.path / "logs/pairs/2012/tinytrain.log").read_text()
    assert "STS.gs.tinytrain.txt:5: gold score 'about four' is not a number" in log


@pytest.mark.workflow
def test_official_baseline_reproduced_on_real_corpus(shared_corpus, tmp_path):
    config = declared_project_config()
    config["corpus"]["mirrors"] = [str(shared_corpus)]
    config["corpus"]["manifest"] = str(REPO / config["corpus"]["manifest"])
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    run_snakemake(tmp_path, "results/scores/baseline.parquet")
    scores = pd.read_parquet(tmp_path / "results/scores/baseline.parquet")
    english = scores[(scores["track"] == "en") & (scores["year"] == 2016)].set_index("dataset")["pearson"]
    official = {name: round(value, 5) for name, value in english.items() if name not in ("ALL (mean)", "ALL (pooled)")}
    assert official == OFFICIAL_BASELINE_2016


def test_the_readable_test_corpus_is_what_the_tests_build():
    """`.test/` (corpus, manifest, overlay) and TinyDataset, which builds variants of it, agree byte for byte."""
    import hashlib

    from conftest import TEST_CONFIG, TINY_DATASETS

    for dataset in TINY_DATASETS:
        for relpath, content in dataset.files().items():
            assert (TEST_CONFIG / "corpus" / relpath).read_bytes() == content, relpath
    overlay = yaml.safe_load((TEST_CONFIG / "config.yaml").read_text())
    assert overlay["datasets"] == [d.config_entry() for d in TINY_DATASETS]
    rows = [line.split("\t") for line in (TEST_CONFIG / "manifest.tsv").read_text().splitlines()[1:]]
    assert {relpath for relpath, *_ in rows} == {r for d in TINY_DATASETS for r in d.files()}
    for relpath, sha256, size, _ in rows:
        content = (TEST_CONFIG / "corpus" / relpath).read_bytes()
        assert hashlib.sha256(content).hexdigest() == sha256 and len(content) == int(size), relpath
    assert (
        b"\r\n" in (TEST_CONFIG / "corpus/TINY2016/STS.input.tinynews.txt").read_bytes()
    )  # CRLF kept (.gitattributes)


@pytest.mark.subprocess
def test_the_test_overlay_runs_as_the_readme_says():
    """`.test/config.yaml` over config.yaml plans `all` from the checkout, as its first lines say."""
    import tempfile

    with tempfile.TemporaryDirectory() as work:
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "snakemake",
                "--snakefile",
                str(REPO / "Snakefile"),
                "--directory",
                work,
                "-n",
                "all",
                "--configfile",
                str(REPO / "config.yaml"),
                str(REPO / ".test/config.yaml"),
            ],
            capture_output=True,
            text=True,
            cwd=REPO,
        )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "pair_table" in result.stdout and "tinynews" in result.stdout
