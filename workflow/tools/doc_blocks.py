"""What each generated block and inline figure of README.md and docs/ holds, written from a built tree.

Two kinds of marked text in the Markdown files (``doc_tree.DOC_FILES``):

* a block, ``<!-- generated: NAME ... -->`` ... ``<!-- end generated: NAME -->``, whose body
  ``BLOCKS[NAME]`` writes from the tree's own tables (``make docs``);
* an inline figure in prose, ``<!-- fig: KEY -->VALUE<!-- /fig -->``, whose VALUE ``figure(KEY)`` writes
  (KEY = ``tree:kind:arguments``, kinds in ``FIGURE_KINDS``).

Paper figures come from ``published_figures.yaml``, never from the Markdown.
"""

from __future__ import annotations

from typing import Callable

import pandas as pd

from doc_blocks_beyond import cross_encoder_2016, cross_encoder_2017, cross_encoder_dev, epoch_grid, mpnet_2017
from doc_blocks_dcu import (
    baseline_2016,
    dcu_table1,
    dcu_table2,
    dcu_table3,
    dcu_table4,
    dcu_table5,
    dcu_table6,
    mt_comparison,
    ranks_2016,
)
from doc_tree import (
    CHECKOUT_CONFIG,
    EN_SETS,
    ES_EN_SETS,
    PAPER_RUNS,
    RUNS_2016,
    TABLE1_FILE,
    NotInBuild,
    Tree,
    ci,
    difference,
    paper,
    signed,
)
from stsynth.core.paths import (
    EVAL_LEADERBOARD,
    SEED_STUDY_SIGNS,
    STUDY_TABLES,
    epochs_path,
    eval_scores_path,
    fusion_path,
    scores_path,
    seed_study_importances_path,
)
from stsynth.core.tables import markdown_rows
from stsynth.eval.mteb_results import leaderboard_rows, run_task_scores
from stsynth.results.paper_tables import sts2017_table1_table_markdown
from stsynth.results.report_sections import PUBLISHED
from stsynth.results.seed_study import importance_markdown, spread_markdown

# --- inline figures ------------------------------------------------------------------------------

FIGURE_KINDS: dict[str, Callable] = {
    "score": lambda t, run, track, dataset, metric="pearson", digits="4": (
        f"{t.score(run, track, dataset)[metric]:.{int(digits)}f}"
    ),
    "score-ci": lambda t, run, track, dataset, metric="pearson": ci(t.score(run, track, dataset), metric),
    "compare": lambda t, run, against, track, metric="pearson": difference(t.comparison(run, against, track, metric)),
    "diff": lambda t, run, against, track, metric="pearson": signed(
        t.comparison(run, against, track, metric)["difference"]
    ),
    "fusion-dev": lambda t, run: f"{fusion_dev_row(t, run)['pearson_ALL']:.4f}",
    "mteb-sts16": lambda t, run: f"{mteb_sts16(t, run):.4f}",
    "machine": lambda t: t.machine(),
    "epoch-dev": lambda t, model, column, which="last": epoch_dev(t, model, column, which),
}


def epoch_dev(tree: Tree, model: str, column: str, which: str) -> str:
    """A paragram model's dev Pearson (``dev_<column>`` of its epochs table): after the last epoch, or the
    best epoch's, written "0.8516 after epoch 1"."""
    epochs = tree.table(epochs_path(model))
    if f"dev_{column}" not in epochs or which not in ("last", "best"):
        raise NotInBuild(f"{tree.root}/{epochs_path(model)}: no dev_{column}, or {which!r} is not last|best")
    if which == "last":
        return f"{epochs[f'dev_{column}'].iat[-1]:.4f}"
    best = epochs.loc[epochs[f"dev_{column}"].idxmax()]
    return f"{best[f'dev_{column}']:.4f} after epoch {int(best['epoch'])}"


def figure(key: str, trees: dict[str, Tree]) -> str:
    tree, kind, *arguments = key.split(":")
    if tree not in trees or kind not in FIGURE_KINDS:
        raise ValueError(f"figure key {key!r}: tree must be one of {sorted(trees)}, kind one of {sorted(FIGURE_KINDS)}")
    try:
        return FIGURE_KINDS[kind](trees[tree], *arguments)
    except TypeError as wrong:
        raise ValueError(f"figure key {key!r}: wrong arguments for kind {kind!r} ({wrong})") from None


