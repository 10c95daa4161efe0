"""workflow/tools/bench.py: job time per rule from a built tree's benchmark files and Snakemake's logs."""

import os
import sys

import pytest

from bench_measure import rule_job_times

LOG = """[Mon Nov 23 16:43:12 2026]
localrule paragram_train:
    output: resources/models/raw.safetensors
    jobid: 3
    benchmark: benchmarks/paragram/train/raw.tsv
[Mon Nov 23 16:43:15 2026]
rule predict:
    jobid: 4
    benchmark: benchmarks/predict/baseline.tsv
rule encoder_similarity_minilm:
    jobid: 5
    benchmark: benchmarks/encoder_similarity/minilm.tsv
localrule report:
    jobid: 6
    benchmark: benchmarks/report.tsv
[Mon Nov 23 16:43:20 2026]
localrule encoder_tune:
    output: resources/models/minilm-sts, resources/models/minilm-sts.epochs.parquet
    jobid: 7
[Mon Nov 23 16:53:20 2026]
Finished jobid: 7 (Rule: encoder_tune)
"""


def test_job_time_is_summed_per_rule_and_named_by_its_rule_file(tmp_path):
    """From each job's benchmark file, or for a rule Snakemake's cache may serve (no benchmark file allowed) from
    its log's timestamps."""
    (tmp_path / ".snakemake/log").mkdir(parents=True)
    (tmp_path / ".snakemake/log/2026-11-23T164311.snakemake.log").write_text(LOG)
    (tmp_path / "workflow/rules").mkdir(parents=True)
    (tmp_path / "workflow/rules/paragram.smk").write_text("rule paragram_train:\n    input: 'x'\n")
    (tmp_path / "workflow/rules/predict.smk").write_text("rule predict:\n    input: 'y'\n")
    # rules made in a loop (`rule:` then `name:`), as encoder.smk and report.smk make theirs
    (tmp_path / "workflow/rules/encoder.smk").write_text(
        "rule encoder_tune:\n    input: 'w'\n\n"
        "for _e in E:\n\n    rule:\n        name:\n            f\"encoder_similarity_{_e}\"\n        input: 'z'\n"
    )
    (tmp_path / "workflow/rules/report.smk").write_text(
        'for _p in P:\n\n    rule:\n        name:\n            "report" if _p == 1 else "studies_report"\n'
    )
    for relative, seconds in [
        ("paragram/train/raw.tsv", 40.5),
        ("predict/baseline.tsv", 2.0),
        ("stale/old.tsv", 9.0),
        ("encoder_similarity/minilm.tsv", 30.0),
        ("report.tsv", 1.0),
    ]:
        path = tmp_path / "benchmarks" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"s\th:m:s\n{seconds}\t0:00:40\n")
    assert rule_job_times(tmp_path) == [
        ("encoder_tune (log times)", "encoder", 1, 600.0),
        ("paragram_train", "paragram", 1, 40.5),
        ("encoder_similarity_minilm", "encoder", 1, 30.0),
        ("(no log entry)", "", 1, 9.0),
        ("predict", "predict", 1, 2.0),
        ("report", "report", 1, 1.0),
    ]


def test_the_protocol_steps_run_makes_command_in_the_copy(tmp_path):
    """Steps sts2017 and eval time `make sts2017` / `make eval` as the Makefile gives them, in the scratch copy:
    the protocol's working directory and overlays of the copy, target all for sts2017."""
    from bench import protocol_command

    args = protocol_command("sts2017", tmp_path, "2")
    assert args[args.index("--directory") + 1] == str(tmp_path / "runs/sts2017")
    assert args[args.index("--snakefile") + 1] == str(tmp_path / "Snakefile")
    assert args[args.index("--cores") + 1] == "2" and "all" in args
    configs = args[args.index("--configfile") + 1 : args.index("--cores")]
    assert configs == [str(tmp_path / "config.yaml"), str(tmp_path / "config/sts2017.yaml")]
    evaluated = protocol_command("eval", tmp_path, "2", "second.yaml")
    assert evaluated[evaluated.index("--directory") + 1] == str(tmp_path / "runs/eval") and "eval" in evaluated
    assert evaluated[evaluated.index("--cores") - 1] == str(tmp_path / "second.yaml")


