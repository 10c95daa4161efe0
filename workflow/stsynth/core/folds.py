"""Fold and seed models: the one owner of their names.

``<model>.fold<i>of<k>`` is ``<model>`` (a paragram model or a tuned encoder) trained without the
pairs of fold ``i`` of ``k`` (stsynth.core.paraphrase_pairs.fold_of), for the out-of-fold similarities
of the fusion's training rows. :func:`fold_names` builds the names, :func:`fold_model` parses one
(:func:`base_model`: its model only), :func:`with_fold_models` matches them in a wildcard constraint.

``<model>.seed<s>`` is ``<model>`` with its ``seed`` set to ``s`` (the seed study, stsynth.results.seed_study); its
fold models are ``<model>.seed<s>.fold<i>of<k>``. :func:`seed_name` builds the name, :func:`seed_model`
parses one, :func:`with_seed_models` matches them.
"""

from __future__ import annotations

import re

FOLD_SUFFIX = r"\.fold(\d+)of(\d+)"
FOLD_NAME = re.compile(r"(.+)" + FOLD_SUFFIX)
SEED_SUFFIX = r"\.seed(\d+)"
SEED_NAME = re.compile(r"(.+)" + SEED_SUFFIX)


def fold_names(model: str, folds: int) -> list[str]:
    """The k fold models of ``model``: ``<model>.fold<i>of<k>`` for i in 0..k-1."""
    return [f"{model}.fold{fold}of{folds}" for fold in range(folds)]


def fold_model(name: str, kind: str) -> tuple[str, dict | None]:
    """``<model>.fold<i>of<k>`` -> (``<model>``, holdout ``{folds: k, fold: i}``); any other name ->
    (name, None). ``kind`` names what the model is in the error."""
    match = FOLD_NAME.fullmatch(name)
    if not match:
        return name, None
    fold, folds = int(match.group(2)), int(match.group(3))
    if not 0 <= fold < folds:
        raise ValueError(f"{kind} {name}: fold {fold} is not in 0..{folds - 1}")
    return match.group(1), {"folds": folds, "fold": fold}


def seed_name(model: str, seed: int | None) -> str:
    """``<model>`` trained with seed ``seed`` (None: the model as configured)."""
    return model if seed is None else f"{model}.seed{seed}"


def seed_model(name: str) -> tuple[str, int | None]:
    """``<model>.seed<s>`` -> (``<model>``, s); any other name -> (name, None)."""
    match = SEED_NAME.fullmatch(name)
    return (match.group(1), int(match.group(2))) if match else (name, None)


def base_model(name: str) -> str:
    """The model a fold or seed model's name is of (``<model>``), any other name as it is; never raises
    (config checks)."""
    match = FOLD_NAME.fullmatch(name)
    return seed_model(match.group(1) if match else name)[0]


def with_fold_models(alternatives: str) -> str:
    """A wildcard constraint: one of ``alternatives`` (a regex), or one of its seed or fold models' names."""
    return rf"({alternatives})({SEED_SUFFIX})?({FOLD_SUFFIX})?"


def with_seed_models(alternatives: str) -> str:
    """A wildcard constraint: one of ``alternatives`` (a regex), or one of its seed models' names (a model
    that has no fold models: a paraphrase-embedding model, a head run's, the skip-gram vectors EE and W2V)."""
    return rf"({alternatives})({SEED_SUFFIX})?"
