"""The results report (stsynth.results.report, rule report): every section from tables in their documented
schemas, the plan's wiring of absent stages, and the real rule + `snakemake --report` on the tiny corpus."""

from __future__ import annotations

import logging
import re

import numpy as np
import pandas as pd
import pytest

from conftest import REPO, project_config
from stsynth.core.scoring import write_predictions
from stsynth.pipeline.protocol import protocol_words
from stsynth.results.provenance import logged_times, stage_times, wall_time_section
from stsynth.results.report import build_report
from stsynth.results.report_plan import plan_files, report_plan, seeds

LOG = logging.getLogger("test_report")
SETTINGS = project_config()["report"]
TEST_SETS = [("answer-answer", "en", 30), ("headlines", "en", 25), ("news", "es-en", 20)]


def scores_table(run: str, pearsons: dict[str, float]) -> pd.DataFrame:
    """A scores table in stsynth.core.scoring's schema (Spearman = Pearson - 0.01; mean and pooled ALL
    made-up values of their own, so a section showing the wrong one is caught)."""
    rows = [(run, track, "2016", 2016, name, n, pearsons[name]) for name, track, n in TEST_SETS]
    en = [r for r in rows if r[1] == "en"]
    official = sum(r[5] * r[6] for r in en) / sum(r[5] for r in en)
    rows += [
        (run, "en", "2016", 2016, "ALL", 55, official),
        (run, "en", "2016", 2016, "ALL (mean)", 55, 0.111),
        (run, "en", "2016", 2016, "ALL (pooled)", 55, 0.222),
        (run, "es-en", "2016", 2016, "ALL", 20, pearsons["news"]),
        (run, "es-en", "2016", 2016, "ALL (mean)", 20, pearsons["news"]),
        (run, "es-en", "2016", 2016, "ALL (pooled)", 20, pearsons["news"]),
    ]
    table = pd.DataFrame(rows, columns=["run", "track", "group", "year", "dataset", "pairs", "pearson"])
    official_rows = table["dataset"] == "ALL"
    return table.assign(
        spearman=table["pearson"] - 0.01,
        undefined=0,
        pearson_ci_low=np.where(official_rows, table["pearson"] - 0.05, np.nan),
        pearson_ci_high=np.where(official_rows, table["pearson"] + 0.05, np.nan),
        spearman_ci_low=np.where(official_rows, table["pearson"] - 0.07, np.nan),
        spearman_ci_high=np.where(official_rows, table["pearson"] + 0.03, np.nan),
    )


