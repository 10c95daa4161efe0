"""`all` builds the results, `studies` how their settings were chosen, and `--cores` above the
machine's cores never runs more jobs at once than it has cores; checked with dry runs of the real
Snakefile on the tiny corpus."""

from __future__ import annotations

import os
import platform

import pytest

from conftest import project_config
from stsynth.core.threads import NEEDED_FLAGS, cpu_flags, job_slots
from stsynth.pipeline import plan
from stsynth.pipeline.runs import headline_runs, run_comparisons, study_runs
from test_provenance import planned_jobs

STUDY_RULES = {
    "paragram_threshold_sweep",
    "paragram_source_comparison",
    "synthetic_dev_check",
    "encoder_tuning_dev_check",
    "crosslingual_mt_comparison",
    "fusion_ablation",
    "fusion_dev",
    "fusion_dev_table",
    "fusion_decisions",
    "compare_study_runs",
    "seed_study",
    "studies_report",
}
HEADLINE_RULES = {"fusion_fit", "fusion_predict", "score_run", "compare_runs", "report", "paragram_export"}


def tiny_tuning(workspace, tmp_path):
    """The project's runs, with the encoder stage pointed at a tiny model (dry runs only: never loaded);
    the tiny corpus has no PPDB, so the source comparison compares the other two sources."""
    workspace.write_config(
        {
            "encoder": {"models": {"tiny": {"path": str(tmp_path)}}, "default": "tiny"},
            "paragram": {"compare_sources": {"sources": ["glove-6b-50d", "minilm-static"]}},
        }
    )
    (tmp_path / "config.json").write_text("{}")


@pytest.mark.workflow
def test_all_builds_the_headline_runs_and_studies_the_rest(workspace, tmp_path):
    tiny_tuning(workspace, tmp_path)
    all_jobs = planned_jobs(workspace.snakemake("-n", "all"))
    assert HEADLINE_RULES <= set(all_jobs) and not STUDY_RULES & set(all_jobs)
    headline = headline_runs(workspace.config)
    studied = study_runs(workspace.config)
    assert studied == [
        "encoder-task-internal",
        "encoder-synthetic",
        "encoder-sts-synthetic",
        "head-minilm",
        "head-minilm-sts",
    ]
    assert all_jobs["score_run"] == len(headline) == 10
    # the fusions' settings are recorded (config/decisions/<protocol>.yaml): `all` runs no dev search and tunes only the
    # final encoder; `studies` runs the searches, their dev-protocol encoder and the check of the record
    assert all_jobs["encoder_tune"] == 1
    study_jobs = planned_jobs(workspace.snakemake("-n", "studies"))
    seeds = len(workspace.config["seed_study"]["seeds"])  # a seeded fusion searches its own settings
    assert study_jobs["fusion_dev"] == 3 * (1 + seeds) and study_jobs["fusion_decisions"] == 1
    seeded = [run for runs in plan.seed_study_runs(workspace.config).values() for run in runs]
    assert len(seeded) == 7 * 4  # the seed study: seven runs, four seeds besides the headline's
    # and the headline scores its table reads (here unbuilt): the runs it repeats, and those no seed reaches
    read = set(plan.seed_study_runs(workspace.config)) | {
        run for pair in plan.seed_study_pairs(workspace.config) for run in pair
    }
    assert read - set(plan.seed_study_runs(workspace.config)) == {"baseline", "paragram-raw", "encoder"}
    assert STUDY_RULES <= set(study_jobs) and study_jobs["score_run"] == len(studied) + len(seeded) + len(read)
    # the regression head over encoders is a study here (the 2017 protocol, config/sts2017.yaml, heads `all`)
    assert study_jobs["head_fit"] == 2 and "head_fit" not in all_jobs and "head_dev" not in all_jobs
    assert "report" not in study_jobs and "compare_runs" not in study_jobs


@pytest.mark.workflow
def test_studies_reuse_what_all_built(built_workspace):
    """On a tree where `all` is built, `studies` plans only study jobs (baseline-only config, real jobs)."""
    workspace = built_workspace  # the baseline's scores built (conftest.tiny_baseline)
    workspace.keep_runs({"baseline": {"stage": "baseline"}, "baseline-again": {"stage": "baseline", "study": True}})
    workspace.config["scoring"]["compare"] = {"reference": "baseline", "pairs": []}
    workspace.config["crosslingual"]["reference_translation"]["field"] = 5  # no MT comparison (it trains models)
    workspace.write_config()
    workspace.snakemake("all")
    report = (workspace.path / "results/report.md").read_text()
    assert "baseline-again" not in report and "`make studies`" in report
    # the report job inherited the kernel pins (config `kernels: x86-64-v3`, stsynth.core.threads) where they apply
    if NEEDED_FLAGS <= cpu_flags() and platform.machine() == "x86_64":
        assert "| kernels | ATEN_CPU_CAPABILITY=avx2, MKL_CBWR=AVX2, " in report and "torch uses AVX2 |" in report
    assert planned_jobs(workspace.snakemake("-n", "studies")) == {
        "predict": 1,
        "score_run": 1,
        "compare_study_runs": 1,
        "studies_report": 1,
        "studies": 1,
    }
    workspace.snakemake("studies")
    studies = (workspace.path / "results/studies.md").read_text()
    assert studies.startswith("# stsynth studies") and "**baseline-again**" in studies
    assert "| baseline-again | baseline |" in studies  # its paired comparison
    assert planned_jobs(workspace.snakemake("-n", "all")) == {}  # studies touch nothing `all` reads


def test_job_slots_never_exceed_the_usable_cores():
    assert job_slots(8, 2) == 2
    assert job_slots(2, 16) == 2
    assert job_slots(0, 4) == 1


@pytest.mark.workflow
def test_cores_beyond_the_machine_are_capped_and_said(workspace):
    usable = len(os.sched_getaffinity(0))
    result = workspace.snakemake("--cores", str(usable + 6), "results/scores/baseline.parquet")
    output = result.stdout + result.stderr
    assert f"--cores {usable + 6} on a machine with {usable} usable cores" in output
    assert f"Provided cores: {usable}\n" in output  # what the scheduler then works with
    same = workspace.snakemake("-n", "--cores", str(usable), "results/scores/baseline.parquet")
    assert "usable cores" not in same.stdout + same.stderr


def test_the_project_config_splits_runs_as_documented():
    config = project_config()
    assert "encoder-sts" in headline_runs(config) and "fusion-tuned" in headline_runs(config)
    assert run_comparisons(config, study=False) and all(
        set(pair) <= set(headline_runs(config)) for pair in run_comparisons(config, study=False)
    )
    assert sorted(map(tuple, run_comparisons(config, study=False) + run_comparisons(config, study=True))) == sorted(
        map(tuple, run_comparisons(config))
    )
