"""The blocks of docs/results.md that hold the DCU paper's tables (Hokamp & Arora 2016), the organizers'
baseline, the 2016 ranks and the MT comparison: each table's printed figures (published_figures.yaml) beside
ours from the `all` tree. doc_blocks.BLOCKS names them.
"""

from __future__ import annotations

from doc_tree import EN_SETS, ES_EN_SETS, PAPER_RUNS, RUNS_2016, Tree, paper
from stsynth.core.paths import STUDY_TABLES, fusion_path, paragram_result_path
from stsynth.core.tables import markdown_rows
from stsynth.results.report_sections import PUBLISHED
from stsynth.translation.mt_quality import comparison_table_markdown


def dcu_table1(tree: Tree) -> str:
    """DCU Table 1 (2015 as dev): the 2015 model, raw paragram, the two fused; ours from rule fusion_dev_table."""
    table = tree.table(STUDY_TABLES["dev_table"]).set_index("system")
    printed = PUBLISHED["dcu_tables"]["table1"]
    ours = {
        "DCU 2015 model": "features only (GBR)",
        "Paragram Raw": "paragram raw (5 x cosine)",
        "Paragram + DCU 2015": "features + paragram (GBR)",
    }
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
    return markdown_rows(
        [
            "STS 2016 es-en",
            "task-internal: paper",
            "ours",
            "synthetic: paper",
            "ours",
            "fusion: ours (not submitted)",
            "best",
        ],
        rows,
    )


def dcu_table4(tree: Tree) -> str:
    printed = PUBLISHED["dcu_tables"]["table4"]["rows"]
    ours = tree.table(fusion_path("fusion", "importances.parquet")).sort_values("importance", ascending=False)
    rows = [
        [rank + 1, f"{p['feature']} ({p['description']})", paper(p["gini"]), f"`{o.feature}` ({o.group})", o.importance]
        for rank, (p, o) in enumerate(zip(printed, ours.head(len(printed)).itertuples()))
    ]
    return markdown_rows(
        ["rank", "paper's feature", "Gini", "our feature (group)", "Gini (`fusion`)"], rows, "rllll", 3
    )


def dcu_table5(tree: Tree) -> str:
    printed = PUBLISHED["dcu_tables"]["table5"]["rows"]
    ours = tree.table(paragram_result_path("task-internal", "unknown_words.parquet"))
    ours = ours[ours["year"] == PUBLISHED["test_year"]].set_index("dataset")
    rows = [
        [
            dataset,
            paper(printed.get(dataset)),
            int(ours.loc[dataset, "tokens"]),
            int(ours.loc[dataset, "unknown"]),
            f"{ours.loc[dataset, 'percent']:.2f}",
        ]
        for dataset in ours.index
    ]
    return markdown_rows(["STS 2016 set", "paper: % unknown", "our tokens", "our unknown", "our % unknown"], rows)


def dcu_table6(tree: Tree) -> str:
    """The fusion's features as its config groups them, in the config's order (not by importance, which moves
    with the training's last digits: two features of one group swap between CPUs)."""
    printed = PUBLISHED["dcu_tables"]["table6"]
    used = set(tree.table(fusion_path("fusion", "importances.parquet"))["feature"])
    groups = {
        group: [f for f in features if f in used] for group, features in tree.config()["fusion"]["groups"].items()
    }
    rows = [[group, ", ".join(f"`{f}`" for f in features)] for group, features in groups.items() if features]
    return (
        "Paper, our features: "
        + printed["ours"]
        + ". TakeLab: "
        + printed["takelab"]
        + ".\n\n"
        + markdown_rows(["our group", f"our features (`fusion`, {len(used)})"], rows, "ll")
    )


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


def baseline_2016(tree: Tree) -> str:
    """The organizers' baseline per set beside their published figures (task_2016.baseline_en)."""
    published = PUBLISHED["task_2016"]["baseline_en"]
    rows = []
    for track, sets in (("en", EN_SETS), ("es-en", ES_EN_SETS)):
        for dataset in [*sets, "ALL"]:
            row = tree.score("baseline", track, dataset)
            rows.append(
                [
                    track,
                    f"**{dataset}**" if dataset == "ALL" else dataset,
                    int(row["pairs"]),
                    row["pearson"],
                    paper(published.get(dataset)) if track == "en" else "",
                ]
            )
    return markdown_rows(["track", "dataset", "pairs", "Pearson (ours)", "the organizers'"], rows, "llrrr", 5)


def mt_comparison(tree: Tree) -> str:
    """The es-en runs with Apertium's translation of s1 and with the third party's (rule crosslingual_mt_comparison)."""
    return comparison_table_markdown(tree.table(STUDY_TABLES["mt_comparison"]))
