"""The blocks of docs/results.md on what goes beyond the papers: the cross-encoder's dev grid and its runs on the
2016 and the 2017 protocols (`make cross-encoder`, `make sts2017-cross`; stsynth.encoders.cross), and
all-mpnet-base-v2 on the 2017 protocol (`make sts2017-mpnet`). doc_blocks.BLOCKS names them.
"""

from __future__ import annotations

import math

from doc_tree import CHECKOUT_CONFIG, Tree, ci, difference
from stsynth.core.paths import epochs_path
from stsynth.core.tables import markdown_rows
from stsynth.encoders.cross import CROSS_LOSSES
from stsynth.pipeline.protocol import model_sets

CROSS_OVERLAY = CHECKOUT_CONFIG.parent / "config" / "cross-encoder.yaml"  # the grid's models live in the overlay

# the runs the cross-encoder is read beside: the best single model and fusion of `all` before it, and its own
CROSS_RUNS_2016 = ["encoder-sts", "fusion-tuned", "cross-encoder", "fusion-cross"]
CROSS_RUNS_2017 = ["encoder", "encoder-sts", "fusion-encoder", "fusion-tuned", "cross-encoder", "fusion-cross"]
# all-mpnet-base-v2 beside MiniLM's zero-shot run and the fusions it joins, and the differences that say so
MPNET_RUNS_2017 = ["encoder", "fusion-encoder", "fusion-tuned", "mpnet", "fusion-mpnet"]
MPNET_PAIRS_2017 = [("mpnet", "encoder"), ("fusion-mpnet", "fusion-encoder"), ("fusion-mpnet", "fusion-tuned")]


def cross_grid_models(config: dict) -> list[str]:
    """The cross-encoders of the dev grid: tuned with a cross loss and scored on dev years."""
    tuning = config["encoder"]["tuning"]
    return [
        name
        for name, entry in tuning["models"].items()
        if {**tuning["defaults"], **entry}["loss"] in CROSS_LOSSES
        and model_sets(config, name, entry.get("protocol"))["dev_years"]
    ]


def epoch_grid(tables: dict, settings: dict, with_start: bool = False) -> str:
    """A dev grid's rows: per model (``tables``: model -> its epochs table) its settings' columns (``settings``:
    column -> model -> cell), with ``with_start`` its dev ALL before tuning, then its dev ALL (Pearson) after every
    epoch, the grid's best in bold; a model that ran fewer epochs leaves its last cells empty."""
    best = max(table["dev_ALL"].iloc[1:].max() for table in tables.values())
    epochs = max(len(table) for table in tables.values()) - 1
    rows = []
    for model, table in tables.items():
        cells = [f"**{v:.4f}**" if math.isclose(v, best) else f"{v:.4f}" for v in table["dev_ALL"].iloc[1:]]
        start = [f"{table['dev_ALL'].iat[0]:.4f}"] if with_start else []
        rows.append(
            [f"`{model}`", *[cell(model) for cell in settings.values()], *start, *cells, *[""] * (epochs - len(cells))]
        )
    header = ["model", *settings, *(["start"] if with_start else []), *[f"epoch {e}" for e in range(1, epochs + 1)]]
    return markdown_rows(header, rows)


def cross_encoder_dev(tree: Tree) -> str:
    """The dev grid (its models: config/cross-encoder.yaml over the tree's config): each cross-encoder's dev ALL
    (Pearson) after every epoch, the best of the grid in bold. Epoch 0 is left out: its head is untrained."""
    config = tree.config(CROSS_OVERLAY)
    tuning = config["encoder"]["tuning"]
    setting = lambda model: {**tuning["defaults"], **tuning["models"][model]}
    tables = {model: tree.table(epochs_path(model)) for model in cross_grid_models(config)}
    return epoch_grid(
        tables,
        {
            "loss": lambda model: setting(model)["loss"],
            "learning rate": lambda model: f"{setting(model)['learning_rate']:g}",
        },
    )


def cross_encoder_2016(tree: Tree) -> str:
    """STS 2016: the cross-encoder and its fusion beside `all`'s best single model and fusion."""
    rows = [
        [
            f"`{run}`",
            ci(tree.score(run, "en", "ALL")),
            ci(tree.score(run, "en", "ALL"), "spearman"),
            ci(tree.score(run, "es-en", "ALL")),
        ]
        for run in CROSS_RUNS_2016
    ]
    return markdown_rows(["run", "en ALL [95% CI]", "en ALL Spearman [95% CI]", "es-en ALL [95% CI]"], rows, "llll")


def track5_rows(tree: Tree, runs: list[str]) -> str:
    """STS 2017 track 5 (the 2017 protocol): each run's Pearson and Spearman with their intervals."""
    rows = [
        [f"`{run}`", ci(tree.score(run, "en", "ALL")), ci(tree.score(run, "en", "ALL"), "spearman")] for run in runs
    ]
    return markdown_rows(["run", "track 5 Pearson [95% CI]", "track 5 Spearman [95% CI]"], rows, "lll")


def cross_encoder_2017(tree: Tree) -> str:
    """STS 2017 track 5: the cross-encoder and its fusion beside the 2016 system's runs."""
    return track5_rows(tree, CROSS_RUNS_2017)


def mpnet_2017(tree: Tree) -> str:
    """STS 2017 track 5: all-mpnet-base-v2 zero-shot and in the fusion, beside all-MiniLM-L6-v2's runs, then the
    paired differences (a tree without the mpnet runs is not built: their scores are read first)."""
    scores = track5_rows(tree, MPNET_RUNS_2017)
    rows = [
        [
            f"`{run}` − `{against}`",
            *(difference(tree.comparison(run, against, "en", m)) for m in ("pearson", "spearman")),
        ]
        for run, against in MPNET_PAIRS_2017
    ]
    return scores + "\n" + markdown_rows(["difference", "Pearson [95% CI], p", "Spearman [95% CI], p"], rows, "lll")
