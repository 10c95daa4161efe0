"""No stale number: an edit of a value that shapes an output reruns exactly the jobs it affects
(shown with `snakemake -n`), and a value that does not shape one (mirrors, timeouts, chunk sizes)
reruns nothing. Config names that point nowhere stop the workflow before any job, naming the key."""

from __future__ import annotations

import hashlib
import re

import pandas as pd
import pytest

BASELINE = "results/scores/baseline.parquet"


def planned_jobs(result) -> dict[str, int]:
    """rule -> job count from a dry run's "Job stats" table ({} when nothing is to be done)."""
    output = result.stdout + result.stderr
    if "Nothing to be done" in output:
        return {}
    table = output.split("Job stats:", 1)[1]
    jobs = {}
    for line in table.splitlines()[3:]:
        match = re.fullmatch(r"(\S+)\s+(\d+)", line.strip())
        if not match or match.group(1) == "total":
            break
        jobs[match.group(1)] = int(match.group(2))
    return jobs


def dry_run(workspace, target=BASELINE):
    return planned_jobs(workspace.snakemake("-n", target))


def dataset_entry(workspace, name):
    return next(d for d in workspace.config["datasets"] if d["name"] == name)


@pytest.mark.workflow
def test_editing_a_dataset_entry_rebuilds_its_table(built_workspace):
    workspace = built_workspace  # BASELINE built (conftest.tiny_baseline)
    dataset_entry(workspace, "tinytest")["scored"] = 5  # wrong: 6 lines are scored
    workspace.write_config()
    assert dry_run(workspace) == {"pair_table": 1, "predict": 1, "score_run": 1}
    result = workspace.snakemake(BASELINE, check=False)
    assert result.returncode != 0  # the count check runs again, as on a clean build
    log = (workspace.path / "logs/pairs/2016/tinytest.log").read_text()
    assert "6 scored pairs, config.yaml expects 5" in log


@pytest.mark.workflow
def test_a_changed_manifest_entry_fetches_the_file_again(built_workspace):
    workspace = built_workspace  # BASELINE built (conftest.tiny_baseline)
    gold = workspace.mirror / "TINY2016/STS.gs.tinytest.txt"
    old_digest = hashlib.sha256(gold.read_bytes()).hexdigest()
    lines = gold.read_text().splitlines()
    lines[0] = "1.000"  # upstream corrects a score
    gold.write_text("\n".join(lines) + "\n")
    workspace.manifest.write_text(
        workspace.manifest.read_text().replace(old_digest, hashlib.sha256(gold.read_bytes()).hexdigest())
    )
    assert dry_run(workspace) == {"fetch_corpus_file": 1, "pair_table": 1, "predict": 1, "score_run": 1}
    workspace.snakemake(BASELINE)
    assert pd.read_parquet(workspace.path / "resources/pairs/2016/tinytest.parquet")["gold"].iat[0] == 1.0


@pytest.mark.workflow
def test_where_a_file_comes_from_reruns_nothing(built_workspace, tmp_path):
    workspace = built_workspace  # BASELINE built (conftest.tiny_baseline)
    second = tmp_path / "second-mirror"
    second.mkdir()
    workspace.write_config(
        {
            "corpus": {"mirrors": [str(second), str(workspace.mirror)], "download_timeout": 5},
            "translate": {"chunk_size": 7},
        }
    )
    assert dry_run(workspace) == {}


@pytest.mark.workflow
def test_a_model_setting_retrains_that_model_only(workspace):
    workspace.write_config(
        {
            "paragram": {
                "defaults": {"vectors": "glove-6b-50d", "unknown": "rare"},
                "presets": {"dev-chosen": {"epochs": 1}},
            }
        }
    )
    target = "results/scores/task-internal.parquet"
    workspace.snakemake(target)
    assert dry_run(workspace, target) == {}
    workspace.config["paragram"]["models"]["task-internal"]["delta"] = 0.4
    workspace.write_config()
    assert dry_run(workspace, target) == {
        "paragram_train": 1,
        "paragram_similarity__2016": 1,
        "predict": 1,
        "score_run": 1,
    }


@pytest.mark.workflow
def test_a_tuning_setting_leaves_the_zero_shot_encoder_alone(workspace):
    target = "results/scores/encoder.parquet"
    workspace.snakemake(target)
    workspace.config["encoder"]["tuning"]["defaults"]["learning_rate"] = 1.0e-4
    workspace.config["encoder"]["tuning"]["models"]["minilm-sts"]["epochs"] = 2
    workspace.write_config()
    assert dry_run(workspace, target) == {}
    workspace.config["encoder"]["batch_size"] = 8
    workspace.write_config()
    assert dry_run(workspace, target) == {"encoder_similarity_minilm__2016": 1, "predict": 1, "score_run": 1}


@pytest.mark.workflow
@pytest.mark.parametrize(
    "edit, expected",
    [
        (lambda c: c["datasets"].append(dict(c["datasets"][0])), "datasets[4]: 2012/tinytrain is declared twice"),
        (
            lambda c: c["paragram"]["models"]["synthetic"]["pairs"].append("synthetik"),
            "paragram.models.synthetic.pairs[2]: 'synthetik' is not a paraphrase pair table",
        ),
        (
            lambda c: c["protocols"]["tiny"].update(dev=[2013]),
            "protocols.tiny.dev[0]: 2013 names no dataset (a year, a group or year/name of datasets)",
        ),
        (
            lambda c: c["protocols"]["tiny"].update(dev=[2015, 2016]),
            "protocols.tiny.test: 2016/tinytest is also in dev; a set is trained on, chosen on or tested on, never "
            "two of these",
        ),
        (
            lambda c: c["runs"]["task-internal"].update(model="no-such-model"),
            "runs.task-internal.model: 'no-such-model' is not a model in paragram.models",
        ),
    ],
)
def test_a_name_that_points_nowhere_stops_before_any_job(workspace, edit, expected):
    edit(workspace.config)
    workspace.write_config()
    result = workspace.snakemake("-n", BASELINE, check=False)
    assert result.returncode != 0 and expected in result.stdout + result.stderr
    assert not (workspace.path / "resources/corpus").exists()