@pytest.fixture
def study(tmp_path):
    """Every table the report can read, in the schemas their modules document, and a full plan."""
    rng = np.random.default_rng(0)
    files = {}

    def put(name, table):
        files[name] = str(tmp_path / f"{name}.parquet")
        table.to_parquet(files[name], index=False)
        return files[name]

    test_sets, predictions = [], {"baseline": [], "task-internal": []}
    for name, track, n in TEST_SETS:
        gold = pd.Series(np.round(rng.uniform(0, 5, n), 1))
        gold[::7] = np.nan  # unscored lines
        test_sets.append(
            {"year": 2016, "dataset": name, "track": track, "pairs": put(f"pairs-{name}", pd.DataFrame({"gold": gold}))}
        )
        for run in predictions:
            path = tmp_path / run / f"{name}.txt"
            write_predictions(gold.fillna(2.5).to_numpy() + rng.normal(0, 1, n), path)
            predictions[run].append(str(path))
    plan = {
        "part": "results",
        "protocol": protocol_words(project_config()),
        "studies": ["Gold-threshold sweep", "Feature-group ablation of the fusion runs"],
        "runs": ["baseline", "task-internal", "fusion"],
        "scores": {
            "baseline": put(
                "s-baseline", scores_table("baseline", {"answer-answer": 0.41, "headlines": 0.54, "news": 0.49})
            ),
            "task-internal": put(
                "s-ti", scores_table("task-internal", {"answer-answer": 0.5, "headlines": 0.7, "news": 0.8})
            ),
            "fusion": put("s-fusion", scores_table("fusion", {"answer-answer": 0.6, "headlines": 0.75, "news": 0.82})),
        },
        "test_sets": test_sets,
        "predictions": predictions,
        "input_sets": [
            {
                "year": 2016,
                "dataset": "answer-answer",
                "track": "en",
                "pairs": put(
                    "input-aa",
                    pd.DataFrame(
                        {"s1": ["A b.", " ", "C d."], "s2": ["E f.", "G h.", "\u00a0"], "gold": [1.0, 2.0, np.nan]}
                    ),
                ),
            }
        ],
        "paper_systems": {"task-internal": "task-internal", "fusion": "fusion"},
        "dev_table": put(
            "dev_table",
            pd.DataFrame(
                {
                    "system": ["features", "features + paragram"],
                    "pearson_2015_images": [0.80, 0.84],
                    "pearson_ALL": [0.75, 0.78],
                }
            ),
        ),
        "fusion_recorded": {},
        "decisions": None,
        "fusion_dev": {
            "fusion": put(
                "fusion_dev",
                pd.DataFrame(
                    {
                        "init": ["", "encoder_token_f1"],
                        "max_depth": [3, 4],
                        "learning_rate": [0.1, 0.05],
                        "subsample": [0.8, 0.8],
                        "n_estimators": [100, 325],
                        "pearson_2015_images": [0.8, 0.81],
                        "pearson_ALL": [0.7, 0.72],
                        "chosen": [False, True],
                    }
                ),
            )
        },
        "importances": {
            "fusion": put(
                "importances",
                pd.DataFrame(
                    {
                        "feature": ["paraphrase_task_internal", "ngram_word_1", "length_difference"],
                        "group": ["paragram", "ngrams", "length"],
                        "importance": [0.6, 0.3, 0.1],
                    }
                ),
            )
        },
        "ablation": {
            "fusion": put(
                "ablation",
                pd.DataFrame(
                    {
                        "removed": ["none", "paragram"],
                        "features": [3, 2],
                        "dev_ALL": [0.72, 0.65],
                        "test_en_ALL": [0.70, 0.62],
                        "test_es-en_ALL": [0.80, 0.7],
                    }
                ),
            )
        },
        "unknown_words": {
            "task-internal": put(
                "unknown",
                pd.DataFrame(
                    {
                        "year": [2016, 2016],
                        "dataset": ["answer-answer", "headlines"],
                        "tokens": [500, 400],
                        "unknown": [5, 40],
                        "percent": [1.0, 10.0],
                    }
                ),
            )
        },
        "threshold_sweep": put(
            "sweep",
            pd.DataFrame(
                {
                    "threshold": [3.0, 3.5, 4.0],
                    "pairs": [900, 700, 400],
                    "dev_2015_images": [0.7, 0.72, 0.71],
                    "dev_ALL": [0.66, 0.69, 0.68],
                }
            ),
        ),
        "epochs": {
            "task-internal-dev": put(
                "epochs",
                pd.DataFrame(
                    {
                        "epoch": [0, 1, 2],
                        "loss": [np.nan, 0.5, 0.3],
                        "seconds": [0, 10, 10],
                        "pairs": [700, 700, 700],
                        "dev_2015_images": [0.6, 0.7, 0.72],
                        "dev_ALL": [0.6, 0.68, 0.7],
                    }
                ),
            )
        },
        "sources": put(
            "sources",
            pd.DataFrame(
                {
                    "source": ["glove-6b-50d"] * 2,
                    "variant": ["mean"] * 2,
                    "split": ["dev", "test"],
                    "dataset": ["ALL", "ALL"],
                    "pairs": [100, 200],
                    "pearson": [0.5, 0.45],
                }
            ),
        ),
        "language": None,
        "vectors": {},
        "waiting": [],
        "comparisons": put(
            "comparisons",
            pd.DataFrame(
                {
                    "run": ["fusion", "baseline"],
                    "against": ["task-internal"] * 2,
                    "metric": ["pearson", "spearman"],
                    "track": ["en"] * 2,
                    "group": ["2016"] * 2,
                    "pairs": [55, 55],
                    "all_run": [0.68, 0.48],
                    "all_against": [0.61, 0.61],
                    "difference": [0.07, -0.13],
                    "ci_low": [0.03, -0.2],
                    "ci_high": [0.11, -0.06],
                    "p_value": [0.0004, 0.0],
                    "significant": [True, True],
                }
            ),
        ),
        "dev_check": put(
            "dev_check",
            pd.DataFrame(
                {
                    "model": ["task-internal-dev"] * 2 + ["synthetic-dev"] * 2,
                    "epoch": [0, 10, 0, 10],
                    "dev": ["2015_images"] * 4,
                    "pearson": [0.8428, 0.8724, 0.8428, 0.7944],
                }
            ),
        ),
        "encoder_dev_check": put(
            "encoder_dev_check",
            pd.DataFrame(
                {
                    "model": ["minilm-sts-dev"] * 3,
                    "epoch": [0, 1, 0],
                    "dev": ["2015_images", "2015_images", "ALL"],
                    "pearson": [0.81, 0.86, 0.80],
                }
            ).iloc[[0, 1]],
        ),
        "mt_comparison": put(
            "mt_comparison",
            pd.DataFrame(
                {
                    "run": ["synthetic"] * 2,
                    "translation": ["backend:apertium", "field 3 of the input file"],
                    "year": [2016, 2016],
                    "dataset": ["ALL", "ALL"],
                    "pairs": [595, 595],
                    "pearson": [0.82845, 0.86415],
                }
            ),
        ),
        "seed_study": put(
            "seed_study",
            pd.DataFrame(
                {
                    "run": ["fusion"] * 2,
                    "track": ["en"] * 2,
                    "group": ["2016"] * 2,
                    "dataset": ["headlines", "ALL"],
                    "seeds": [5, 5],
                    "headline": [0.75, 0.7665],
                    "mean": [0.74, 0.7667],
                    "sd": [0.012, 0.0022],
                    "min": [0.73, 0.7634],
                    "max": [0.76, 0.7694],
                }
            ).astype({"seeds": "int32"}),
        ),
        "seed_study_signs": put(
            "seed_signs",
            pd.DataFrame(
                {
                    "run": ["fusion"],
                    "against": ["task-internal"],
                    "track": ["en"],
                    "group": ["2016"],
                    "seeds": [5],
                    "mean": [0.0317],
                    "min": [0.0264],
                    "max": [0.0341],
                    "same_sign": [True],
                }
            ),
        ),
    }
    return plan, tmp_path


