"""`make docs` / `make check-docs` (workflow/tools/docs.py and its doc_* modules): the figures of README.md and docs/
are written from a built tree, and a figure changed by one digit fails the check, naming file, line and
both values."""

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

import doc_blocks
import doc_blocks_dcu
import doc_marks
import doc_tree
from stsynth.core.correlations import AGGREGATES
from stsynth.results.report_sections import PUBLISHED

REPO = Path(__file__).resolve().parent.parent
SETS = {"en": doc_tree.EN_SETS, "es-en": doc_tree.ES_EN_SETS}


def score_table(run: str, rng: np.random.Generator) -> pd.DataFrame:
    """A scores table in the schema of stsynth.core.scoring, with made-up figures."""
    rows = []
    for track, sets in SETS.items():
        for dataset in [*sets, "ALL", "ALL (mean)", "ALL (pooled)"]:
            pearson, spearman = rng.uniform(0.5, 0.9, 2)
            rows.append(
                {
                    "run": run,
                    "track": track,
                    "group": "2016",
                    "year": 2016,
                    "dataset": dataset,
                    "pairs": 200,
                    "pearson": pearson,
                    "spearman": spearman,
                    "undefined": 0,
                    "pearson_ci_low": pearson - 0.03,
                    "pearson_ci_high": pearson + 0.03,
                    "spearman_ci_low": spearman - 0.03,
                    "spearman_ci_high": spearman + 0.03,
                }
            )
    return pd.DataFrame(rows)


@pytest.fixture
def built_tree(tmp_path) -> Path:
    """The score tables `make all` writes, for every run the docs quote (no other table: those blocks are
    'not built')."""
    rng = np.random.default_rng(7)
    root = tmp_path / "tree"
    (root / "results/scores").mkdir(parents=True)
    for run in dict.fromkeys([*doc_blocks.HEADLINE_2016, *doc_tree.RUNS_2016]):
        score_table(run, rng).to_parquet(root / f"results/scores/{run}.parquet")
    runs = list(dict.fromkeys([*doc_blocks.HEADLINE_2016, *doc_tree.RUNS_2016]))
    named = {("synthetic", "task-internal"): (0.0213, 0.001), ("fusion", "task-internal"): (0.0288, 0.0)}
    pairs = [
        ((run, against), *named.get((run, against), (0.01, 0.5))) for run in runs for against in runs if run != against
    ]
    comparisons = [
        {
            "run": run,
            "against": against,
            "metric": metric,
            "track": track,
            "group": "2016",
            "pairs": 200,
            "all_run": 0.8,
            "all_against": 0.7,
            "difference": d,
            "ci_low": d - 0.01,
            "ci_high": d + 0.01,
            "p_value": p,
            "significant": p < 0.05,
        }
        for (run, against), d, p in pairs
        for metric in ("pearson", "spearman")
        for track in ("en", "es-en")
    ]
    pd.DataFrame(comparisons).to_parquet(root / "results/scores/comparisons.parquet")
    return root


def docs_command(docs_root: Path, tree: Path, *args: str) -> subprocess.CompletedProcess:
    missing = docs_root / "nothing-built"
    return subprocess.run(
        [
            sys.executable,
            str(REPO / "workflow/tools/docs.py"),
            "--docs-root",
            str(docs_root),
            "--tree",
            f"all={tree}",
            "--tree",
            f"sts2017={missing}",
            "--tree",
            f"stsb={missing}",
            *args,
        ],
        capture_output=True,
        text=True,
    )


@pytest.mark.subprocess
def test_docs_written_from_a_tree_pass_the_check_and_one_changed_digit_fails_it(built_tree, tmp_path):
    checkout = tmp_path / "checkout"
    (checkout / "docs").mkdir(parents=True)
    for name in doc_tree.DOC_FILES:
        shutil.copy(REPO / name, checkout / name)
    written = docs_command(checkout, built_tree)
    assert written.returncode == 0, written.stderr
    assert docs_command(checkout, built_tree, "--check").returncode == 0
    readme = (checkout / "README.md").read_text()
    # a figure of the headline table that must be exact: a run the seed study does not repeat (the docs' seed-study
    # block lets `synthetic`'s last digit move)
    scores = pd.read_parquet(built_tree / "results/scores/encoder.parquet")
    figure = f"{scores[(scores['track'] == 'en') & (scores['dataset'] == 'ALL')]['pearson'].iat[0]:.4f}"
    assert figure in readme
    digit = figure[-1]
    changed = figure[:-1] + str((int(digit) + 1) % 10)
    line = next(i for i, text in enumerate(readme.splitlines(), 1) if "`encoder`" in text and figure in text)
    (checkout / "README.md").write_text(readme.replace(figure, changed, 1))
    failed = docs_command(checkout, built_tree, "--check")
    assert failed.returncode == 1
    assert f"README.md:{line}: block headline-2016: the doc has {changed}, the build gives {figure}" in failed.stderr
    assert "1 differ" in failed.stdout