# --- blocks ---------------------------------------------------------------------------------------


def years_span(years: list) -> str:
    """2012–2015 for consecutive years, else the years listed."""
    if all(isinstance(y, int) for y in years) and years == list(range(years[0], years[-1] + 1)) and len(years) > 1:
        return f"{years[0]}–{years[-1]}"
    return ", ".join(map(str, years))


def headline_2016_runs(config: dict) -> dict[str, str]:
    """run -> what it is (README), the task-internal pairs' years and threshold read from the tree's config."""
    from stsynth.pipeline.plan import gold_table_settings

    gold = gold_table_settings(config, "task-internal")
    return {
        run: what.format(years=years_span(gold["years"]), threshold=gold["threshold"])
        for run, what in HEADLINE_2016.items()
    }


HEADLINE_2016 = {  # run -> what it is (README); {years} and {threshold}: headline_2016_runs, from the config
    "baseline": "the organizers' bag-of-words cosine (their figures, reproduced exactly)",
    "task-internal": "paragram: word vectors tuned on STS {years} pairs with gold ≥ {threshold} (`minilm-static` "
    "vectors for paragram-XXL)",
    "synthetic": "+ every test sentence paired with its en → es → en round trip (Apertium for Google Translate)",
    "fusion": "GradientBoostingRegressor over the paragram cosines and TakeLab-style features (GloVe 6B 50-d "
    "for Word2Vec, wordfreq for Google Books)",
    "encoder": "all-MiniLM-L6-v2, zero-shot: 5 × cosine",
    "fusion-encoder": "`fusion` + the encoder's similarities",
    "encoder-sts": "all-MiniLM-L6-v2 fine-tuned on STS 2012–2015 gold",
    "fusion-tuned": "`fusion` + the fine-tuned encoder's similarities",
}
MPNET_2016 = {"mpnet": "all-mpnet-base-v2, zero-shot", "fusion-mpnet": "`fusion` + all-mpnet-base-v2's similarities"}
STUDY_RUNS_2016 = [
    "encoder-task-internal",
    "encoder-synthetic",
    "encoder-sts-synthetic",
    "head-minilm",
    "head-minilm-sts",
]
TABLE1_2017 = {  # run -> what it is, and its stand-in (README)
    "w2v": "mean of skip-gram vectors trained on the King James Bible + the training years' sentences "
    "(for NYT Gigaword)",
    "ee": "event embeddings: entity chains of the same corpus, spaCy parse, a coreference heuristic "
    "(for Gigaword, CoreNLP)",
    "paragram-small": "mean of PPDB-tuned GloVe 6B 50-d (for paragram-small)",
    "paragram-xxl": "mean of PPDB-tuned MiniLM-static (for paragram-XXL)",
    "pe": "CNN paraphrase embeddings, step 1 on the task-internal pairs (for PPDB 2.0 phrases)",
    "pe-w2v": "PE + W2V (the stand-ins of both rows above)",
    "pe-ee-official": "PE + EE (stand-ins as above), Tai et al.'s head settings (untuned)",
    "pe-ee": "PE + EE (stand-ins as above)",
}


def mteb_sts16(tree: Tree, run: str) -> float:
    """A run's MTEB STS16 main score, as results/mteb's STS16.json records it (stsynth.eval.mteb_results): the
    Spearman over the five en sets pooled."""
    found = run_task_scores(tree.scores(run), [f"2016/{name}" for name in EN_SETS])
    if found is None:
        raise NotInBuild(f"{tree.root}/{scores_path(run)} has no group of exactly STS16's sets")
    return found[1]["main_score"]


def headline_rows(tree: Tree, runs: dict[str, str], mteb: bool = True) -> list[list]:
    """A row per run: the official ALL of both tracks, MTEB's STS16 score (``mteb``) and the paper's figure."""
    rows = []
    for run, what in runs.items():
        rows.append(
            [
                f"`{run}`",
                what,
                ci(tree.score(run, "en", "ALL")),
                ci(tree.score(run, "es-en", "ALL")),
                *([mteb_sts16(tree, run)] if mteb else []),
                paper(PUBLISHED["paper"]["en_all"].get(PAPER_RUNS.get(run, ""))),
            ]
        )
    return rows


