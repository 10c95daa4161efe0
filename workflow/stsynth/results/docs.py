"""Figures in README.md and docs/ written from a built tree, and checked against it, so none goes stale.

Two kinds of marked text in the Markdown files (``DOC_FILES``):

* a block, ``<!-- generated: NAME ... -->`` ... ``<!-- end generated: NAME -->``, whose body
  ``BLOCKS[NAME]`` writes from the tree's own tables (``make docs``);
* an inline figure in prose, ``<!-- fig: KEY -->VALUE<!-- /fig -->``, whose VALUE ``figure(KEY)`` writes
  (KEY = ``tree:kind:arguments``, kinds in ``FIGURE_KINDS``).

``make check-docs`` renders both again and names the file, line and both values of every figure that
differs. A block or figure whose tree lacks its files (the STS 2017 protocol not built, ``make
studies`` not run, ...) is left as it is and listed as not checked. Paper figures come from
``published_figures.yaml``, never from the Markdown.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pandas as pd
import yaml

from ..eval.evaluation import leaderboard_rows
from ..translation.mt_quality import comparison_table_markdown
from ..core.paths import (EVAL_LEADERBOARD, PAPER_TABLES, PROTOCOL_DIRECTORIES, SEED_STUDY_SIGNS, STUDY_TABLES,
                          epochs_path, eval_scores_path, fusion_path, paragram_result_path, scores_path)
from .paper_tables import sts2017_table1_table_markdown
from .report_sections import PUBLISHED
from ..core.scoring import p_value_cell
from .seed_study import spread_markdown
from ..core.tables import markdown_rows

DOC_FILES = ("README.md", "docs/results.md")
TREES = {name: PROTOCOL_DIRECTORIES[name] for name in ("all", "sts2017", "stsb", "eval")}  # tree -> its working directory
CHECKOUT_CONFIG = Path(__file__).resolve().parents[3] / "config.yaml"
TABLE1_FILE = PAPER_TABLES["sts2017_table1"] + ".parquet"  # the 2017 system's Table 1 (rule paper_table1)

BLOCK = re.compile(r"<!-- generated: (?P<name>[\w-]+)[^>]*-->\n(?P<body>.*?)<!-- end generated: (?P=name) -->", re.S)
FIGURE = re.compile(r"<!-- fig: (?P<key>.+?) -->(?P<value>.*?)<!-- /fig -->")
NUMBER = re.compile(r"[−+-]?\d*\.\d+|\d+")
DECIMAL = re.compile(r"(?<![\w.])\d?\.\d{3,}\b")


class NotBuilt(Exception):
    """A file a block or figure reads does not exist in its tree: the mark is left as it is."""


class NotInBuild(Exception):
    """The file exists but has no row for what the mark names (a renamed run, a typo): a difference."""


@dataclass
class Tree:
    """One built working directory: its tables, read once."""
    name: str
    root: Path
    _cache: dict = field(default_factory=dict)

    def table(self, relpath: str) -> pd.DataFrame:
        if relpath not in self._cache:
            path = self.root / relpath
            if not path.exists():
                raise NotBuilt(f"{path} (tree {self.name})")
            self._cache[relpath] = pd.read_parquet(path)
        return self._cache[relpath]

    def config(self) -> dict:
        """The config the tree was built with: its own config.yaml (a checkout's `make all`), else that of
        the checkout this code is in (a tree built elsewhere with `--directory`)."""
        path = self.root / "config.yaml"
        return yaml.safe_load((path if path.exists() else CHECKOUT_CONFIG).read_text())

    def scores(self, run: str) -> pd.DataFrame:
        return self.table(scores_path(run))

    def score(self, run: str, track: str, dataset: str) -> pd.Series:
        table = self.scores(run)
        rows = table[(table["track"] == track) & (table["dataset"] == dataset)]
        if len(rows) != 1:
            raise NotInBuild(f"{self.root}/{scores_path(run)} has {len(rows)} rows for {track} {dataset}")
        return rows.iloc[0]

    def comparison(self, run: str, against: str, track: str, metric: str = "pearson") -> pd.Series:
        table = self.table(scores_path("comparisons"))
        rows = table[(table["run"] == run) & (table["against"] == against) & (table["track"] == track)
                     & (table["metric"] == metric)]
        if len(rows) != 1:
            raise NotInBuild(f"{self.root}/{scores_path('comparisons')} has no {run} − {against} ({track}, {metric})")
        return rows.iloc[0]


# --- formatting: one place for how a figure is written --------------------------------------------

def ci(row: pd.Series, metric: str = "pearson") -> str:
    return f"{row[metric]:.4f} [{row[f'{metric}_ci_low']:.3f}, {row[f'{metric}_ci_high']:.3f}]"


def signed(value: float, digits: int = 4) -> str:
    return f"{value:+.{digits}f}".replace("-", "−")


def difference(row: pd.Series) -> str:
    return f"{signed(row['difference'])} [{signed(row['ci_low'])}, {signed(row['ci_high'])}], p {p_value_cell(row['p_value'])}"


def paper(value) -> str:
    """A published figure as printed."""
    return "" if value is None else str(value)


# --- inline figures ------------------------------------------------------------------------------

FIGURE_KINDS: dict[str, Callable] = {
    "score": lambda t, run, track, dataset, metric="pearson", digits="4":
        f"{t.score(run, track, dataset)[metric]:.{int(digits)}f}",
    "score-ci": lambda t, run, track, dataset, metric="pearson": ci(t.score(run, track, dataset), metric),
    "compare": lambda t, run, against, track, metric="pearson": difference(t.comparison(run, against, track, metric)),
    "diff": lambda t, run, against, track, metric="pearson": signed(t.comparison(run, against, track, metric)["difference"]),
    "fusion-dev": lambda t, run: f"{fusion_dev_row(t, run)['pearson_ALL']:.4f}",
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
    from ..pipeline.plan import gold_table_settings

    gold = gold_table_settings(config, "task-internal")
    return {run: what.format(years=years_span(gold["years"]), threshold=gold["threshold"])
            for run, what in HEADLINE_2016.items()}


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
RUNS_2016 = ["baseline", "paragram-raw", "task-internal", "synthetic", "synthetic-per-set", "encoder", "fusion",
             "fusion-encoder", "encoder-sts", "fusion-tuned"]
STUDY_RUNS_2016 = ["encoder-task-internal", "encoder-synthetic", "encoder-sts-synthetic", "head-minilm", "head-minilm-sts"]
EN_SETS = ["answer-answer", "headlines", "plagiarism", "postediting", "question-question"]
ES_EN_SETS = ["news", "multisource"]
PAPER_RUNS = {"task-internal": "task-internal", "synthetic": "synthetic", "fusion": "fusion"}  # ours -> DCU's name
TABLE1_2017 = {  # run -> what it is, and its stand-in (README)
    "w2v": "mean of skip-gram vectors trained on the King James Bible + the training years' sentences (for NYT Gigaword)",
    "ee": "event embeddings: entity chains of the same corpus, spaCy parse, a coreference heuristic (for Gigaword, CoreNLP)",
    "paragram-small": "mean of PPDB-tuned GloVe 6B 50-d (for paragram-small)",
    "paragram-xxl": "mean of PPDB-tuned MiniLM-static (for paragram-XXL)",
    "pe": "CNN paraphrase embeddings, step 1 on the task-internal pairs (for PPDB 2.0 phrases)",
    "pe-w2v": "PE + W2V (the stand-ins of both rows above)",
    "pe-ee-official": "PE + EE (stand-ins as above), Tai et al.'s head settings (untuned)",
    "pe-ee": "PE + EE (stand-ins as above)",
}


def headline_rows(tree: Tree, runs: dict[str, str]) -> list[list]:
    rows = []
    for run, what in runs.items():
        rows.append([f"`{run}`", what, ci(tree.score(run, "en", "ALL")), ci(tree.score(run, "es-en", "ALL")),
                     paper(PUBLISHED["paper"]["en_all"].get(PAPER_RUNS.get(run, "")))])
    return rows


def headline_2016(tree: Tree) -> str:
    return markdown_rows(["run", "what it is", "en ALL [95% CI]", "es-en ALL [95% CI]", "paper (en)"],
                         headline_rows(tree, headline_2016_runs(tree.config())), "llllr")


def headline_mpnet(tree: Tree) -> str:
    return markdown_rows(["run (`make mpnet`)", "what it is", "en ALL [95% CI]", "es-en ALL [95% CI]", "paper (en)"],
                         headline_rows(tree, MPNET_2016), "llllr")


def conventions_rows(tree: Tree, runs: list[str]) -> list[list]:
    rows = []
    for run in runs:
        row = [f"`{run}`"]
        for track in ("en", "es-en"):
            official = tree.score(run, track, "ALL")
            row += [ci(official), ci(official, "spearman"), tree.score(run, track, "ALL (mean)")["pearson"],
                    tree.score(run, track, "ALL (pooled)")["pearson"]]
        rows.append(row)
    return rows


CONVENTIONS_HEADER = ["run", "en ALL [95% CI]", "en ALL Spearman [95% CI]", "en mean", "en pooled",
                      "es-en ALL [95% CI]", "es-en ALL Spearman [95% CI]", "es-en mean", "es-en pooled"]


def scores_2016(tree: Tree) -> str:
    return markdown_rows(CONVENTIONS_HEADER, conventions_rows(tree, RUNS_2016), "lllrrllrr")


def scores_2016_studies(tree: Tree) -> str:
    return markdown_rows(CONVENTIONS_HEADER, conventions_rows(tree, STUDY_RUNS_2016), "lllrrllrr")


def per_set_rows(tree: Tree, runs: list[str]) -> str:
    rows = [[f"`{run}`", *[tree.score(run, "en", d)["pearson"] for d in [*EN_SETS, "ALL"]],
             *[tree.score(run, "es-en", d)["pearson"] for d in [*ES_EN_SETS, "ALL"]]] for run in runs]
    return markdown_rows(["run", *EN_SETS, "en ALL", *ES_EN_SETS, "es-en ALL"], rows, digits=5)


def per_set_2016(tree: Tree) -> str:
    return per_set_rows(tree, RUNS_2016)


def per_set_2016_encoders(tree: Tree) -> str:
    return per_set_rows(tree, ["encoder", "encoder-sts", "fusion-encoder", "fusion-tuned"])


def comparisons_2016(tree: Tree) -> str:
    table = tree.table(scores_path("comparisons"))
    rows = []
    for (run, against, track), pair in table.groupby(["run", "against", "track"], sort=False):
        by_metric = pair.set_index("metric")
        rows.append([f"`{run}` − `{against}`", track, difference(by_metric.loc["pearson"]),
                     difference(by_metric.loc["spearman"])])
    return markdown_rows(["difference", "track", "Pearson ALL [95% CI], p", "Spearman ALL [95% CI], p"], rows, "llll")


def dcu_table1(tree: Tree) -> str:
    """DCU Table 1 (2015 as dev): the 2015 model, raw paragram, the two fused; ours from rule fusion_dev_table."""
    table = tree.table(STUDY_TABLES["dev_table"]).set_index("system")
    printed = PUBLISHED["dcu_tables"]["table1"]
    ours = {"DCU 2015 model": "features only (GBR)", "Paragram Raw": "paragram raw (5 x cosine)",
            "Paragram + DCU 2015": "features + paragram (GBR)"}
    rows = []
    for dataset, column in printed["sets"].items():
        row = [dataset]
        for paper_system, our_system in ours.items():
            row += [paper(printed["rows"][paper_system][dataset]), table.loc[our_system, f"pearson_{column}"]]
        rows.append(row)
    header = ["2015 set"]
    for paper_system, our_system in ours.items():
        header += [f"paper: {paper_system}", f"ours: {our_system}"]
    return markdown_rows(header, rows)


def dcu_table2(tree: Tree) -> str:
    printed = PUBLISHED["dcu_tables"]["table2"]
    task = {row["system"]: row for row in PUBLISHED["participants_en"]["runs"]}
    rows = []
    for dataset in [*EN_SETS, "ALL"]:
        row = [dataset]
        for run, system in PAPER_RUNS.items():
            official = task[f"DCU-SEManiacs {printed['task_names'][system]}"][dataset]
            row += [paper(printed["rows"][system][dataset]), paper(official), tree.score(run, "en", dataset)["pearson"]]
        row += [paper(PUBLISHED["task_2016"]["median_en"][dataset]), paper(PUBLISHED["task_2016"]["best_en"][dataset])]
        rows.append(row)
    header = ["STS 2016 set"]
    for run in PAPER_RUNS:
        header += [f"{run}: paper", "task paper", "ours"]
    return markdown_rows([*header, "median", "best"], rows)


def dcu_table3(tree: Tree) -> str:
    printed = PUBLISHED["dcu_tables"]["table3"]
    rows = []
    for dataset, label in (("news", "News"), ("multisource", "Multi-source"), ("ALL", "Mean*")):
        row = [label]
        for run in ("task-internal", "synthetic"):
            row += [paper(printed["rows"][run][dataset]), tree.score(run, "es-en", dataset)["pearson"]]
        row += [tree.score("fusion", "es-en", dataset)["pearson"], paper(printed["rows"]["best"][dataset])]
        rows.append(row)
    return markdown_rows(["STS 2016 es-en", "task-internal: paper", "ours", "synthetic: paper", "ours",
                          "fusion: ours (not submitted)", "best"], rows)


def dcu_table4(tree: Tree) -> str:
    printed = PUBLISHED["dcu_tables"]["table4"]["rows"]
    ours = tree.table(fusion_path("fusion", "importances.parquet")).sort_values("importance", ascending=False)
    rows = [[rank + 1, f"{p['feature']} ({p['description']})", paper(p["gini"]), f"`{o.feature}` ({o.group})", o.importance]
            for rank, (p, o) in enumerate(zip(printed, ours.head(len(printed)).itertuples()))]
    return markdown_rows(["rank", "paper's feature", "Gini", "our feature (group)", "Gini (`fusion`)"], rows, "rllll", 3)


def dcu_table5(tree: Tree) -> str:
    printed = PUBLISHED["dcu_tables"]["table5"]["rows"]
    ours = tree.table(paragram_result_path("task-internal", "unknown_words.parquet"))
    ours = ours[ours["year"] == PUBLISHED["test_year"]].set_index("dataset")
    rows = [[dataset, paper(printed.get(dataset)), int(ours.loc[dataset, "tokens"]), int(ours.loc[dataset, "unknown"]),
             f"{ours.loc[dataset, 'percent']:.2f}"] for dataset in ours.index]
    return markdown_rows(["STS 2016 set", "paper: % unknown", "our tokens", "our unknown", "our % unknown"], rows)


def dcu_table6(tree: Tree) -> str:
    printed = PUBLISHED["dcu_tables"]["table6"]
    ours = tree.table(fusion_path("fusion", "importances.parquet"))
    groups = ours.groupby("group", sort=False)["feature"].apply(list)
    rows = [[group, ", ".join(f"`{f}`" for f in features)] for group, features in groups.items()]
    return ("Paper, our features: " + printed["ours"] + ". TakeLab: " + printed["takelab"] + ".\n\n"
            + markdown_rows(["our group", f"our features (`fusion`, {len(ours)})"], rows, "ll"))


def would_rank(value: float, runs: list[dict], column: str = "ALL") -> tuple[int, int]:
    """Rank among the task's on-time runs (late runs and the organizers' baseline left out), and how many."""
    field_runs = [float(r[column]) for r in runs if not r.get("late") and not r.get("baseline")]
    return 1 + sum(other > value for other in field_runs), len(field_runs)


def ranks_2016(tree: Tree) -> str:
    rows = []
    for run in RUNS_2016:
        row = [f"`{run}`"]
        for track, participants in (("en", "participants_en"), ("es-en", "participants_es_en")):
            value = tree.score(run, track, "ALL")["pearson"]
            rank, of = would_rank(value, PUBLISHED[participants]["runs"])
            row += [value, f"{rank} of {of}"]
        rows.append(row)
    return markdown_rows(["run", "en ALL", "en rank", "es-en ALL", "es-en rank"], rows, "lrrrr")


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
        rows.append([f"`{run}`", what, row["dev"], row["test"], *[None if pd.isna(row[c]) else f"{row[c]:.4f}".lstrip("0")
                                                                   for c in ("paper_dev", "paper_test")]])
    return markdown_rows(["run", "what it is (stand-in)", "Dev", "Test", "paper Dev", "paper Test"], rows, "llrrrr")


def sts2017_table1_full(tree: Tree) -> str:
    return sts2017_table1_table_markdown(tree.table(TABLE1_FILE))


STSB_RUNS = ["baseline", "paragram-raw", "task-internal", "synthetic", "synthetic-per-set", "encoder", "fusion",
             "fusion-encoder"]


def stsb_scores(tree: Tree) -> str:
    """sts-test of the STS Benchmark protocol (`make stsb`): official Pearson with its interval, Spearman."""
    rows = [[f"`{run}`", ci(tree.score(run, "en", "ALL")), tree.score(run, "en", "ALL")["spearman"]] for run in STSB_RUNS]
    return markdown_rows(["run", "Pearson [95% CI]", "Spearman"], rows, "llr")


def baseline_2016(tree: Tree) -> str:
    """The organizers' baseline per set beside their published figures (task_2016.baseline_en)."""
    published = PUBLISHED["task_2016"]["baseline_en"]
    rows = []
    for track, sets in (("en", EN_SETS), ("es-en", ES_EN_SETS)):
        for dataset in [*sets, "ALL"]:
            row = tree.score("baseline", track, dataset)
            rows.append([track, f"**{dataset}**" if dataset == "ALL" else dataset, int(row["pairs"]), row["pearson"],
                         paper(published.get(dataset)) if track == "en" else ""])
    return markdown_rows(["track", "dataset", "pairs", "Pearson (ours)", "the organizers'"], rows, "llrrr", 5)


