"""Protocols: what the final models learn from, what chooses their settings, what is tested once.

config ``protocol`` names one of ``protocols``; each names its datasets by year, group or ``year/name``::

    semeval2016: {train: [2012, 2013, 2014], dev: [2015], refit_on_dev: true, test: [2016]}

* ``train``: the dev protocol's training sets: every model's dev-protocol twin learns from them;
* ``dev``: what chooses the settings (the twins are scored there, the fusion and head searches validate there);
* ``refit_on_dev``: the final models learn from train and dev (the papers' protocols); false: from train alone;
* ``test``: scored once, by the final models; the synthetic round trips read these sentences and no others;
* ``dev_round_trips``: the dev sets whose round trips the synthetic twins read (default: every dev set);
* ``decisions``: whose recorded decisions the fusions read (default: the protocol's own), see :func:`decisions_path`;
* ``tracks``: the tracks it takes (default: every one; semeval2017 is English only).

:func:`resolve` is the one place that turns a protocol and the models declared once (config.yaml, no years) into
what every stage reads: each dataset's role (``train``: its gold may be read; ``test``: predicted and scored), each
model's dev-protocol twin ``<model>-dev`` (the same settings, trained on ``train``, scored on ``dev``; a study's grid
cell ``<model>-<cell>-dev``), and the fusion runs' recorded choices (the decisions file). It writes no year into the
config: the sets each model learns from and is scored on, the fusion's and the head's splits, the source
comparison's dev sets, the event corpus's pairs, the gold pair tables' sets and the threshold sweep's are read from
the protocol itself (:func:`model_sets`, :func:`split_sets`, :func:`event_corpus_settings`, :func:`gold_tables`,
:func:`sweep_settings`). A dataset the
protocol does not name is left out, unless its entry says ``role: test``: a set added beside the protocol,
predicted and scored by the final models and read by no model (the synthetic round trips included), so that no
figure of the protocol's own sets moves.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..core import yaml_text
from ..core.datasets import with_year
from ..core.paths import PUBLISHED_FIGURES
from ..core.wording import counted

TWIN_SUFFIX = "-dev"
GOLD_TABLE_DEFAULT = {"task-internal": {}}  # paraphrase_pairs.tables when the config names none
SYNTHETIC = "synthetic"  # the round trips of the protocol's test sets (stsynth.translation.synthetic)


class ProtocolError(ValueError):
    """A protocol that names no dataset, or names one twice over its parts."""


@dataclass(frozen=True)
class Protocol:
    name: str
    train: tuple = ()
    dev: tuple = ()
    test: tuple = ()
    refit_on_dev: bool = False
    dev_round_trips: tuple | None = None
    decisions: str | None = None
    tracks: tuple | None = None

    @classmethod
    def from_config(cls, config: dict) -> "Protocol":
        name = config["protocol"]
        entry = config["protocols"][name]
        return cls(
            name,
            tuple(entry.get("train", ())),
            tuple(entry.get("dev", ())),
            tuple(entry["test"]),
            bool(entry.get("refit_on_dev", False)),
            tuple(entry["dev_round_trips"]) if entry.get("dev_round_trips") is not None else None,
            entry.get("decisions"),
            tuple(entry["tracks"]) if entry.get("tracks") else None,
        )

    @property
    def final(self) -> list:
        """What the final models learn from: train, and dev with ``refit_on_dev``."""
        return [*self.train, *self.dev] if self.refit_on_dev else list(self.train)

    @property
    def dev_train(self) -> list:
        """What the dev-protocol twins learn from."""
        return list(self.train)

    @property
    def round_trip_sets(self) -> list:
        return list(self.dev_round_trips if self.dev_round_trips is not None else self.dev)

    @property
    def parts(self) -> dict[str, tuple]:
        return {"train": self.train, "dev": self.dev, "test": self.test}


def sets_in_words(selection) -> str:
    """A part of a protocol as a title names it: a run of consecutive years as a range (``2012–2014``), anything
    else as given (``2015``, ``koala-dev``, ``2016, 2017/track5``)."""
    values, words = list(selection), []
    while values:
        first = last = values.pop(0)
        while isinstance(last, int) and values and values[0] == last + 1:
            last = values.pop(0)
        words.append(f"{first}–{last}" if last != first else str(first))
    return ", ".join(words)


def protocol_words(config: dict) -> dict[str, str]:
    """The protocol in force as the reports' titles name it: its name, the sets the dev-protocol twins learn from
    (``train``), those that choose (``dev``) and those tested once (``test``)."""
    protocol = Protocol.from_config(config)
    return {
        "name": protocol.name,
        "train": sets_in_words(protocol.dev_train),
        "dev": sets_in_words(protocol.dev),
        "test": sets_in_words(protocol.test),
    }


def split_sets(config: dict) -> dict[str, list]:
    """The sets each split of a fusion or head run reads, from the protocol in force: ``dev_train`` (what the
    dev-protocol twins learn from), ``dev_validate`` (what chooses) and ``final`` (what the final models learn
    from)."""
    protocol = Protocol.from_config(config)
    return {"dev_train": protocol.dev_train, "dev_validate": list(protocol.dev), "final": protocol.final}


def event_corpus_settings(config: dict) -> dict:
    """config ``events.corpus`` as the event corpus job reads it: ``pairs: true`` (the default) becomes
    ``pair_years``, the protocol's sets whose pairs join the corpus (the dev-protocol twins' sets, so that no
    dev sentence is in it); false: none."""
    corpus = {key: value for key, value in config["events"]["corpus"].items() if key != "pairs"}
    pairs = config["events"]["corpus"].get("pairs", True)
    return {**corpus, "pair_years": split_sets(config)["dev_train"] if pairs else []}


def gold_table_splits(config: dict) -> dict[str, tuple[str, dict]]:
    """Every gold-filtered paraphrase pair table -> (the :func:`split_sets` split it reads, its declared entry):
    each declared table (``paraphrase_pairs.tables``) the final sets, its twin ``<table>-dev`` the train sets."""
    declared = config.get("paraphrase_pairs", {}).get("tables") or GOLD_TABLE_DEFAULT
    return {
        name: (split, entry)
        for table, entry in declared.items()
        for name, split in ((table, "final"), (twin_name(table), "dev_train"))
    }


def gold_tables(config: dict) -> dict[str, dict]:
    """Every gold-filtered paraphrase pair table (:func:`gold_table_splits`) with the protocol's sets it reads."""
    splits = split_sets(config)
    return {name: {"years": splits[split], **entry} for name, (split, entry) in gold_table_splits(config).items()}