@pytest.mark.subprocess
def test_every_section_from_documented_schemas(study):
    plan, tmp_path = study
    benchmarks = tmp_path / "benchmarks"
    (benchmarks / "scores").mkdir(parents=True)
    (benchmarks / "scores" / "fusion.tsv").write_text("s\th:m:s\tmax_rss\tcpu_time\n12.5\t0:00:12\t100\t3.5\n")
    markdown = build_report(
        plan,
        SETTINGS,
        tmp_path / "out" / "report",
        link_prefix="report",
        requirements="pandas==0.0.1\nno-such-package-xyz==1.0\n",
        translate=None,
        seed_values=[("fusion.seed", 1)],
        benchmark_dir=benchmarks,
        benchmark_patterns=[("score_run", "benchmarks/scores/{run}.tsv")],
        basedir=str(REPO),
        threshold=3.8,
        log=LOG,
    )
    assert (
        "## Synthetic pairs on the dev protocol" in markdown
        and "| synthetic-dev | 2015_images | 0.8428 | 0.7944 |" in markdown
    )
    assert "## Fine-tuned encoders on the dev protocol (2015)" in markdown
    assert (
        "Table 1 analog: dev protocol on the 2015 sets (Pearson r)\n\nTrained on 2012–2014 only, scored on the "
        "2015 sets (2016 never chooses anything)" in markdown
    )
    assert "| minilm-sts-dev | 2015_images | 0.8100 | 0.8600 |" in markdown
    assert "## Cross-lingual scores by translation of s1" in markdown
    assert "2 blank sentences in all" in markdown and "| 2016/answer-answer | 3 | 2 | 1 | 1 | 1 |" in markdown
    assert "| synthetic | field 3 of the input file | 2016 | ALL | 595 | 0.8641 |" in markdown
    assert "## Training spread (seed study)" in markdown
    assert "| `fusion` | en | 2016 | 5 | 0.7665 | 0.7667 ± 0.0022 | 0.7634 – 0.7694 | 0.0120 |" in markdown
    assert "| `fusion` − `task-internal` | en | 2016 | 5 | +0.0317 | +0.0264 – +0.0341 | yes |" in markdown
    # Provenance comes first.
    assert markdown.index("## Provenance") < markdown.index("## STS 2016 English")
    assert "| score_run | 1 | 12.5 | 12.5 | 3.5 |" in markdown
    assert "| no-such-package-xyz | 1.0 | **not installed** |" in markdown
    assert "`fusion.seed` = 1" in markdown and "CPU cores" in markdown and "GPU" in markdown
    assert "| CPU | " in markdown and "| kernels | " in markdown
    # Ours next to the paper's, the shared task's best/median and the organizers' baseline.
    fusion_row = next(line for line in markdown.splitlines() if line.startswith("| **fusion** |"))
    fusion_all = (30 * 0.6 + 25 * 0.75) / 55
    assert f"{fusion_all:.4f} | 0.717 | {fusion_all - 0.717:+.4f} |" in fusion_row
    assert "| 2016 best (per column, any team) | 0.692 | 0.827 |" in markdown
    assert "| 2016 median (on-time runs, per column) | 0.48018 | 0.76439 | 0.68923 |" in markdown
    assert "| organizers' baseline (official) | 0.41133 | 0.54073 | 0.51334 |" in markdown
    assert "| paper: cross-lingual run2 | — | 0.846 |" in markdown
    # Every convention, with the official ALL's interval, and which differences are significant.
    assert (
        f"| **fusion** | en | 2016 | {fusion_all:.4f} | [{fusion_all - 0.05:.4f}, {fusion_all + 0.05:.4f}] | "
        f"{fusion_all - 0.01:.4f} | [{fusion_all - 0.07:.4f}, {fusion_all + 0.03:.4f}] | "
        "0.1110 | 0.1010 | 0.2220 | 0.2120 |"
    ) in markdown
    assert (
        "| fusion | task-internal | pearson | en | 2016 | +0.0700 | [+0.0300, +0.1100] | < 0.001 | **yes** |"
        in markdown
    )
    assert "2 of 2 differences have an interval that excludes 0" in markdown
    for heading in [
        "Table 1 analog",
        "hyperparameters chosen",
        "Table 4 analog",
        "ablation",
        "Table 5 analog",
        "threshold sweep",
        "Training curves",
        "Word-vector sources",
        "Predicted vs gold",
    ]:
        assert heading.lower() in markdown.lower(), heading
    assert "| 4 | 0.05 | 0.8 | 325 | 0.7200 | 2 |" in markdown
    assert "| 2016/headlines | 400 | 10.00 |" in markdown
    assert "| paragram | 0.6000 |" in markdown
    assert "0.7000 (epoch 2)" in markdown
    assert "Not in this report yet" not in markdown
    assert markdown.startswith("# stsynth results\n\nBuilt by `snakemake all`")
    assert (
        "`make studies` (`snakemake studies`) builds them into `results/studies.md`:\n\n- Gold-threshold sweep\n"
        "- Feature-group ablation of the fusion runs\n"
    ) in markdown
    # Every plot is written and linked.
    links = re.findall(r"!\[[^]]*\]\((report/[^)]+\.png)\)", markdown)
    assert sorted(links) == sorted(
        f"report/{name}.png"
        for name in [
            "scatter-baseline",
            "scatter-task-internal",
            "importances-fusion",
            "threshold-sweep",
            "training-curves",
        ]
    )
    for link in links:
        assert (tmp_path / "out" / link).stat().st_size > 5000