REFERENCE_BUILD = REPO.parent / "shared" / "reference-builds" / "intel-xeon-2ec9018"


@pytest.mark.subprocess
def test_the_docs_pass_the_check_on_the_intel_reference_build():
    """The Intel Xeon build of ../shared/reference-builds/ (where it exists): every figure the docs quote is
    its own, or within the tolerance of a training-dependent figure; the check names both CPUs."""
    if not REFERENCE_BUILD.is_dir():
        pytest.skip(f"{REFERENCE_BUILD} is absent")
    result = subprocess.run(
        [
            sys.executable,
            str(REPO / "workflow/tools/docs.py"),
            "--check",
            "--docs-root",
            str(REPO),
            "--tree",
            f"all={REFERENCE_BUILD / 'all'}",
            "--tree",
            f"sts2017={REFERENCE_BUILD / 'sts2017'}",
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr + result.stdout[-3000:]
    assert "this build ran on: Intel(R) Xeon(R) Processor" in result.stdout


def test_an_inline_figure_is_checked_and_a_missing_tree_is_said_not_built(built_tree):
    trees = doc_tree.trees_of({"all": built_tree, "sts2017": built_tree / "absent", "stsb": built_tree / "absent"})
    text = (
        "gain <!-- fig: all:compare:synthetic:task-internal:en -->+0.0213 [+0.0113, +0.0313], p 0.001<!-- /fig -->\n"
        "old <!-- fig: all:diff:fusion:task-internal:en -->+0.0300<!-- /fig -->\n"
        "<!-- fig: sts2017:score:pe:en:ALL -->0.8256<!-- /fig -->\n"
        "<!-- fig: all:score:fusoin:en:ALL -->0.7661<!-- /fig --> "
        "<!-- fig: all:diff:fusion:fusoin:en -->+0.25<!-- /fig -->\n"
    )
    outcome = doc_marks.render(text, "notes.md", trees)
    assert outcome.differences[0] == (
        "notes.md:2: figure all:diff:fusion:task-internal:en: the doc has +0.0300, the build gives +0.0288"
    )
    # a run or a pair the build does not have is a difference, not "not built" (a typo must not hide)
    assert "notes.md:4: figure all:score:fusoin:en:ALL: not built" in outcome.not_checked[1]  # no such score file
    assert outcome.differences[1] == (
        f"notes.md:4: figure all:diff:fusion:fusoin:en: {built_tree}/results/scores/"
        "comparisons.parquet has no fusion − fusoin (en, pearson)"
    )
    assert (
        len(outcome.not_checked) == 2
        and "notes.md:3: figure sts2017:score:pe:en:ALL: not built" in outcome.not_checked[0]
    )
    assert "+0.0288<!-- /fig -->" in outcome.text and "0.8256" in outcome.text  # the unbuilt figure is left as it is


def test_an_unknown_block_is_refused_naming_file_and_line(built_tree):
    text = "intro\n<!-- generated: no-such-table -->\n<!-- end generated: no-such-table -->\n"
    with pytest.raises(ValueError, match=r"notes.md:2: unknown generated block 'no-such-table'"):
        doc_marks.render(text, "notes.md", doc_tree.trees_of({"all": built_tree}))


def test_prose_figures_outside_marks_are_counted():
    text = (
        "a .713 b\n<!-- generated: x -->\n0.7344\n<!-- end generated: x -->\n"
        "<!-- fig: all:score:a:en:ALL -->0.1234<!-- /fig --> and 2016 and 0.52\n0.5133 here\n"
    )
    assert doc_marks.unmarked_lines(text) == [1, 6]


def test_rank_among_the_2016_participants_leaves_out_late_runs_and_the_baseline():
    runs = PUBLISHED["participants_en"]["runs"]
    assert doc_blocks_dcu.would_rank(0.9, runs) == (1, 112)
    assert doc_blocks_dcu.would_rank(0.71701, runs) == (30, 112)  # DCU-SEManiacs Fusion: RunRank 30 in the task paper
    assert doc_blocks_dcu.would_rank(0.84562, PUBLISHED["participants_es_en"]["runs"]) == (5, 26)  # DCU run2: rank 5


@pytest.mark.subprocess
def test_bench_runs_check_docs_on_its_cold_build_and_reports_a_failure(built_tree, capsys):
    """`make bench` checks the checkout's docs against the tree it built: here a tree whose figures
    differ from the README's, so the row says FAILED and the differing line is named."""
    from bench import check_docs

    rows: list[str] = []
    assert check_docs(built_tree, rows) is True
    assert rows[0].startswith("| check-docs on the cold all build: FAILED |")
    assert "README.md:" in capsys.readouterr().err


def test_a_models_dev_figure_is_its_last_epoch_or_its_best(built_tree):
    (built_tree / "resources/models").mkdir(parents=True)
    pd.DataFrame({"epoch": [0, 1, 2], "dev_ALL": [0.70, 0.75, 0.74]}).to_parquet(
        built_tree / "resources/models/m-dev.epochs.parquet"
    )
    trees = doc_tree.trees_of({"all": built_tree})
    assert doc_blocks.figure("all:epoch-dev:m-dev:ALL", trees) == "0.7400"
    assert doc_blocks.figure("all:epoch-dev:m-dev:ALL:best", trees) == "0.7500 after epoch 1"
    outcome = doc_marks.render("x <!-- fig: all:epoch-dev:m-dev:2015_images -->0.8<!-- /fig -->\n", "notes.md", trees)
    assert "notes.md:1: figure all:epoch-dev:m-dev:2015_images:" in outcome.differences[0]  # no such column


def test_the_cross_encoder_grid_reads_its_models_from_the_overlay_and_bolds_the_best(built_tree):
    import doc_blocks_beyond

    models = doc_blocks_beyond.cross_grid_models(
        doc_tree.resolved_config([REPO / "config.yaml", REPO / "config/cross-encoder.yaml"])
    )
    assert len(models) >= 2
    (built_tree / "resources/models").mkdir(parents=True)
    for rank, model in enumerate(models):
        dev = [0.3, 0.70 + rank / 100, 0.72 + rank / 100]  # epoch 0: an untrained head, not shown
        pd.DataFrame({"epoch": [0, 1, 2], "dev_ALL": dev}).to_parquet(
            built_tree / f"resources/models/{model}.epochs.parquet"
        )
    block = doc_blocks_beyond.cross_encoder_dev(doc_tree.trees_of({"all": built_tree})["all"])
    lines = block.splitlines()
    assert lines[0] == "| model | loss | learning rate | epoch 1 | epoch 2 |"
    assert [line.split(" | ")[0] for line in lines[2:]] == [f"| `{model}`" for model in models]
    assert block.count("**") == 2 and f"**{0.72 + (len(models) - 1) / 100:.4f}**" in lines[-1]
    assert "0.3000" not in block


def test_the_tuned_mpnet_grid_lists_its_twin_and_cells_with_their_settings_and_bolds_the_best(built_tree):
    cells = list(
        yaml.safe_load((REPO / "config/mpnet-tuned.yaml").read_text())["encoder"]["tuning"]["grid"]["mpnet-sts"]
    )
    models = ["mpnet-sts-dev", *(f"mpnet-sts-{cell}-dev" for cell in cells)]
    (built_tree / "resources/models").mkdir(parents=True)
    for rank, model in enumerate(models):
        epochs = 2 if model == "mpnet-sts-epochs2-dev" else 1
        dev = [0.85, *(0.86 + rank / 1000 + e / 100 for e in range(epochs))]
        pd.DataFrame({"epoch": range(epochs + 1), "dev_ALL": dev}).to_parquet(
            built_tree / f"resources/models/{model}.epochs.parquet"
        )
    block = doc_blocks.mpnet_tuned_dev(doc_tree.trees_of({"all": built_tree})["all"])
    lines = block.splitlines()
    assert lines[0] == "| model | loss | learning rate | frozen layers | start | epoch 1 | epoch 2 |"
    assert [line.split(" | ")[0] for line in lines[2:]] == [f"| `{model}`" for model in models]
    twin = lines[2].split(" | ")
    assert twin[1:5] == ["cosine", "5e-05", "9", "0.8500"] and lines[2].endswith(" |  |")  # one epoch: no second
    frozen10 = next(line for line in lines if "frozen10" in line).split(" | ")
    assert frozen10[3] == "10"
    assert block.count("**") == 2 and "**0.8740**" in next(line for line in lines if "epochs2" in line)


def test_the_mpnet_2017_block_lists_track_5_for_each_run_and_a_missing_run_is_not_built(tmp_path):
    import doc_blocks_beyond

    rng = np.random.default_rng(3)
    root = tmp_path / "sts2017"
    (root / "results/scores").mkdir(parents=True)
    track5 = lambda run: score_table(run, rng).assign(group="2017", year=2017)  # the 2017 protocol's test group
    for run in doc_blocks_beyond.MPNET_RUNS_2017[:-1]:
        track5(run).to_parquet(root / f"results/scores/{run}.parquet")
    tree = doc_tree.trees_of({"sts2017": root})["sts2017"]
    with pytest.raises(doc_tree.NotBuilt, match="fusion-mpnet"):  # `make sts2017` alone: the block stays as it is
        doc_blocks_beyond.mpnet_2017(tree)
    track5("fusion-mpnet").to_parquet(root / "results/scores/fusion-mpnet.parquet")
    pairs = doc_blocks_beyond.MPNET_PAIRS_2017
    comparisons = [
        {
            "run": run,
            "against": against,
            "metric": metric,
            "track": "en",
            "difference": 0.0193 if metric == "pearson" else -0.002,
            "ci_low": 0.0043,
            "ci_high": 0.0349,
            "p_value": 0.012,
        }
        for run, against in pairs
        for metric in ("pearson", "spearman")
    ]
    pd.DataFrame(comparisons).to_parquet(root / "results/scores/comparisons.parquet")
    scores, differences = doc_blocks_beyond.mpnet_2017(tree).split("\n\n")
    lines = scores.splitlines()
    assert lines[0] == "| run | track 5 Pearson [95% CI] | track 5 Spearman [95% CI] |"
    assert [line.split(" | ")[0] for line in lines[2:]] == [f"| `{run}`" for run in doc_blocks_beyond.MPNET_RUNS_2017]
    mpnet = pd.read_parquet(root / "results/scores/mpnet.parquet").query("track == 'en' and dataset == 'ALL'")
    assert f"{mpnet['pearson'].iloc[0]:.4f} [" in lines[2 + doc_blocks_beyond.MPNET_RUNS_2017.index("mpnet")]
    assert differences.splitlines()[2:] == [
        f"| `{run}` − `{against}` | +0.0193 [+0.0043, +0.0349], p 0.012 | −0.0020 [+0.0043, +0.0349], p 0.012 |"
        for run, against in pairs
    ]


def test_an_overlays_runs_in_a_shared_table_leave_the_protocols_blocks_as_they_are(built_tree):
    tree = doc_tree.trees_of({"all": built_tree})["all"]
    plain = doc_blocks.comparisons_2016(tree)
    path = built_tree / "results/scores/comparisons.parquet"
    table = pd.read_parquet(path)
    added = table[table["run"] == "encoder"].assign(run="fusion-mpnet")  # `make mpnet` writes its pairs here too
    pd.concat([table, added]).to_parquet(path)
    assert doc_blocks.comparisons_2016(doc_tree.trees_of({"all": built_tree})["all"]) == plain
    assert "fusion-mpnet" not in plain and "`encoder` −" in plain


def add_test_sets(tree: Path, names: list[str]) -> None:
    """Rows for sets added beside the protocol (``role: test``, each its own group, as a build scores them) in every
    scores table and the comparisons table of a built tree, with other figures than the protocol's own."""
    for path in (tree / "results/scores").glob("*.parquet"):
        table = pd.read_parquet(path)
        own = table[(table["group"] == "2016") & (table["track"] == "en")]
        added = []
        for name in names:
            rows = own if "dataset" not in own else own[own["dataset"].isin(["headlines", *AGGREGATES])]
            rows = rows.assign(group=name, year=0, pearson=0.1234, difference=0.0)
            if "dataset" in rows:
                rows = rows.assign(dataset=rows["dataset"].replace("headlines", name))
            added.append(rows)
        pd.concat([table, *added], ignore_index=True).to_parquet(path)


@pytest.mark.subprocess
def test_sets_added_beside_the_protocol_leave_every_block_and_figure_as_it_was(built_tree, tmp_path):
    """A tree with three test sets added (``role: test``): every block reads the protocol's own rows (its test
    groups), so the docs written from it are those written before, and the check passes."""
    checkout = tmp_path / "checkout"
    (checkout / "docs").mkdir(parents=True)
    for name in doc_tree.DOC_FILES:
        shutil.copy(REPO / name, checkout / name)
    assert docs_command(checkout, built_tree).returncode == 0
    before = {name: (checkout / name).read_text() for name in doc_tree.DOC_FILES}
    add_test_sets(built_tree, ["koala", "wombat", "quokka"])
    comparisons = pd.read_parquet(built_tree / "results/scores/comparisons.parquet")
    assert len(comparisons[(comparisons["run"] == "fusion") & (comparisons["against"] == "task-internal")]) == 4 + 3 * 2
    checked = docs_command(checkout, built_tree, "--check")
    assert checked.returncode == 0, checked.stderr
    assert " 0 differ" in checked.stdout
    assert docs_command(checkout, built_tree).returncode == 0
    assert {name: (checkout / name).read_text() for name in doc_tree.DOC_FILES} == before


def test_a_block_that_cannot_be_rendered_is_named_with_why_and_the_others_are_checked(built_tree, monkeypatch):
    tree = doc_tree.trees_of({name: built_tree / "nothing-built" for name in doc_tree.TREES} | {"all": built_tree})
    text = (REPO / "README.md").read_text()
    fine = doc_marks.render(text, "README.md", tree)

    def broken(tree):
        raise TypeError("unsupported format string passed to Series.__format__")

    monkeypatch.setitem(doc_blocks.BLOCKS, "headline-2016", ("all", broken))
    outcome = doc_marks.render(text, "README.md", tree)
    line = text[: text.index("<!-- generated: headline-2016")].count("\n") + 1
    assert (
        f"README.md:{line}: block headline-2016: cannot be rendered from this build: TypeError: "
        "unsupported format string passed to Series.__format__"
    ) in outcome.differences
    assert outcome.checked == fine.checked - 1 and outcome.checked > 0  # every other mark still rendered


SEED_BLOCK = """<!-- generated: seed-study-2016 (make docs writes it from the build; make check-docs checks it) -->
| run | track | group | seeds | headline | mean ± sd | min – max | largest set sd |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| `fusion` | en | 2016 | 5 | 0.7665 | 0.7650 ± 0.0020 | 0.7630 – 0.7670 | 0.0025 |
| `fusion` | es-en | 2016 | 5 | 0.8362 | 0.8350 ± 0.0020 | 0.8320 – 0.8380 | 0.0030 |
| `synthetic` | en | 2016 | 5 | 0.7563 | 0.7560 ± 0.0010 | 0.7550 – 0.7570 | 0.0005 |
<!-- end generated: seed-study-2016 -->
"""


def test_a_training_dependent_figure_may_move_within_its_runs_seed_spread(built_tree):
    """check-docs reads each studied run's tolerance (3 × its largest seed sd: of its ALLs for an ALL,
    of its sets for a set's figure) from the committed seed-study block, so a fresh clone's check on another
    machine has it; untouched runs stay exact."""
    allowed = doc_marks.tolerances([SEED_BLOCK])
    assert allowed == {
        "fusion": pytest.approx({"ALL": 0.006, "sets": 0.009, "block": "seed-study-2016"}),
        "synthetic": pytest.approx({"ALL": 0.003, "sets": 0.003, "block": "seed-study-2016"}),
    }
    # the 2017 protocol's block (Table 1's head runs) adds its runs; a run in both takes the larger spread
    block_2017 = SEED_BLOCK.replace("2016", "2017").replace("`synthetic`", "`pe`").replace("0.0020", "0.0040", 1)
    both = doc_marks.tolerances([SEED_BLOCK, block_2017])
    assert both["pe"] == pytest.approx({"ALL": 0.003, "sets": 0.003, "block": "seed-study-2017"})
    assert both["fusion"] == pytest.approx({"ALL": 0.012, "sets": 0.012, "block": "seed-study-2017"})
    assert both["synthetic"] == allowed["synthetic"]
    trees = doc_tree.trees_of({"all": built_tree})
    tree = doc_tree.Tree("all", built_tree)
    fusion = f"{tree.score('fusion', 'en', 'ALL')['pearson']:.4f}"
    near, far = f"{float(fusion) + 0.005:.4f}", f"{float(fusion) + 0.007:.4f}"
    one_set = f"{tree.score('fusion', 'en', 'headlines')['pearson']:.4f}"
    text = (
        f"a <!-- fig: all:score:fusion:en:ALL -->{near}<!-- /fig -->\n"
        f"b <!-- fig: all:score:fusion:en:ALL -->{far}<!-- /fig -->\n"
        f"c <!-- fig: all:score:baseline:en:ALL -->{near}<!-- /fig -->\n"
        # a difference of two runs moves with both: 0.006 + 0.003
        "d <!-- fig: all:diff:fusion:synthetic:en -->+0.0180<!-- /fig -->\n"
        # one set's figure moves with the sets' spread
        f"e <!-- fig: all:score:fusion:en:headlines -->{float(one_set) + 0.008:.4f}<!-- /fig -->\n"
    )
    outcome = doc_marks.render(text, "notes.md", trees, allowed)
    assert [line.split(": the doc")[0] for line in outcome.differences] == [
        "notes.md:2: figure all:score:fusion:en:ALL",
        "notes.md:3: figure all:score:baseline:en:ALL",
    ]
    assert outcome.tolerated[:2] == [
        f"notes.md:1: figure all:score:fusion:en:ALL: the doc has {near}, the build gives {fusion}: 0.0050 away, "
        "within 3 × the seed sd of fusion (0.0060; block seed-study-2016)",
        "notes.md:4: figure all:diff:fusion:synthetic:en: the doc has +0.0180, the build gives +0.0100: 0.0080 away, "
        "within 3 × the seed sd of fusion, synthetic (0.0090; block seed-study-2016)",
    ]
    assert (
        outcome.tolerated[2].startswith("notes.md:5: figure all:score:fusion:en:headlines")
        and "(0.0090;" in outcome.tolerated[2]
    )
    assert not doc_marks.render(text, "notes.md", trees).tolerated  # no seed block, no tolerance


def test_a_table_line_naming_a_studied_run_may_move_within_its_tolerance():
    assert doc_marks.within("| `fusion` | 0.7665 | +0.0020 |", "| `fusion` | 0.7650 | −0.0010 |", 0.003)
    assert not doc_marks.within("| `fusion` | 0.7665 |", "| `fusion` | 0.7600 |", 0.003)
    assert not doc_marks.within("| `fusion` | 0.7665 | yes |", "| `fusion` | 0.7665 | **no** |", 0.01)  # text differs
    assert doc_marks.within("0.76", "0.765", 0.0)  # half a unit of the doc's last digit: rounding, not a difference


def test_a_comparisons_p_follows_its_difference_and_a_crossing_of_005_is_reported():
    kept = doc_marks.within("+0.0221 [+0.0090, +0.0352], p 0.001", "+0.0231 [+0.0100, +0.0362], p < 0.001", 0.002)
    assert kept and kept.flips == [] and kept.distance == pytest.approx(0.001)
    flipped = doc_marks.within("+0.0159 [+0.0003, +0.0316], p 0.047", "+0.0128 [−0.0031, +0.0285], p 0.113", 0.015)
    assert flipped and flipped.flips == [("0.047", "0.113")]
    # the difference itself beyond the tolerance: a difference, whatever its p
    assert not doc_marks.within("+0.0159 [+0.0003, +0.0316], p 0.047", "+0.0359 [+0.0203, +0.0516], p 0.001", 0.015)


def test_a_dcu_table_line_of_several_runs_takes_the_largest_of_their_tolerances():
    allowed = {
        "synthetic": {"ALL": 0.001, "sets": 0.01, "block": "b"},
        "fusion": {"ALL": 0.001, "sets": 0.03, "block": "b"},
    }
    assert doc_marks.tolerance_of(["synthetic", "fusion"], allowed, "sets", side_by_side=True) == (
        0.03,
        ["synthetic", "fusion"],
    )
    assert doc_marks.tolerance_of(["synthetic", "fusion"], allowed, "sets")[0] == pytest.approx(0.04)  # a difference


def table4(*rows):
    header = (
        "| rank | paper's feature | Gini | our feature (group) | Gini (`fusion`) |\n| ---: | --- | --- | --- | --- |\n"
    )
    return header + "\n".join(
        f"| {i} | f{i} (x) | 0.{i} | `{feature}` (g) | {gini} |" for i, (feature, gini) in enumerate(rows, 1)
    )


def test_table4s_neighbours_may_swap_where_their_ginis_lie_within_the_importances_spread():
    doc = table4(("a", "0.626"), ("b", "0.311"), ("c", "0.006"), ("d", "0.005"))
    swapped = table4(("a", "0.646"), ("b", "0.297"), ("d", "0.006"), ("c", "0.005"))
    assert doc_marks.same_ranking(doc, swapped, 0.03).distance == pytest.approx(0.02)
    assert doc_marks.same_ranking(doc, swapped, 0.01) is None  # a's Gini moved by 0.02
    # a feature that left the top list must lie within the tolerance of the list's last
    left = table4(("a", "0.626"), ("b", "0.311"), ("c", "0.006"), ("e", "0.004"))
    assert doc_marks.same_ranking(doc, left, 0.003) and doc_marks.same_ranking(doc, left, 0.0) is None
    # the paper's columns at each rank never move
    assert doc_marks.same_ranking(doc, doc.replace("f2 (x)", "f9 (x)"), 1.0) is None


def test_the_importances_spread_block_gives_table4s_tolerance():
    block = (
        "<!-- generated: seed-study-importances -->\n| run | feature | seeds | headline | mean ± sd | min – max |\n"
        "| --- | --- | ---: | ---: | ---: | ---: |\n"
        "| `fusion` | `paraphrase_synthetic` | 5 | 0.626 | 0.620 ± 0.0120 | 0.600 – 0.640 |\n"
        "| `fusion` | `number_subset` | 5 | 0.022 | 0.021 ± 0.0010 | 0.020 – 0.023 |\n"
        "<!-- end generated: seed-study-importances -->\n"
    )
    assert doc_marks.tolerances([block])["fusion"]["importance"] == pytest.approx(0.036)


def test_the_check_names_the_cpu_of_the_docs_build_and_of_this_one(built_tree):
    (built_tree / "results/report.md").write_text(
        "| what | value |\n| --- | --- |\n| CPU | Intel(R) Xeon(R) Processor |\n"
    )
    trees = doc_tree.trees_of({"all": built_tree})
    outcome = doc_marks.render("built on <!-- fig: all:machine -->AMD EPYC<!-- /fig -->\n", "n.md", trees)
    assert outcome.machines == [("AMD EPYC", "Intel(R) Xeon(R) Processor")] and not outcome.differences


def test_a_runs_description_reads_the_config_it_was_built_with():

    from conftest import project_config
    from doc_blocks import headline_2016_runs

    config = project_config()
    assert "STS 2012–2015 pairs with gold ≥ 3.8" in headline_2016_runs(config)["task-internal"]
    config["paraphrase_pairs"]["threshold"] = 3.5
    config["protocols"]["semeval2016"].update(train=[2012], dev=[2014])  # the final sets: the protocol's train and dev
    assert "STS 2012, 2014 pairs with gold ≥ 3.5" in headline_2016_runs(config)["task-internal"]


def test_the_config_reference_is_the_schemas_and_a_new_key_changes_it():
    """config/README.md's key table is written from the schema (workflow/tools/config_reference.py): the
    committed page is what the schema gives, and a key added to the schema makes it stale."""
    import yaml

    from config_reference import PAGE, SCHEMA, render

    schema, page = yaml.safe_load(SCHEMA.read_text()), PAGE.read_text()
    assert render(page, schema) == page
    schema["properties"]["tokenize"]["properties"]["strip"] = {"type": "boolean", "default": True, "description": "x"}
    assert "| `tokenize.strip` | boolean | `true` | x |" in render(page, schema)


def test_a_leaderboard_row_of_an_encoder_the_tree_has_not_evaluated_is_not_built_not_a_difference(tmp_path):
    """After plain `make eval` the tree has all-MiniLM-L6-v2's row alone: the docs' all-mpnet-base-v2 row (its build:
    EVAL_OVERLAYS=config/eval-mpnet.yaml) is named as not built and kept; a row the docs lack is named as one."""
    board = pd.DataFrame(
        [{"encoder": "minilm", "model": "sentence-transformers/all-MiniLM-L6-v2", "STS12 main": 0.7237, "mean": 0.7237}]
    )
    (tmp_path / "results/eval").mkdir(parents=True)
    board.to_parquet(tmp_path / "results/eval/leaderboard.parquet")
    trees = doc_tree.trees_of({"eval": tmp_path})
    built = doc_blocks.eval_leaderboard(trees["eval"])
    header, rule, minilm = built.strip().splitlines()
    mpnet = "| mpnet | sentence-transformers/all-mpnet-base-v2 | 0.7263 | 0.7263 |"
    text = "<!-- generated: eval-leaderboard -->\n" + "\n".join([header, rule, mpnet, minilm]) + "\n"
    text += "<!-- end generated: eval-leaderboard -->\n"
    outcome = doc_marks.render(text, "README.md", trees)
    assert outcome.differences == [] and outcome.text == text
    assert any("not built: the rows of mpnet" in line for line in outcome.not_checked)
    fewer = text.replace(minilm + "\n", "")
    assert doc_marks.render(fewer, "README.md", trees).differences == [
        "README.md:2: block eval-leaderboard: the build has rows the doc lacks: minilm"
    ]


def test_the_headline_tables_mteb_column_is_the_sts16_main_score_the_build_writes(built_tree):
    from stsynth.eval.mteb_results import run_task_scores

    block = doc_blocks.headline_2016(doc_tree.Tree("all", built_tree))
    assert block.splitlines()[0].split(" | ")[4] == "MTEB STS16"
    for run in ("encoder", "fusion-tuned"):
        scores = pd.read_parquet(built_tree / f"results/scores/{run}.parquet")
        # what results/mteb/.../STS16.json records: the en group of exactly STS16's five sets, pooled
        track, sts16 = run_task_scores(scores, [f"2016/{name}" for name in doc_tree.EN_SETS])
        row = next(line for line in block.splitlines() if line.startswith(f"| `{run}` |"))
        assert track == "en" and row.split(" | ")[4] == f"{sts16['main_score']:.4f}"


def test_the_published_small_models_stand_beside_our_runs_on_mtebs_sts16(built_tree):
    """MTEB's published STS16 figures (published_figures.yaml, mteb_small_models; × 100 in the external files) beside
    our runs' own, highest first, in results.md's block; the README's headline table ends with the same figures."""
    tree = doc_tree.Tree("all", built_tree)
    rows = [line.split(" | ") for line in doc_blocks.mteb_small_models(tree).splitlines()[2:]]
    scores = [float(row[2]) for row in rows]
    assert scores == sorted(scores, reverse=True)
    by_name = {row[0].strip("| `"): row for row in rows}
    assert by_name["infgrad/stella-base-en-v2"][1:3] == ["109.5M", "0.8635"]  # printed 86.35414445951125
    assert by_name["sentence-transformers/all-mpnet-base-v2"][2] == "0.8003"  # mteb_sts: 0.800301
    for run in doc_blocks.MTEB_SMALL_MODELS_RUNS:
        assert by_name[run][2] == f"{doc_blocks.mteb_sts16(tree, run):.4f}" and by_name[run][4] == "this build |"
    headline = doc_blocks.headline_2016(tree).splitlines()
    published = [line.split(" | ") for line in headline[-len(PUBLISHED["mteb_small_models"]["models"]) :]]
    assert [(row[0].strip("| "), row[4]) for row in published] == [
        (row[0].strip("| "), row[2]) for row in rows if "`" not in row[0]
    ]