def mt_comparison(tree: Tree) -> str:
    """The es-en runs with Apertium's translation of s1 and with the third party's (rule crosslingual_mt_comparison)."""
    return comparison_table_markdown(tree.table(STUDY_TABLES["mt_comparison"]))


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
            rows.append([model.split("/")[-1], task, str(ours["pairs"]), f"{ours['pearson']:.6f} / {ours['spearman']:.6f}",
                         f"{theirs['cosine_pearson']} / {theirs['cosine_spearman']}" if theirs else "not readable here",
                         mteb_difference(ours["spearman"] - float(theirs["cosine_spearman"])) if theirs else ""])
    return markdown_rows(["model", "task", "pairs", "ours: Pearson / Spearman of the cosine", "MTEB published",
                          "Spearman: ours − MTEB"], rows, "llrllr")


def seed_study(tree: Tree) -> str:
    """A protocol's training spread (stsynth.results.seed_study): what check-docs allows a run's figures (:func:`tolerances`)."""
    return spread_markdown(tree.table(STUDY_TABLES["seed_study"]), tree.table(SEED_STUDY_SIGNS))


BLOCKS: dict[str, tuple[str, Callable[[Tree], str]]] = {  # name -> (tree, writer)
    "headline-2016": ("all", headline_2016),
    "headline-mpnet": ("all", headline_mpnet),
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
    "mt-comparison": ("all", mt_comparison),
    "baseline-2016": ("all", baseline_2016),
    "stsb-scores": ("stsb", stsb_scores),
    "sts2017-table1": ("sts2017", sts2017_table1),
    "sts2017-table1-full": ("sts2017", sts2017_table1_full),
    "seed-study-2017": ("sts2017", seed_study),
    "eval-leaderboard": ("eval", eval_leaderboard),
    "eval-mteb": ("eval", eval_mteb),
}