def test_plan_wires_what_the_config_declares_and_lists_the_rest():
    project = project_config()
    config = {
        **project,
        "runs": {"baseline": {"stage": "baseline"}},
        "seed_study": {"seeds": [2], "runs": []},
        "datasets": [d for d in project["datasets"] if d["track"] == "en"],
    }  # no es-en: no language table
    tests = [{"year": 2016, "dataset": "news", "track": "es-en", "pairs": "resources/pairs/2016/news.parquet"}]
    nothing = report_plan(config, tests)
    assert nothing["scores"] == {"baseline": "results/scores/baseline.parquet"}
    assert nothing["predictions"] == {"baseline": ["results/predictions/baseline/2016/news.txt"]}
    assert [item.split(":")[0] for item in nothing["waiting"]] == [
        "Which differences are significant",
        "Language identification",
        "Table 4 analog (Gini importances) and ablation",
        "Table 5 analog (% unknown words)",
    ]
    assert nothing["studies"] == [] and nothing["epochs"] == {} and nothing["vectors"] == {}
    assert plan_files(nothing) == {
        "scores": ["results/scores/baseline.parquet"],
        "pairs": ["resources/pairs/2016/news.parquet"],
        "predictions": ["results/predictions/baseline/2016/news.txt"],
    }
    nothing_studied = report_plan(config, tests, part="studies")
    assert nothing_studied["scores"] == {} and nothing_studied["predictions"] == {}
    assert len(nothing_studied["waiting"]) == 8  # comparisons, Table 1, sweep, sources, 2 dev checks, MT, seeds
    assert "Training spread (seed study): needs runs and seeds in `seed_study`" in nothing_studied["waiting"]
    with pytest.raises(ValueError, match="report part 'other' is not one of results, studies"):
        report_plan(config, tests, part="other")

    config = project
    config["runs"] = {
        "baseline": {"stage": "baseline"},
        "task-internal": {"stage": "paragram", "model": "task-internal"},
        "synthetic": {"stage": "paragram", "model": "synthetic"},
        "fusion": {"stage": "fusion", "groups": ["paragram"]},
        "encoder-sts": {"stage": "encoder", "model": "minilm-sts"},
        "encoder-task-internal": {"stage": "encoder", "model": "minilm-task-internal", "study": True},
    }
    config["seed_study"]["runs"] = ["synthetic", "fusion"]
    config["fusion"].setdefault("dev_table", {})["run"] = "fusion"
    config.setdefault("features", {})["vectors"] = "glove-6b-50d"
    models = {
        model: {"vectors": "minilm-static"}
        for model in ("task-internal", "task-internal-dev", "synthetic", "synthetic-dev")
    }
    results = report_plan(config, tests, models.__getitem__)
    assert results["waiting"] == [] and "encoder-task-internal" not in results["scores"]
    assert results["importances"] == {"fusion": "results/fusion/fusion/importances.parquet"}
    assert results["unknown_words"] == {
        run: f"results/paragram/{run}/unknown_words.parquet" for run in ("task-internal", "synthetic")
    }
    assert list(results["epochs"]) == ["task-internal", "synthetic"]  # `all` trains no dev-protocol model
    assert results["comparisons"] == "results/scores/comparisons.parquet"  # headline runs against task-internal
    # the studies are named, not read
    assert all(
        results[key] is None
        for key in (
            "dev_table",
            "threshold_sweep",
            "sources",
            "dev_check",
            "encoder_dev_check",
            "mt_comparison",
            "seed_study",
        )
    )
    assert results["ablation"] == {} and len(results["studies"]) == 8
    assert results["vectors"] == {
        "glove-6b-50d": "resources/vectors/glove-6b-50d.parquet",
        "minilm-static": "resources/vectors/minilm-static.parquet",
    }
    studies = report_plan(config, tests, models.__getitem__, part="studies")
    assert studies["waiting"] == [] and studies["studies"] == []
    # the seed study's runs are read by its own table, not listed among the study runs
    assert studies["scores"] == {"encoder-task-internal": "results/scores/encoder-task-internal.parquet"}
    assert studies["seed_study"] == "results/seed_study/spread.parquet"
    assert studies["seed_study_signs"] == "results/seed_study/signs.parquet"
    assert "results/seed_study/signs.parquet" in plan_files(studies)["studies"]
    assert studies["comparisons"] == "results/scores/study_comparisons.parquet"
    assert studies["dev_check"] == "results/synthetic/dev_check.parquet"
    assert studies["encoder_dev_check"] == "results/encoder_tuning/dev_check.parquet"
    assert studies["mt_comparison"] == "results/crosslingual/mt_comparison.parquet"
    assert studies["threshold_sweep"] == "results/paragram/threshold_sweep.parquet"
    assert studies["ablation"] == {"fusion": "results/fusion/fusion/ablation.parquet"}
    assert studies["importances"] == {} and studies["language"] is None
    assert list(studies["epochs"]) == ["task-internal-dev", "synthetic-dev"]  # the dev protocol's curves
    with pytest.raises(ValueError, match="report.training_curves names 'task-internal-dev'"):
        report_plan(config, tests, {"task-internal": {"vectors": "x"}}.__getitem__)