def sweep_settings(config: dict) -> dict:
    """config ``paraphrase_pairs.sweep`` with the sets whose gold pairs it filters: the protocol's train sets."""
    return {**config["paraphrase_pairs"]["sweep"], "years": split_sets(config)["dev_train"]}


def model_sets(config: dict, name: str, protocol: str | None = None) -> dict[str, list]:
    """What a trained model reads of the protocol in force (or of its own ``protocol``), as its settings name it:
    ``gold_years``, the sets whose gold it learns from, and ``dev_years``, those it is scored on after every epoch.
    A dev-protocol twin (its name ends in :data:`TWIN_SUFFIX`: no declared model's may) learns from the train sets
    and is scored on the dev sets; a final model learns from the final sets and is scored on none."""
    splits = Protocol.from_config({**config, "protocol": protocol} if protocol else config)
    if name.endswith(TWIN_SUFFIX):
        return {"gold_years": splits.dev_train, "dev_years": list(splits.dev)}
    return {"gold_years": splits.final, "dev_years": []}


def twin_name(model: str) -> str:
    """A model's dev-protocol twin: ``<model>-dev``."""
    return f"{model}{TWIN_SUFFIX}"


def cell_name(model: str, cell: str) -> str:
    """A study grid's cell of a model's twin: ``<model>-<cell>-dev``."""
    return twin_name(f"{model}-{cell}")


def matches(entry: dict, selection, tracks=None) -> bool:
    """Whether a dataset entry (with its year) is named by a selection (years, groups, ``year/name``) and is of one
    of ``tracks`` (None: any)."""
    if tracks is not None and entry["track"] not in tracks:
        return False
    wanted = {str(value) for value in selection}
    group = entry.get("group", entry["year"])
    return bool({str(entry["year"]), str(group), f"{entry['year']}/{entry['name']}"} & wanted)