def headline_2016(tree: Tree) -> str:
    """The runs of `make all`, then MTEB's published STS16 figures of the best small models beside them."""
    published = [
        [row[0], f"published: {row[1]} parameters, zero-shot; {row[4]}", "", "", row[2], ""]
        for row in published_small_models()
    ]
    return markdown_rows(
        ["run", "what it is", "en ALL [95% CI]", "es-en ALL [95% CI]", "MTEB STS16", "paper (en)"],
        headline_rows(tree, headline_2016_runs(tree.config())) + published,
        "llllrr",
    )


def headline_mpnet(tree: Tree) -> str:
    return markdown_rows(
        ["run (`make mpnet`)", "what it is", "en ALL [95% CI]", "es-en ALL [95% CI]", "paper (en)"],
        headline_rows(tree, MPNET_2016, mteb=False),
        "llllr",
    )


MPNET_TUNED_OVERLAYS = [CHECKOUT_CONFIG.parent / "config" / name for name in ("mpnet.yaml", "mpnet-tuned.yaml")]
MPNET_TUNED_2016 = {  # `make mpnet-tuned`'s runs beside the zero-shot model and `all`'s best fusion
    "mpnet": "all-mpnet-base-v2, zero-shot",
    "mpnet-sts": "all-mpnet-base-v2 fine-tuned on STS 2012–2015 gold above its frozen lower layers",
    "fusion-tuned": "`fusion` + the fine-tuned all-MiniLM-L6-v2's similarities (`make all`)",
    "fusion-mpnet-tuned": "`fusion` + the fine-tuned all-mpnet-base-v2's similarities",
    "fusion-both-tuned": "`fusion` + both fine-tuned encoders' similarities",
}


def tuned_twin_dev_all(tree: Tree, model: str) -> float:
    """A tuned encoder's dev ALL: its twin's after the final model's epochs (the twin trains as long)."""
    table = tree.table(epochs_path(f"{model}-dev"))
    return float(table["dev_ALL"].iloc[-1])


def headline_mpnet_tuned(tree: Tree) -> str:
    """The tuned all-mpnet-base-v2 and the fusions over it: both tracks' official ALL, MTEB's STS16 and, for the runs
    `make mpnet-tuned` adds, the dev ALL that chose them (the twin's, or the fusion's dev search)."""
    rows = []
    own = set(tree.config(*MPNET_TUNED_OVERLAYS)["runs"]) - set(tree.config(MPNET_TUNED_OVERLAYS[0])["runs"])
    for row, run in zip(headline_rows(tree, MPNET_TUNED_2016), MPNET_TUNED_2016):
        stage = tree.config(*MPNET_TUNED_OVERLAYS)["runs"][run]
        if run not in own:  # a run of `make all` or `make mpnet`: its dev search is a study of that target
            dev = ""
        elif stage["stage"] == "fusion":
            dev = f"{fusion_dev_row(tree, run)['pearson_ALL']:.4f}"
        elif run == "mpnet-sts":
            dev = f"{tuned_twin_dev_all(tree, run):.4f}"
        else:
            dev = ""
        rows.append([*row[:5], dev])
    return markdown_rows(
        ["run (`make mpnet-tuned`)", "what it is", "en ALL [95% CI]", "es-en ALL [95% CI]", "MTEB STS16", "dev ALL"],
        rows,
        "llllrr",
    )


STRONGEST_2016 = ["mpnet-sts", "fusion-both-tuned"]  # the README's line below its headline table


def strongest_2016(tree: Tree) -> str:
    """The README's strongest runs (`make mpnet-tuned`), with MTEB's STS16 beside the published small models."""
    runs = {run: MPNET_TUNED_2016[run] for run in STRONGEST_2016}
    return markdown_rows(
        ["run (`make mpnet-tuned`)", "what it is", "en ALL [95% CI]", "es-en ALL [95% CI]", "MTEB STS16"],
        [row[:5] for row in headline_rows(tree, runs)],
        "llllr",
    )