# --- the tolerance of training-dependent figures -----------------------------------------------------

SEED_BLOCKS = ("seed-study-2016", "seed-study-2017")  # each protocol's seed study (2017: Table 1's head runs)
SEED_WIDTHS = 3  # a figure of a run the seed study repeats may move by this many seed sds between builds
SEED_ROW = re.compile(r"^\| `(?P<run>[^`]+)` \| [^|]+ \| [^|]+ \| \d+ \| [^|]+ \| [\d.]+ ± (?P<sd>\d*\.\d+) \| [^|]+ \| "
                      r"(?P<set_sd>\d*\.\d+) \|", re.M)
NAMED = re.compile(r"`([^`]+)`")
PER_SET_BLOCKS = {"per-set-2016", "per-set-2016-encoders"}  # blocks whose lines hold every test set's figure


def tolerances(texts: list[str]) -> dict[str, dict]:
    """Run -> how far its figures may differ from the doc's and still be the same result, for an ALL
    (``"ALL"``: SEED_WIDTHS times the largest seed sd of its ALLs) and for a test set's figure (``"sets"``: of
    its sets), and the ``"block"`` they come from, read from the committed seed-study blocks, so a fresh clone's
    check has them before `make studies` has run. A run the seed study did not repeat has none: its figures
    must be exact. A run in two protocols' studies gets the larger."""
    found: dict[str, dict] = {}
    for text in texts:
        for block in BLOCK.finditer(text):
            if block["name"] in SEED_BLOCKS:
                for row in SEED_ROW.finditer(block["body"]):
                    run = found.setdefault(row["run"], {"ALL": 0.0, "sets": 0.0, "block": block["name"]})
                    if SEED_WIDTHS * float(row["sd"]) > run["ALL"]:
                        run.update(ALL=SEED_WIDTHS * float(row["sd"]), block=block["name"])
                    run["sets"] = max(run["sets"], SEED_WIDTHS * float(row["set_sd"]), run["ALL"])
    return found