def test_seeds_are_found_anywhere_in_the_config():
    assert seeds({"a": {"seed": 1, "b": [{"seed": 2}]}, "seed": 3}) == [("a.seed", 1), ("a.b[0].seed", 2), ("seed", 3)]


def test_stage_times_match_benchmarks_to_rules(tmp_path):
    header = "s\th:m:s\tmax_rss\tcpu_time\n"
    for relative, seconds in [
        ("predict/baseline/2016/news.tsv", 2.0),
        ("predict/baseline/2016/headlines.tsv", 3.0),
        ("predict/other/2016/news.tsv", 7.0),
        ("stale/old.tsv", 9.0),
    ]:
        path = tmp_path / "benchmarks" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(header + f"{seconds}\t0:00:0{int(seconds)}\t1\t1.0\n")
    times = stage_times(
        tmp_path / "benchmarks",
        [
            ("baseline_predict", "benchmarks/predict/{run,baseline}/{year}/{dataset}.tsv"),
            ("paragram_predict", "benchmarks/predict/{run,other}/{year}/{dataset}.tsv"),
        ],
    )
    assert times.to_dict("records") == [
        {"rule": "paragram_predict", "jobs": 1, "wall_s": 7.0, "max_wall_s": 7.0, "cpu_s": 1.0},
        {"rule": "baseline_predict", "jobs": 2, "wall_s": 5.0, "max_wall_s": 3.0, "cpu_s": 2.0},
    ]