def mpnet_tuned_dev(tree: Tree) -> str:
    """The dev grid of the tuned all-mpnet-base-v2 (config/mpnet-tuned.yaml): each twin's settings and its dev ALL
    (Pearson) before tuning and after every epoch, the best in bold."""
    tuning = tree.config(*MPNET_TUNED_OVERLAYS)["encoder"]["tuning"]
    # the twin, then its grid's cells (mpnet-sts-<cell>-dev: stsynth.pipeline.protocol), as declared
    models = [m for m in tuning["models"] if m.startswith("mpnet-sts-") and m.endswith("-dev")]
    tables = {model: tree.table(epochs_path(model)) for model in models}
    setting = lambda model: {**tuning["defaults"], **tuning["models"][model]}
    return epoch_grid(
        tables,
        {
            "loss": lambda model: setting(model)["loss"],
            "learning rate": lambda model: f"{setting(model)['learning_rate']:g}",
            "frozen layers": lambda model: str(setting(model).get("frozen_layers", 0)),
        },
        with_start=True,
    )


# Our best runs on MTEB's STS16 beside the published small models (published_figures.yaml, mteb_small_models):
# run -> what it learned STS from
MTEB_SMALL_MODELS_RUNS = {
    "fusion-tuned": "STS 2012–2015 gold, and the test sentences' round trips (Apertium for Google Translate)",
    "encoder-sts": "STS 2012–2015 gold",
    "encoder": "its authors' training data only (zero-shot)",
}


def parameters(count: int) -> str:
    return f"{count / 1e6:.1f}M"


def published_small_models() -> list[list]:
    """[model, parameters, STS16 main score, what it learned from, whose figure] per published model."""
    score = lambda printed: float(printed) / (100 if float(printed) > 1 else 1)  # external files print × 100
    mteb_sts = PUBLISHED["mteb_sts"]["models"]  # a model MTEB's leaderboard block quotes already: its STS16 from there
    return [
        [
            entry["model"],
            parameters(entry["parameters"]),
            score(entry.get("sts16") or mteb_sts[entry["model"]]["tasks"]["STS16"]["cosine_spearman"]),
            "its authors' training data (MTEB scores it zero-shot)",
            "its authors' report (MTEB `external/`)" if entry["folder"] == "external" else "MTEB's own run",
        ]
        for entry in PUBLISHED["mteb_small_models"]["models"]
    ]


def mteb_small_models(tree: Tree) -> str:
    """The best published MTEB STS16 figures of models under 150M parameters and ours, highest first."""
    rows = published_small_models()
    ours = parameters(PUBLISHED["mteb_small_models"]["ours"]["parameters"])
    rows += [
        [
            f"`{run}`",
            ours if run != "fusion-tuned" else f"{ours} + the fusion",
            mteb_sts16(tree, run),
            learned,
            "this build",
        ]
        for run, learned in MTEB_SMALL_MODELS_RUNS.items()
    ]
    return markdown_rows(
        ["model (MTEB name) or run", "parameters", "MTEB STS16", "learned STS from", "figure"],
        sorted(rows, key=lambda row: -row[2]),
        "lrrll",
    )


def conventions_rows(tree: Tree, runs: list[str], mteb: bool = False) -> list[list]:
    """A row per run in the three conventions; ``mteb``: with MTEB's STS16 score after the en ones."""
    rows = []
    for run in runs:
        row = [f"`{run}`"]
        for track in ("en", "es-en"):
            official = tree.score(run, track, "ALL")
            row += [
                ci(official),
                ci(official, "spearman"),
                tree.score(run, track, "ALL (mean)")["pearson"],
                tree.score(run, track, "ALL (pooled)")["pearson"],
            ]
            if mteb and track == "en":
                row.append(mteb_sts16(tree, run))
        rows.append(row)
    return rows


CONVENTIONS_HEADER = [
    "run",
    "en ALL [95% CI]",
    "en ALL Spearman [95% CI]",
    "en mean",
    "en pooled",
    "es-en ALL [95% CI]",
    "es-en ALL Spearman [95% CI]",
    "es-en mean",
    "es-en pooled",
]


