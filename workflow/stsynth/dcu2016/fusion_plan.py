"""What a fusion run reads, worked out from config.yaml: its features, its encoders, and per split
(dev_train, dev_validate, train, test) one :class:`SplitEntry` per dataset; and which encoder
similarity tables the runs read (one job per encoder writes them).

Built once when the workflow is parsed: rule inputs take the entries' files, rule params their
plain form (:func:`split_params`), the job reads them back (:func:`splits_from_params`,
stsynth.dcu2016.fusion.load_split).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.datasets import Dataset, select
from ..core.folds import fold_names, seed_name
from ..core.paths import encoder_path, features_path, pairs_path, similarity_path
from ..encoders.encoder import is_tuned
from ..pipeline.protocol import split_sets
from ..pipeline.runs import Run, runs_of


def fusion_features(config: dict, run: Run) -> list[str]:
    """Feature names of a fusion run, in group order, then those of its more encoders
    (:func:`more_encoder_features`)."""
    names = [name for group in run.groups for name in config["fusion"]["groups"][group]]
    return [*names, *(name for feature in names for name in more_encoder_features(run).get(feature, []))]


def more_encoder_features(run: Run) -> dict[str, list[str]]:
    """An encoder feature (``encoder``, ``encoder_token_f1``) -> the same column of each of the run's more encoders,
    named ``<column>@<final encoder>`` (one name for both protocols: the dev search and the fit read one list)."""
    from ..encoders.encoder import ENCODER_FEATURES

    return {column: [f"{column}@{final}" for final, _ in run.more_encoders] for column in ENCODER_FEATURES}


FOLD_SOURCES = ("paragram", "encoder")  # what a fusion run may read out of fold, by name
# The splits whose every line the fusion reads (it writes a prediction per line of a test set); of the
# other splits, which are only fitted and scored, it reads the scored lines.
EVERY_LINE_SPLITS = ("test",)


def uses_encoder(config: dict, run: Run) -> bool:
    from ..encoders.encoder import ENCODER_FEATURES

    return bool(set(fusion_features(config, run)) & set(ENCODER_FEATURES))


def fusion_encoders(
    config: dict, run: Run, protocol: str, out_of_fold: bool, in_sample: str | None = None
) -> list[str]:
    """The encoders whose similarity tables a fusion split reads (none when the run has no encoder
    feature): the run's ``protocol`` encoder, or, out of fold, a tuned encoder's k fold models
    (k = fusion.encoder_folds; 0, or a named encoder, means in-sample)."""
    if not uses_encoder(config, run):
        return []
    encoder = run.encoder[0 if protocol == "final" else 1]
    folds = config["fusion"].get("encoder_folds", 0) if out_of_fold and in_sample != "encoder" else 0
    if folds and is_tuned(config, encoder):
        return fold_names(encoder, folds)
    return [encoder]


@dataclass(frozen=True)
class SplitEntry:
    """What the fusion reads for one dataset of a split: its pair table, its feature table, its encoder
    similarity tables (none, one, or a tuned encoder's k fold tables: then out of fold), per
    paragram feature one similarity table or k fold tables, and whether only its scored lines are read
    (``scored_only``: a split not in :data:`EVERY_LINE_SPLITS`). Built once by :func:`fusion_split`; rule
    inputs take :meth:`files`, rule params :meth:`as_param` (a plain dict: Snakemake's params trigger
    compares those), the job :meth:`from_param`."""

    year: int
    dataset: str
    pairs: str
    features: str
    encoder: tuple[str, ...] = ()
    paragram: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (feature, tables), in feature order
    scored_only: bool = False
    more_encoders: tuple[tuple[str, str], ...] = ()  # (the name its columns carry, its table): a run's more encoders

    def files(self) -> list[str]:
        return [
            self.pairs,
            self.features,
            *self.encoder,
            *(path for _, path in self.more_encoders),
            *(path for _, paths in self.paragram for path in paths),
        ]

    def as_param(self) -> dict:
        return {
            "year": self.year,
            "dataset": self.dataset,
            "pairs": self.pairs,
            "features": self.features,
            "encoder": list(self.encoder),
            "paragram": {feature: list(paths) for feature, paths in self.paragram},
            "scored_only": self.scored_only,
            **({"more_encoders": [list(pair) for pair in self.more_encoders]} if self.more_encoders else {}),
        }

    @classmethod
    def from_param(cls, entry: dict) -> "SplitEntry":
        return cls(
            entry["year"],
            entry["dataset"],
            entry["pairs"],
            entry["features"],
            tuple(entry["encoder"]),
            tuple((feature, tuple(paths)) for feature, paths in entry["paragram"].items()),
            entry["scored_only"],
            tuple(tuple(pair) for pair in entry.get("more_encoders", ())),
        )


def fusion_split(
    config: dict,
    run: Run,
    datasets: list[Dataset],
    protocol: str,
    out_of_fold: bool,
    in_sample: str | None = None,
    scored_only: bool = False,
) -> list[SplitEntry]:
    """What the fusion reads per dataset (:class:`SplitEntry`): encoder similarities
    (:func:`fusion_encoders`) and per paragram feature the cosines of its ``protocol`` model (final or
    dev), or with out_of_fold the k fold models' (k = fusion.folds; 0 means in-sample).
    ``in_sample``: one of :data:`FOLD_SOURCES` read in-sample even when out_of_fold; ``scored_only``: the
    split reads the datasets' scored lines only."""
    fusion = config["fusion"]
    names = fusion_features(config, run)
    folds = fusion["folds"] if out_of_fold and in_sample != "paragram" else 0
    encoders = fusion_encoders(config, run, protocol, out_of_fold, in_sample)
    more = [(final, dev) for final, dev in run.more_encoders] if uses_encoder(config, run) else []
    split = []
    for d in datasets:
        paragram = []
        for feature, models in fusion["paragram"].items():
            if feature in names:
                model = seed_name(models[protocol], run.seed)
                paragram.append(
                    (
                        feature,
                        tuple(similarity_path(fold, d) for fold in fold_names(model, folds))
                        if folds
                        else (similarity_path(model, d),),
                    )
                )
        split.append(
            SplitEntry(
                d.year,
                d.name,
                pairs_path(d),
                features_path(d),
                tuple(encoder_path(encoder, d) for encoder in encoders),
                tuple(paragram),
                scored_only,
                tuple((final, encoder_path(final if protocol == "final" else dev, d)) for final, dev in more),
            )
        )
    return split


def fusion_settings(config: dict, run: Run) -> dict:
    """config ``fusion`` as a run's jobs read it: a seed-study run's ``seed`` is its own; a run's more encoders'
    columns in the groups of the columns they repeat (importances and the ablation read them)."""
    splits = split_sets(config)
    # the splits' years under the names the fusion's jobs have always read (their params, so their rerun triggers, stay)
    settings = {
        **config["fusion"],
        "dev": {"train_years": splits["dev_train"], "validate_years": splits["dev_validate"]},
        "train_years": splits["final"],
    }
    settings = {**settings, "seed": run.seed} if run.seed is not None else settings
    if not run.more_encoders:
        return settings
    more = more_encoder_features(run)
    groups = {
        group: [*names, *(name for feature in names for name in more.get(feature, []))]
        for group, names in settings["groups"].items()
    }
    return {**settings, "groups": groups}


def split_params(splits: dict[str, list[SplitEntry]]) -> dict[str, list[dict]]:
    """Splits as rule params (plain values)."""
    return {name: [entry.as_param() for entry in entries] for name, entries in splits.items()}


def splits_from_params(params: dict[str, list[dict]]) -> dict[str, list[SplitEntry]]:
    """The job's side of :func:`split_params`."""
    return {name: [SplitEntry.from_param(entry) for entry in entries] for name, entries in params.items()}


def fusion_split_sets(config: dict, datasets: list[Dataset], in_sample: str | None = None) -> dict[str, tuple]:
    """split name -> (datasets, protocol, out_of_fold), from the protocol's sets (stsynth.pipeline.protocol.split_sets):
    dev_train (out of fold), dev_validate (dev models), train (the final sets; out of fold) and test (final models);
    with in_sample only the two training splits."""
    splits = split_sets(config)
    train = select(datasets, role="train")
    dev_train = select(train, years=splits["dev_train"])
    final_train = select(train, years=splits["final"])
    if in_sample:
        return {"train": (final_train, "final", True), "dev_train": (dev_train, "dev", True)}
    return {
        "dev_train": (dev_train, "dev", True),
        "dev_validate": (select(train, years=splits["dev_validate"]), "dev", False),
        "train": (final_train, "final", True),
        "test": (select(datasets, role="test"), "final", False),
    }


def fusion_splits(
    config: dict, run: Run, datasets: list[Dataset], in_sample: str | None = None
) -> dict[str, list[SplitEntry]]:
    """Every split of :func:`fusion_split_sets` as :func:`fusion_split` entries; with in_sample (a
    source of :func:`fold_sources`) the two training splits with that source's similarities
    in-sample instead (the ablation's comparison row)."""
    return {
        name: fusion_split(config, run, sets, protocol, out_of_fold, in_sample, name not in EVERY_LINE_SPLITS)
        for name, (sets, protocol, out_of_fold) in fusion_split_sets(config, datasets, in_sample).items()
    }


def fold_sources(config: dict, run: Run) -> list[str]:
    """What the run's training rows read out of fold: paragram cosines, tuned-encoder similarities."""
    names = fusion_features(config, run)
    sources = []
    if config["fusion"]["folds"] > 0 and any(f in names for f in config["fusion"]["paragram"]):
        sources.append("paragram")
    if (
        uses_encoder(config, run)
        and config["fusion"].get("encoder_folds", 0) > 0
        and any(is_tuned(config, encoder) for encoder in run.encoder)
    ):
        sources.append("encoder")
    return sources


def split_files(split: list[SplitEntry]) -> list[str]:
    """Every file a split names, in order, once."""
    return list(dict.fromkeys(path for entry in split for path in entry.files()))


def encoder_table_sets(config: dict, datasets: list[Dataset]) -> dict[str, list[tuple[Dataset, bool]]]:
    """Encoder (named, tuned or a tuned fold model) -> (dataset, every line) for each dataset whose
    similarity table something reads: its encoder runs' test sets, and every split of the fusion runs
    that use it (fold models, in-sample comparison rows). ``every line`` is False where all readers read
    the scored lines only (:data:`EVERY_LINE_SPLITS`); those are all the job encodes. One job per encoder
    writes them (it loads the model once)."""
    wanted: dict[str, dict[int, bool]] = {}  # encoder -> dataset position -> every line

    def read(encoder: str, sets: list[Dataset], every_line: bool) -> None:
        lines = wanted.setdefault(encoder, {})
        for i in map(datasets.index, sets):
            lines[i] = lines.get(i, False) or every_line

    for run in runs_of(config).values():
        if run.stage == "encoder":  # its predictions: every line of a test set
            read(run.encoder[0], select(datasets, role="test"), True)
        elif run.stage == "fusion":
            for in_sample in (None, *fold_sources(config, run)):
                for name, (sets, protocol, out_of_fold) in fusion_split_sets(config, datasets, in_sample).items():
                    for encoder in fusion_encoders(config, run, protocol, out_of_fold, in_sample):
                        read(encoder, sets, name in EVERY_LINE_SPLITS)
                    if uses_encoder(config, run):  # its more encoders: in-sample (config check)
                        for pair in run.more_encoders:
                            read(pair[0 if protocol == "final" else 1], sets, name in EVERY_LINE_SPLITS)
    return {encoder: [(datasets[i], lines[i]) for i in sorted(lines)] for encoder, lines in wanted.items()}


def encoder_table_jobs(
    config: dict, datasets: list[Dataset]
) -> dict[tuple[str, str | None], list[tuple[Dataset, bool]]]:
    """(encoder, part) -> the (dataset, every line) of :func:`encoder_table_sets` one similarity job writes, by
    :attr:`~stsynth.core.datasets.Dataset.job_part` as every per-set rule: part None, the sets models are fitted
    and chosen on (read on their scored lines); a group name, that group's test sets (every line). A test set
    added beside a protocol is a job of its own, so every other table, and every model fitted on them, is left
    as it is."""
    jobs: dict[tuple[str, str | None], list[tuple[Dataset, bool]]] = {}
    for encoder, sets in encoder_table_sets(config, datasets).items():
        for dataset, every_line in sets:
            jobs.setdefault((encoder, dataset.job_part), []).append((dataset, every_line))
    return jobs