CACHED_RULE_LOG = """\
[Mon Nov 23 16:43:11 2026]
localrule paragram_train:
    output: resources/models/raw.safetensors
    jobid: 3
[Mon Nov 23 16:43:51 2026]
Finished jobid: 3 (Rule: paragram_train)
[Mon Nov 23 16:43:51 2026]
localrule predict:
    output: results/predictions/baseline
    benchmark: benchmarks/predict/baseline.tsv
    jobid: 4
[Mon Nov 23 16:43:53 2026]
Finished jobid: 4 (Rule: predict)
"""


def test_the_wall_time_section_adds_the_cached_rules_job_times_from_the_log(tmp_path):
    """The rules the between-workflow cache serves have no benchmark file: their job times come from Snakemake's
    log, named as such, and count in the total; a rule with a benchmark file is read from that file only."""
    (tmp_path / ".snakemake/log").mkdir(parents=True)
    (tmp_path / ".snakemake/log/2026-11-23T164311.snakemake.log").write_text(CACHED_RULE_LOG)
    cached = logged_times(tmp_path, ["paragram_train", "encoder_tune"])
    assert cached.drop(columns="cpu_s").to_dict("records") == [
        {"rule": "paragram_train", "jobs": 1, "wall_s": 40.0, "max_wall_s": 40.0}
    ]
    assert cached["cpu_s"].isna().all()  # the log has no CPU time
    times = pd.DataFrame([{"rule": "predict", "jobs": 1, "wall_s": 2.0, "max_wall_s": 2.0, "cpu_s": 1.5}])
    section = wall_time_section(times, cached)
    assert "for the cached rules (`paragram_train`: Snakemake's between-workflow cache serves them" in section
    assert ": 2 rules, 2 jobs, 0.7 min of job wall time in total" in section
    rows = [
        line for line in section.splitlines() if line.startswith("| paragram_train") or line.startswith("| predict")
    ]
    assert rows == ["| paragram_train (log) | 1 | 40.0 | 40.0 | – |", "| predict | 1 | 2.0 | 2.0 | 1.5 |"]