def within(old: str, new: str, tolerance: float) -> bool:
    """The same text but for numbers, each within ``tolerance`` (plus half a unit of its last printed digit);
    a p value printed as a bound ("p < 0.001") counts as that number."""
    old, new = old.replace("< ", ""), new.replace("< ", "")
    if NUMBER.sub("#", old) != NUMBER.sub("#", new):
        return False
    pairs = list(zip(NUMBER.findall(old), NUMBER.findall(new)))
    value = lambda number: float(number.replace("−", "-"))
    unit = lambda number: 0.5 * 10 ** -len(number.partition(".")[2])
    return all(abs(value(a) - value(b)) <= tolerance + unit(a) + 1e-12 for a, b in pairs)


def tolerance_of(names, allowed: dict[str, dict], level: str) -> tuple[float, list[str]]:
    """The tolerance of a figure (``level`` ALL, or sets: a line of every test set's figure) naming these
    runs: the sum of theirs (a difference of two runs moves with both), and the runs that have one."""
    runs = [name for name in dict.fromkeys(names) if name in allowed]
    return sum(allowed[run][level] for run in runs), runs


# --- writing and checking -------------------------------------------------------------------------

@dataclass
class Outcome:
    text: str                                             # the file with every buildable mark rendered
    differences: list[str] = field(default_factory=list)  # "file:line: ..." per differing figure
    tolerated: list[str] = field(default_factory=list)    # the same, within the seed study's tolerance
    not_checked: list[str] = field(default_factory=list)  # marks whose files are not built
    checked: int = 0
    unmarked: list[int] = field(default_factory=list)     # lines with a decimal figure outside any mark


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def first_difference(old: str, new: str) -> str:
    """Both values of the first figure that differs between two lines, or both lines."""
    old_numbers, new_numbers = NUMBER.findall(old), NUMBER.findall(new)
    for a, b in zip(old_numbers, new_numbers):
        if a != b:
            return f"the doc has {a}, the build gives {b}"
    return f"the doc has {old.strip()!r}, the build gives {new.strip()!r}"