def load_datasets(config: dict, checkout: str | Path) -> None:
    """``datasets`` given as a file (a YAML list, relative to the checkout) read into the config, in place."""
    if isinstance(config.get("datasets"), str):
        path = Path(config["datasets"])
        path = path if path.is_absolute() else Path(checkout) / path
        try:
            entries = yaml_text.safe_load(path.read_text(encoding="utf-8"))
        except OSError as error:
            raise ProtocolError(f"datasets: {config['datasets']}: {error.strerror}") from None
        if not isinstance(entries, list):
            raise ProtocolError(f"datasets: {path} holds no list of datasets")
        config["datasets"] = entries


def decisions_path(config: dict, protocol: Protocol | None = None, checkout: str | Path = ".") -> Path:
    """The decisions file a protocol's fusions read: config ``decisions`` (relative to the checkout) with
    ``{protocol}`` filled in by the protocol's ``decisions`` (another protocol whose choices it takes) or its name."""
    protocol = protocol or Protocol.from_config(config)
    path = Path(config["decisions"].format(protocol=protocol.decisions or protocol.name))
    return path if path.is_absolute() else Path(checkout) / path


def read_decisions(path: str | Path) -> dict:
    """run -> the settings its dev search chose, from a decisions file; none where the file is absent."""
    path = Path(path)
    if not path.exists():
        return {}
    return (yaml_text.safe_load(path.read_text(encoding="utf-8")) or {}).get("runs", {})


def protocol_problems(config: dict) -> list[str]:
    """What is wrong with the selected protocol: its name, a selection naming no dataset, a set in two parts,
    a twin name a model already has."""
    name = config["protocol"]
    if name not in config["protocols"]:
        return [f"protocol: {name!r} is not one of protocols ({', '.join(config['protocols']) or 'none'})"]
    protocol, datasets = Protocol.from_config(config), [with_year(e) for e in config["datasets"]]
    problems = []
    for part, selection in [*protocol.parts.items(), ("dev_round_trips", protocol.dev_round_trips or ())]:
        for i, value in enumerate(selection):
            if not any(matches(entry, [value]) for entry in datasets):
                problems.append(
                    f"protocols.{name}.{part}[{i}]: {value!r} names no dataset "
                    "(a year, a group or year/name of datasets)"
                )
    seen: dict[str, str] = {}
    for part, selection in protocol.parts.items():
        for entry in datasets:
            key = key_of(entry)
            if entry.get("role") != "test" and matches(entry, selection, protocol.tracks):
                if key in seen and seen[key] != part:
                    problems.append(
                        f"protocols.{name}.{part}: {key} is also in {seen[key]}; a set is trained on, chosen on or "
                        "tested on, never two of these"
                    )
                seen.setdefault(key, part)
    for i, value in enumerate(protocol.dev_round_trips or ()):
        if not any(matches(entry, [value]) and matches(entry, protocol.dev) for entry in datasets):
            problems.append(f"protocols.{name}.dev_round_trips[{i}]: {value!r} is not a dev set of the protocol")
    if protocol.train and not protocol.dev:
        problems.append(f"protocols.{name}: train without dev; the settings are chosen on dev")
    groups = {str(entry.get("group", entry["year"])) for entry in datasets if key_of(entry) in seen}
    for entry in datasets:
        if entry.get("role") == "test" and str(entry.get("group")) in groups:
            problems.append(
                f"datasets: {key_of(entry)}, added beside protocol {name}, names its group {entry['group']!r}: the "
                "ALL rows of the protocol's own sets would move; give it a group of its own (default: its name)"
            )
    problems += name_clashes(datasets, seen, name)
    for model, entry in config["encoder"]["tuning"]["models"].items():
        if entry.get("protocol", name) not in config["protocols"]:
            problems.append(
                f"encoder.tuning.models.{model}.protocol: {entry['protocol']!r} is not one of protocols "
                f"({', '.join(config['protocols'])})"
            )
    for section, models in declared_models(config).items():
        for model in models:
            if model.endswith(TWIN_SUFFIX):
                of = model[: -len(TWIN_SUFFIX)]
                problems.append(
                    f"{section}.{model}: "
                    + (
                        f"the dev-protocol twin of {of} is derived"
                        if of in models
                        else f"a name ending in {TWIN_SUFFIX!r} is a dev-protocol twin's, derived"
                    )
                    + " from the protocol (stsynth.pipeline.protocol); give the model another name"
                )
    return problems