def scores_2016(tree: Tree) -> str:
    header = [*CONVENTIONS_HEADER[:5], "en pooled Spearman (MTEB STS16)", *CONVENTIONS_HEADER[5:]]
    return markdown_rows(header, conventions_rows(tree, RUNS_2016, mteb=True), "lllrrrllrr")


def scores_2016_studies(tree: Tree) -> str:
    return markdown_rows(CONVENTIONS_HEADER, conventions_rows(tree, STUDY_RUNS_2016), "lllrrllrr")


def per_set_rows(tree: Tree, runs: list[str]) -> str:
    rows = [
        [
            f"`{run}`",
            *[tree.score(run, "en", d)["pearson"] for d in [*EN_SETS, "ALL"]],
            *[tree.score(run, "es-en", d)["pearson"] for d in [*ES_EN_SETS, "ALL"]],
        ]
        for run in runs
    ]
    return markdown_rows(["run", *EN_SETS, "en ALL", *ES_EN_SETS, "es-en ALL"], rows, digits=5)


def per_set_2016(tree: Tree) -> str:
    return per_set_rows(tree, RUNS_2016)


def per_set_2016_encoders(tree: Tree) -> str:
    return per_set_rows(tree, ["encoder", "encoder-sts", "fusion-encoder", "fusion-tuned"])


def comparisons_2016(tree: Tree) -> str:
    table = tree.protocol_rows(tree.table(scores_path("comparisons")))
    runs = tree.protocol_runs()
    table = table[table["run"].isin(runs) & table["against"].isin(runs)]
    rows = []
    for (run, against, track), pair in table.groupby(["run", "against", "track"], sort=False):
        by_metric = pair.set_index("metric")
        rows.append(
            [
                f"`{run}` − `{against}`",
                track,
                difference(by_metric.loc["pearson"]),
                difference(by_metric.loc["spearman"]),
            ]
        )
    return markdown_rows(["difference", "track", "Pearson ALL [95% CI], p", "Spearman ALL [95% CI], p"], rows, "llll")


def fusion_dev_row(tree: Tree, run: str) -> pd.Series:
    """The grid point the dev protocol chose for a fusion run (rule fusion_dev)."""
    table = tree.table(fusion_path(run, "dev.parquet"))
    return table[table["chosen"]].iloc[0]


def table1_row(tree: Tree, run: str) -> pd.Series:
    table = tree.table(TABLE1_FILE)
    rows = table[table["run"] == run]
    if len(rows) != 1:
        raise NotInBuild(f"{tree.root}/{TABLE1_FILE} has no row for {run}")
    return rows.iloc[0]


def sts2017_table1(tree: Tree) -> str:
    rows = []
    for run, what in TABLE1_2017.items():
        row = table1_row(tree, run)
        rows.append(
            [
                f"`{run}`",
                what,
                row["dev"],
                row["test"],
                *[None if pd.isna(row[c]) else f"{row[c]:.4f}".lstrip("0") for c in ("paper_dev", "paper_test")],
            ]
        )
    return markdown_rows(["run", "what it is (stand-in)", "Dev", "Test", "paper Dev", "paper Test"], rows, "llrrrr")


def sts2017_table1_full(tree: Tree) -> str:
    table = tree.table(TABLE1_FILE)
    return sts2017_table1_table_markdown(table[table["run"].isna() | table["run"].isin(tree.protocol_runs())])


STSB_RUNS = [
    "baseline",
    "paragram-raw",
    "task-internal",
    "synthetic",
    "synthetic-per-set",
    "encoder",
    "fusion",
    "fusion-encoder",
]


def stsb_scores(tree: Tree) -> str:
    """sts-test of the STS Benchmark protocol (`make stsb`): official Pearson with its interval, Spearman."""
    rows = [
        [f"`{run}`", ci(tree.score(run, "en", "ALL")), tree.score(run, "en", "ALL")["spearman"]] for run in STSB_RUNS
    ]
    return markdown_rows(["run", "Pearson [95% CI]", "Spearman"], rows, "llr")


def eval_leaderboard(tree: Tree) -> str:
    """`make eval`'s leaderboard: every encoder evaluated in its tree, main score per task."""
    header, rows = leaderboard_rows(tree.table(EVAL_LEADERBOARD["table"]))
    return markdown_rows(header, rows, "ll" + "r" * (len(header) - 2))