@pytest.mark.workflow
def test_report_rule_and_html_report_on_tiny_corpus(built_workspace):
    workspace = built_workspace  # the baseline's scores built (conftest.tiny_baseline)
    workspace.keep_runs({"baseline": {"stage": "baseline"}})
    workspace.write_config()
    workspace.snakemake("results/report.md")
    work = workspace.path
    markdown = (work / "results/report.md").read_text()
    assert "| **baseline** |" in markdown and "tinytest" in markdown and "tinynews" in markdown
    assert "![baseline: predicted vs gold](report/scatter-baseline.png)" in markdown
    assert (work / "results/report/scatter-baseline.png").stat().st_size > 5000
    assert "| predict | 1 |" in markdown  # wall time from this run's own benchmark files
    assert "Table 4 analog" in markdown.split("## Not in this report yet")[1]
    workspace.snakemake("--report", "results/report.html")
    html = (work / "results/report.html").read_text()
    assert "report.md" in html and "scatter-baseline.png" in html


def test_the_baselines_spanish_english_figures_say_the_spanish_side_was_not_translated():
    """The organizers' baseline compares s1 (Spanish) with s2 as given: its scores table and the report say so."""
    from stsynth.core.scoring import UNTRANSLATED_NOTE, scores_markdown
    from stsynth.results.report_sections import scores_section

    row = {"run": "baseline", "track": "es-en", "group": "2016", "year": 2016, "dataset": "news", "pairs": 3}
    row |= {"pearson": 0.09, "spearman": 0.1, "undefined": 0}
    row |= {f"{m}_ci_{end}": 0.0 for m in ("pearson", "spearman") for end in ("low", "high")}
    scores = pd.DataFrame([row, {**row, "dataset": "ALL"}])
    assert UNTRANSLATED_NOTE in scores_markdown(scores, untranslated=True)
    assert UNTRANSLATED_NOTE not in scores_markdown(scores)
    test_sets = [{"year": 2016, "dataset": "news", "track": "es-en", "pairs": "p"}]
    test_sets.append({"year": 2016, "dataset": "multisource", "track": "es-en", "pairs": "q"})
    report = scores_section({"baseline": scores}, {}, test_sets, ["baseline"])
    assert "| **baseline** (s1 untranslated) |" in report


@pytest.mark.parametrize(
    "overlays, protocol, words",
    [
        ((), None, {"name": "semeval2016", "train": "2012–2014", "dev": "2015", "test": "2016"}),
        (
            ("config/sts2017.yaml",),
            None,
            {"name": "semeval2017", "train": "2012–2015", "dev": "2016", "test": "2017/track5"},
        ),
        ((), "stsb", {"name": "stsb", "train": "sts-train", "dev": "sts-dev", "test": "sts-test"}),
    ],
)
def test_the_studies_titles_name_the_sets_of_the_protocol_in_force(overlays, protocol, words):
    from stsynth.results.study_sections import ablation_section, dev_table_section, encoder_dev_check_section

    config = project_config(*overlays)
    if protocol:
        config["protocol"] = protocol
    named = protocol_words(config)
    assert {key: named[key] for key in words} == words
    table = pd.DataFrame({"system": ["x"], "pearson_ALL": [0.5]})
    dev_table = dev_table_section(table, named)
    assert f"dev protocol on the {words['dev']} sets" in dev_table and f"Trained on {words['train']} only" in dev_table
    assert f"({words['test']} never chooses anything)" in dev_table
    assert f"test = {words['test']} per track" in ablation_section({}, named)
    epochs = pd.DataFrame({"model": ["m", "m"], "dev": ["d", "d"], "epoch": [0, 1], "pearson": [0.1, 0.2]})
    assert f"dev protocol ({words['dev']})" in encoder_dev_check_section(epochs, named)


def test_a_protocol_part_is_written_as_a_range_of_years_or_as_named():
    from stsynth.pipeline.protocol import sets_in_words

    assert sets_in_words([2012, 2013, 2014]) == "2012–2014"
    assert sets_in_words([2012, 2014, 2015, "koala-dev"]) == "2012, 2014–2015, koala-dev"
    assert sets_in_words(["2017/track5"]) == "2017/track5" and sets_in_words([]) == ""