def name_clashes(datasets: list[dict], in_protocol: dict, protocol: str) -> list[str]:
    """A set added beside the protocol (``role: test``) whose name another set in play has: the protocol's own
    sets name theirs by year (2013/headlines, 2016/headlines), but an added set is shown by its name alone in the
    score tables, the comparisons and the report, so two sets there would read as one. Refused, naming both
    entries, rather than renamed: the user's name stays the name every table shows."""
    by_name: dict[str, list[int]] = {}
    for index, entry in enumerate(datasets):
        if entry.get("role") == "test" or key_of(entry) in in_protocol:
            by_name.setdefault(entry["name"], []).append(index)

    def named(other: int) -> str:
        entry = datasets[other]
        return f"datasets[{other}] ({'added with role: test' if entry.get('role') == 'test' else key_of(entry)})"

    problems = []
    for set_name, indexes in by_name.items():
        for index in indexes:
            if len(indexes) > 1 and datasets[index].get("role") == "test":
                others = ", ".join(named(other) for other in indexes if other != index)
                problems.append(
                    f"datasets[{index}]: {set_name!r}, added beside protocol {protocol}, is also the name of "
                    f"{others}: a table that shows both could not tell them apart; give the added set a name of its own"
                )
    return problems


def key_of(entry: dict) -> str:
    return f"{entry['year']}/{entry['name']}"


def declared_models(config: dict) -> dict[str, dict]:
    return {
        "paragram.models": config["paragram"]["models"],
        "encoder.tuning.models": config["encoder"]["tuning"]["models"],
        "paraphrase_cnn.models": config["paraphrase_cnn"]["models"],
    }


def protocol_sets(datasets: list) -> list:
    """Of the resolved datasets, the protocol's own (its train, dev and test sets): not the sets added beside it."""
    return [d for d in datasets if not d.added]


def protocol_test_sets(datasets: list) -> list:
    """The protocol's own test sets (a set added with ``role: test`` is not one)."""
    return [d for d in protocol_sets(datasets) if d.role == "test"]


# --- resolution ---------------------------------------------------------------------------------------


def resolve(config: dict, checkout: str | Path) -> None:
    """The declared config turned into what the stages read, in place (module docstring). Run once, after the
    schema's validation filled the defaults and the datasets have their years; refuses a bad protocol."""
    if problems := protocol_problems(config):
        raise ProtocolError(f"config: {counted(len(problems), 'problem')}:\n  " + "\n  ".join(problems))
    protocol = Protocol.from_config(config)
    config["datasets"] = datasets = dataset_roles(protocol, config["datasets"])
    twins = Twins(config, protocol, datasets)
    resolve_paragram(config, protocol, twins)
    resolve_encoders(config, protocol, twins)
    resolve_paraphrase_cnn(config, protocol, twins)
    config["fusion"]["paragram"] = {
        feature: final_and_dev(model, True) for feature, model in config["fusion"]["paragram"].items()
    }
    resolve_runs(config, read_decisions(decisions_path(config, protocol, checkout)))
    table1_test = yaml_text.safe_load(Path(PUBLISHED_FIGURES).read_text())["sts2017_table1"]["test_set"]
    if not any(d["role"] == "test" and matches(d, protocol.test) and matches(d, [table1_test]) for d in datasets):
        config["report"]["paper_table1"] = {}  # the paper's Table 1 stands beside ours on its own test set only


def dataset_roles(protocol: Protocol, entries: list[dict]) -> list[dict]:
    """The datasets in play, each with its role: train (the protocol's train and dev sets) or test (its test
    sets, and a set added with role: test: its own group, unless it names one, so no ALL of the protocol's
    moves); a set the protocol does not name is left out."""
    resolved = []
    for entry in map(with_year, entries):
        if entry.get("role") == "test":  # added beside the protocol, whatever its year
            resolved.append({**entry, "group": entry.get("group", entry["name"]), "added": True})
        elif matches(entry, [*protocol.train, *protocol.dev], protocol.tracks):
            resolved.append({**entry, "role": "train"})
        elif matches(entry, protocol.test, protocol.tracks):
            resolved.append({**entry, "role": "test"})
    return resolved