def mteb_difference(value: float) -> str:
    """Ours − MTEB's to six places; one that rounds to zero has no sign (it is equal as printed)."""
    return "0.000000" if abs(value) < 5e-7 else signed(value, 6)


def eval_mteb(tree: Tree) -> str:
    """Every encoder of the eval tree that MTEB has published figures for: per task, our pooled cosine
    Pearson / Spearman beside MTEB's (published_figures.yaml, mteb_sts) and the Spearman difference."""
    published, board, rows = PUBLISHED["mteb_sts"]["models"], tree.table(EVAL_LEADERBOARD["table"]), []
    for encoder, model in zip(board["encoder"], board["model"]):
        if model not in published:
            continue
        scores = tree.table(eval_scores_path(encoder))
        for task, group in scores[scores["dataset"] == "ALL (pooled)"].groupby("group", sort=False):
            ours, theirs = group.iloc[0], published[model]["tasks"].get(task)
            rows.append(
                [
                    model.split("/")[-1],
                    task,
                    str(ours["pairs"]),
                    f"{ours['pearson']:.6f} / {ours['spearman']:.6f}",
                    f"{theirs['cosine_pearson']} / {theirs['cosine_spearman']}" if theirs else "not readable here",
                    mteb_difference(ours["spearman"] - float(theirs["cosine_spearman"])) if theirs else "",
                ]
            )
    return markdown_rows(
        ["model", "task", "pairs", "ours: Pearson / Spearman of the cosine", "MTEB published", "Spearman: ours − MTEB"],
        rows,
        "llrllr",
    )


def seed_study(tree: Tree) -> str:
    """A protocol's training spread (stsynth.results.seed_study): what check-docs allows a run's figures
    (doc_marks.tolerances)."""
    return spread_markdown(tree.table(STUDY_TABLES["seed_study"]), tree.table(SEED_STUDY_SIGNS))


def seed_study_importances(tree: Tree) -> str:
    """The spread of `fusion`'s feature importances over the seeds: what check-docs allows DCU Table 4's order."""
    return importance_markdown("fusion", tree.table(seed_study_importances_path("fusion")))


BLOCKS: dict[str, tuple[str, Callable[[Tree], str]]] = {  # name -> (tree, writer)
    "headline-2016": ("all", headline_2016),
    "headline-mpnet": ("all", headline_mpnet),
    "headline-mpnet-tuned": ("all", headline_mpnet_tuned),
    "mpnet-tuned-dev": ("all", mpnet_tuned_dev),
    "strongest-2016": ("all", strongest_2016),
    "mteb-small-models": ("all", mteb_small_models),
    "scores-2016": ("all", scores_2016),
    "scores-2016-studies": ("all", scores_2016_studies),
    "per-set-2016": ("all", per_set_2016),
    "per-set-2016-encoders": ("all", per_set_2016_encoders),
    "comparisons-2016": ("all", comparisons_2016),
    "dcu-table1": ("all", dcu_table1),
    "dcu-table2": ("all", dcu_table2),
    "dcu-table3": ("all", dcu_table3),
    "dcu-table4": ("all", dcu_table4),
    "dcu-table5": ("all", dcu_table5),
    "dcu-table6": ("all", dcu_table6),
    "ranks-2016": ("all", ranks_2016),
    "seed-study-2016": ("all", seed_study),
    "seed-study-importances": ("all", seed_study_importances),
    "mt-comparison": ("all", mt_comparison),
    "baseline-2016": ("all", baseline_2016),
    "stsb-scores": ("stsb", stsb_scores),
    "sts2017-table1": ("sts2017", sts2017_table1),
    "sts2017-table1-full": ("sts2017", sts2017_table1_full),
    "seed-study-2017": ("sts2017", seed_study),
    "cross-encoder-dev": ("all", cross_encoder_dev),
    "cross-encoder-2016": ("all", cross_encoder_2016),
    "cross-encoder-2017": ("sts2017", cross_encoder_2017),
    "mpnet-2017": ("sts2017", mpnet_2017),
    "eval-leaderboard": ("eval", eval_leaderboard),
    "eval-mteb": ("eval", eval_mteb),
}
