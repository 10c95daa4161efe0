"""workflow/bench.py: job time per rule from a built tree's benchmark files and Snakemake's logs."""
import sys

from conftest import REPO

sys.path.insert(0, str(REPO / "workflow"))
from bench import rule_job_times  # noqa: E402

LOG = """[Mon Nov 23 16:43:12 2026]
localrule paragram_train:
    output: resources/models/raw.safetensors
    jobid: 3
    benchmark: benchmarks/paragram/train/raw.tsv
[Mon Nov 23 16:43:15 2026]
rule predict:
    jobid: 4
    benchmark: benchmarks/predict/baseline.tsv
"""


def test_job_time_is_summed_per_rule_and_named_by_its_rule_file(tmp_path):
    (tmp_path / ".snakemake/log").mkdir(parents=True)
    (tmp_path / ".snakemake/log/2026-11-23T164311.snakemake.log").write_text(LOG)
    (tmp_path / "workflow/rules").mkdir(parents=True)
    (tmp_path / "workflow/rules/paragram.smk").write_text("rule paragram_train:\n    input: 'x'\n")
    (tmp_path / "workflow/rules/predict.smk").write_text("rule predict:\n    input: 'y'\n")
    for relative, seconds in [("paragram/train/raw.tsv", 40.5), ("predict/baseline.tsv", 2.0),
                              ("stale/old.tsv", 9.0)]:
        path = tmp_path / "benchmarks" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"s\th:m:s\n{seconds}\t0:00:40\n")
    assert rule_job_times(tmp_path) == [("paragram_train", "paragram", 1, 40.5), ("(no log entry)", "", 1, 9.0),
                                        ("predict", "predict", 1, 2.0)]