@pytest.mark.subprocess
def test_a_bench_step_reports_snakemakes_step_count_while_it_runs(tmp_path, monkeypatch, caplog):
    """A cold build is half an hour without a line of its own: the bench logs done/total, rate and time left
    from Snakemake's step count (here a fake Snakemake; a line per step), and keeps the output for the caller."""
    import logging
    import subprocess

    import bench_measure as bench

    script = tmp_path / "fake.py"
    script.write_text(
        "import sys\nprint('Job stats:')\nprint('total        3')\n"
        "for i in (1, 2, 3):\n    print(f'{i} of 3 steps ({i * 33}%) done', file=sys.stderr)\n"
    )
    real_popen = subprocess.Popen
    monkeypatch.setattr(
        bench.subprocess, "Popen", lambda command, **kwargs: real_popen([sys.executable, str(script)], **kwargs)
    )
    monkeypatch.setenv("STSYNTH_PROGRESS_SECONDS", "0")
    with caplog.at_level(logging.INFO, logger="stsynth.bench"):
        seconds, output = bench.snakemake(tmp_path, "--cores", "2", "all", env=dict(os.environ))
        bench.snakemake(tmp_path, "-n", "all", env=dict(os.environ))
    assert "3 of 3 steps" in output and seconds > 0
    messages = [record.getMessage() for record in caplog.records]
    assert messages[0] == f"snakemake in {tmp_path}: 3 steps to do"
    assert any(
        message.startswith(f"snakemake in {tmp_path}: 2/3 steps (67%)") and "left" in message for message in messages
    )
    assert messages[-1].startswith(f"snakemake in {tmp_path}: done, 3/3 steps")
    assert len([m for m in messages if m.endswith("steps to do")]) == 1  # the dry run reports nothing


def test_the_added_dataset_step_puts_the_sts_benchmark_test_set_beside_the_protocol(tmp_path):
    """Step `dataset` marks sts-test's entry of the copy's config/datasets.yaml `role: test` (the documented way to
    add a test set beside a protocol): the 2016 protocol then scores it in a group of its own and reads it nowhere."""
    import shutil

    from bench import ADDED_DATASET, add_beside_protocol
    from conftest import REPO
    from stsynth.pipeline.overlays import resolved_config

    datasets = tmp_path / "datasets.yaml"
    shutil.copy(REPO / "config/datasets.yaml", datasets)
    add_beside_protocol(datasets, ADDED_DATASET)
    assert datasets.read_text().count("role: test") == 1
    config = resolved_config([REPO / "config.yaml"], {"datasets": str(datasets)})
    [added] = [entry for entry in config["datasets"] if entry.get("added")]
    assert (added["name"], added["group"], added["role"]) == ("sts-test", "sts-test", "test")
    with pytest.raises(SystemExit, match="no one-line entry named no-such-set"):
        add_beside_protocol(datasets, "no-such-set")


def test_a_step_counts_the_outputs_from_the_cache_and_the_sentences_its_jobs_encoded(tmp_path):
    import time

    from bench_measure import cache_outputs, sentences_encoded

    output = (
        "Symlinking output file resources/encoder/minilm/2012/MSRpar.parquet from cache.\n"
        "Copying output file resources/models/minilm-sts from cache (OS does not support ...).\n"
        "Moving output file resources/x.parquet to cache.\n"  # a cached rule's job that ran: no hit
        "Symlinking output file resources/x.parquet from cache.\n"
    )
    assert cache_outputs(output) == 2
    logs = tmp_path / "runs/sts2017/logs/encoder_similarity"
    logs.mkdir(parents=True)
    (logs / "minilm.log").write_text(
        "x.parquet: 250 of 250 pairs (every line); 480 sentences encoded, 0 read from the store, in 3.0 s\n"
        "31 datasets: 480 sentences encoded, 20000 read from the embedding store\n"
    )
    (logs / "old.log").write_text("2 datasets: 7 sentences encoded, 0 read from the embedding store\n")
    before = time.time() - 60
    os.utime(logs / "old.log", (before - 60, before - 60))  # a log of an earlier step
    assert sentences_encoded(tmp_path, before) == (480, 20000)