def render(text: str, path: str, trees: dict[str, Tree], allowed: dict[str, dict] | None = None) -> Outcome:
    """Every mark of ``text`` (the file ``path``) rendered from ``trees``, with what differs and what is not built.
    Inline figures first: they never span lines, so the blocks' line numbers stay those of the file.
    ``allowed`` (:func:`tolerances`): a figure or table line naming a run the seed study repeated may differ
    by that run's tolerance: it is listed as tolerated, not as a difference."""
    outcome, allowed = Outcome(text), allowed or {}

    def compare(where: str, old: str, new: str, names, first: str, level: str = "ALL") -> bool:
        """Record a differing figure or line (``first``: how it differs); True when it is a difference."""
        tolerance, runs = tolerance_of(names, allowed, level)
        if tolerance and within(old, new, tolerance):
            blocks = ", ".join(dict.fromkeys(allowed[run]["block"] for run in runs))
            outcome.tolerated.append(f"{where}: {first}: within {SEED_WIDTHS} × the seed sd of "
                                     f"{', '.join(runs)} ({tolerance:.4f}; block {blocks})")
            return False
        outcome.differences.append(f"{where}: {first}")
        return True

    def rendered(what: str, offset: int, make: Callable[[], str]) -> str | None:
        """make()'s text; None, with the mark listed as not built (a missing file) or as a difference (a
        file without the row it names: a typo must not hide), when it cannot be made."""
        where = f"{path}:{line_of(text, offset)}: {what}"
        try:
            value = make()
        except NotBuilt as missing:
            outcome.not_checked.append(f"{where}: not built: {missing}")
            return None
        except NotInBuild as missing:
            outcome.differences.append(f"{where}: {missing}")
            return None
        outcome.checked += 1
        return value

    def block(match: re.Match) -> str:
        name, body = match["name"], match["body"]
        if name not in BLOCKS:
            raise ValueError(f"{path}:{line_of(text, match.start())}: unknown generated block {name!r} "
                             f"(known: {', '.join(BLOCKS)})")
        tree_name, writer = BLOCKS[name]
        new = rendered(f"block {name}", match.start(), lambda: writer(trees[tree_name]).rstrip("\n") + "\n")
        if new is None:
            return match[0]
        first_line = line_of(text, match.start("body"))
        old_lines, new_lines = body.splitlines(), new.splitlines()
        for i, (old, fresh) in enumerate(zip(old_lines, new_lines)):
            if old != fresh and compare(f"{path}:{first_line + i}: block {name}", old, fresh, NAMED.findall(fresh),
                                        first_difference(old, fresh), "sets" if name in PER_SET_BLOCKS else "ALL"):
                break
        else:
            if len(old_lines) != len(new_lines):
                outcome.differences.append(f"{path}:{first_line}: block {name}: the doc has {len(old_lines)} lines, "
                                           f"the build gives {len(new_lines)}")
        return match[0].replace(body, new, 1) if body else match[0].replace("-->\n", "-->\n" + new, 1)

    def inline(match: re.Match) -> str:
        value = rendered(f"figure {match['key']}", match.start(), lambda: figure(match["key"], trees))
        if value is None:
            return match[0]
        if value != match["value"]:
            arguments = match["key"].split(":")[1:]
            level = "sets" if arguments[0].startswith("score") and not arguments[3].startswith("ALL") else "ALL"
            compare(f"{path}:{line_of(text, match.start())}: figure {match['key']}", match["value"], value,
                    arguments[1:], f"the doc has {match['value']}, the build gives {value}", level)
        return f"<!-- fig: {match['key']} -->{value}<!-- /fig -->"

    text = FIGURE.sub(inline, text)
    outcome.text = BLOCK.sub(block, text)
    outcome.unmarked = unmarked_lines(outcome.text)
    return outcome


def unmarked_lines(text: str) -> list[int]:
    """Lines holding a figure with three or more decimals outside every block and inline mark: prose
    the check does not cover (papers' figures, studies of earlier builds), counted so it stays visible."""
    blank = lambda match: "\n" * match[0].count("\n")  # keeps line numbers
    bare = FIGURE.sub("", BLOCK.sub(blank, text))
    return [number for number, line in enumerate(bare.splitlines(), 1) if DECIMAL.search(line)]


def trees_of(roots: dict[str, str | Path]) -> dict[str, Tree]:
    return {name: Tree(name, Path(root)) for name, root in roots.items()}