class Twins:
    """How a model's declaration becomes its dev-protocol twin's: its pair tables (a gold table's twin, the dev
    sets' round trips for ``synthetic``), and a tuned start's twin."""

    def __init__(self, config: dict, protocol: Protocol, datasets: list):
        self.gold_tables = set(config["paraphrase_pairs"].get("tables") or GOLD_TABLE_DEFAULT)
        self.round_trips = [
            f"{SYNTHETIC}-{d['year']}-{d['name']}"
            for d in datasets
            if matches(d, protocol.round_trip_sets, protocol.tracks)
        ]

    def pairs(self, tables: list[str]) -> list[str]:
        twinned = []
        for table in tables:
            if table in self.gold_tables:
                twinned.append(twin_name(table))
            elif table == SYNTHETIC:
                twinned += self.round_trips
            else:
                twinned.append(table)
        return twinned


def final_and_dev(name, trained: bool):
    """A ``{final, dev}`` name as the stages read it: a name given alone means its dev twin on the dev protocol
    when the model is one the pipeline trains (``trained``), itself otherwise."""
    if isinstance(name, dict):
        return name
    return {"final": name, "dev": twin_name(name)} if trained else name


def with_twins(models: dict, make_final, make_twin, grid: dict | None = None) -> dict:
    """Every declared model, each followed by its twin and its grid cells' twins."""
    resolved = {}
    for name, entry in models.items():
        resolved[name] = make_final(entry)
        resolved[twin_name(name)] = make_twin(entry)
        for cell, overrides in (grid or {}).get(name, {}).items():
            resolved[cell_name(name, cell)] = {**make_twin(entry), **overrides}
    return resolved


def resolve_paragram(config: dict, protocol: Protocol, twins: Twins) -> None:
    def twin(entry):
        return {**entry, "pairs": twins.pairs(entry["pairs"])}

    config["paragram"]["models"] = with_twins(config["paragram"]["models"], dict, twin)


def resolve_encoders(config: dict, protocol: Protocol, twins: Twins) -> None:
    """Tuned encoders: a twin reads its pair tables' twins and starts from its tuned start's twin; the sets each
    learns from are :func:`model_sets`' (a model with its own ``protocol``: that protocol's, whatever runs)."""
    tuning = config["encoder"]["tuning"]
    models = tuning["models"]

    def twin(entry):
        resolved = dict(entry)
        if "pairs" in entry:
            resolved["pairs"] = twins.pairs(entry["pairs"])
        if entry.get("start") in models:
            resolved["start"] = twin_name(entry["start"])
        return resolved

    grid = tuning.pop("grid", {})
    check = tuning["dev_check"]
    tuning["models"] = with_twins(models, dict, twin, grid)
    tuning["dev_check"] = [
        name for model in check for name in [twin_name(model), *(cell_name(model, c) for c in grid.get(model, {}))]
    ]


def resolve_paraphrase_cnn(config: dict, protocol: Protocol, twins: Twins) -> None:
    section = config["paraphrase_cnn"]
    defaults = section["defaults"]

    def twin(entry):
        return {**entry, "pairs": twins.pairs(entry.get("pairs", defaults["pairs"]))}

    section["models"] = with_twins(section["models"], dict, twin)


def resolve_runs(config: dict, decisions: dict) -> None:
    """Runs: a fusion's group sets as their groups, a trained encoder's dev twin, the recorded choices
    (``decisions``: run -> chosen); sentence vectors: a trained model's twin."""
    tuned = config["encoder"]["tuning"]["models"]
    group_sets = config["fusion"].pop("group_sets", {})
    for name, entry in config["runs"].items():
        if "groups" in entry:
            entry["groups"] = [group for g in entry["groups"] for group in group_sets.get(g, [g])]
        if entry["stage"] == "fusion" and isinstance(entry.get("encoder"), str):
            entry["encoder"] = final_and_dev(entry["encoder"], entry["encoder"] in tuned)
        if entry["stage"] == "fusion" and "more_encoders" in entry:
            entry["more_encoders"] = [
                final_and_dev(e, e in tuned) if isinstance(e, str) else e for e in entry["more_encoders"]
            ]
        if entry["stage"] == "fusion" and name in decisions:
            entry["chosen"] = decisions[name]
    for entry in config["sentence_vectors"].values():
        if "paraphrase_cnn" in entry:
            entry["paraphrase_cnn"] = final_and_dev(entry["paraphrase_cnn"], True)
        if "encoder" in entry:
            entry["encoder"] = final_and_dev(entry["encoder"], entry["encoder"] in tuned)
