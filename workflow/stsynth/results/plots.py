"""Every plot of the workflow, one function each (matplotlib, Agg backend): the report's and the
study rules' PNGs come from here."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..core.correlations import pearson


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_scatter(run: str, panels: list[tuple[str, np.ndarray, np.ndarray]], path: str | Path) -> None:
    """Predicted vs gold, one panel per test set (scored pairs only)."""
    plt = _pyplot()
    columns = min(4, len(panels))
    rows = -(-len(panels) // columns)
    figure, axes = plt.subplots(rows, columns, figsize=(3.2 * columns, 3.0 * rows), squeeze=False)
    for axis, (name, gold, predicted) in zip(axes.flat, panels):
        axis.scatter(gold, predicted, s=6, alpha=0.5)
        axis.set_title(f"{name}\nr = {pearson(predicted, gold):.3f}", fontsize=9)
        axis.set_xlabel("gold")
        axis.set_ylabel("predicted")
        axis.set_xlim(-0.2, 5.2)
    for axis in list(axes.flat)[len(panels) :]:
        axis.axis("off")
    figure.suptitle(run)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def plot_importances(table: pd.DataFrame, path: str | Path, title: str) -> None:
    """Gini importance per feature, coloured by feature group (stsynth.dcu2016.fusion.importances)."""
    plt = _pyplot()
    ranked = table.sort_values("importance")
    groups = list(dict.fromkeys(table.sort_values("importance", ascending=False)["group"]))
    colours = {group: plt.get_cmap("tab20")(i % 20) for i, group in enumerate(groups)}
    figure, axis = plt.subplots(figsize=(7, 0.22 * len(ranked) + 1.2))
    axis.barh(ranked["feature"], ranked["importance"], color=[colours[g] for g in ranked["group"]])
    axis.set_xlabel("Gini importance (impurity decrease, sums to 1)")
    axis.set_title(title)
    axis.legend(
        handles=[plt.Rectangle((0, 0), 1, 1, color=colours[g]) for g in groups],
        labels=groups,
        fontsize=7,
        loc="lower right",
    )
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def plot_sweep(table: pd.DataFrame, path: str | Path, threshold: float | None = None) -> None:
    """Dev Pearson per gold threshold (stsynth.dcu2016.paragram_studies.threshold_sweep), training pairs dashed;
    ``threshold``: the one in use (config paraphrase_pairs.threshold; the paper's is 3.8)."""
    plt = _pyplot()
    figure, left = plt.subplots(figsize=(6, 3.5))
    for column in [c for c in table.columns if c.startswith("dev_")]:
        left.plot(
            table["threshold"],
            table[column],
            marker="o" if column == "dev_ALL" else None,
            linewidth=2 if column == "dev_ALL" else 0.8,
            label=column.removeprefix("dev_"),
        )
    if threshold is not None:
        left.axvline(threshold, color="gray", linestyle=":", label=f"in use ({threshold}; paper 3.8)")
    left.set_xlabel("gold threshold t (training pairs: gold ≥ t)")
    left.set_ylabel("dev Pearson r")
    left.legend(fontsize=7)
    right = left.twinx()
    right.plot(table["threshold"], table["pairs"], linestyle="--", color="black", alpha=0.4)
    right.set_ylabel("training pairs (dashed)")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def plot_training(epochs: dict[str, pd.DataFrame], path: str | Path) -> None:
    """Per-epoch mean batch loss and dev ALL of paragram models (their epochs tables)."""
    plt = _pyplot()
    figure, (loss, dev) = plt.subplots(1, 2, figsize=(10, 3.5))
    for model, table in epochs.items():
        trained = table[table["epoch"] > 0]
        if len(trained):
            loss.plot(trained["epoch"], trained["loss"], marker="o", label=model)
        if "dev_ALL" in table.columns:
            dev.plot(table["epoch"], table["dev_ALL"], marker="o", label=model)
    loss.set(xlabel="epoch", ylabel="mean batch loss", title="training loss")
    dev.set(xlabel="epoch (0 = untuned)", ylabel="Pearson r", title="dev ALL")
    for axis in (loss, dev):
        if axis.lines:
            axis.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def plot_leaderboard(board: pd.DataFrame, path: str | Path) -> None:
    """The leaderboard's main score per task, one bar per encoder (stsynth.eval.mteb_results.leaderboard)."""
    plt = _pyplot()
    tasks = [c[: -len(" main")] for c in board.columns if c.endswith(" main")]
    width = 0.8 / max(1, len(board))
    figure, axis = plt.subplots(figsize=(max(6.0, 1.1 * len(tasks) + 2), 3.6))
    for index, (_, row) in enumerate(board.iterrows()):
        axis.bar(np.arange(len(tasks)) + index * width, [row[f"{t} main"] for t in tasks], width, label=row["encoder"])
    axis.set_xticks(np.arange(len(tasks)) + width * (len(board) - 1) / 2, tasks, fontsize=8)
    axis.set_ylabel("Spearman of the cosine (MTEB main score)")
    lowest = np.nanmin(board[[f"{t} main" for t in tasks]].to_numpy(dtype=float))
    axis.set_ylim(max(0.0, lowest - 0.1), 1.0)
    axis.legend(fontsize=8, loc="lower right")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
