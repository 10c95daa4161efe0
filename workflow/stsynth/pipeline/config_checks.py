"""Start-up checks of config.yaml that its JSON schema cannot express: names that point at another
part of the config (tables, models, runs, feature groups, years, datasets), repeated datasets and
values that only make sense together (a range's ends, a held-out fold and its fold count).

``check_config`` runs one checker per config section (:data:`SECTION_CHECKS`), each adding the problems
it finds, named by their key path, to what the sections share (:class:`Checks`); then it raises one
ConfigError listing them all, so a user fixes them in one go instead of meeting them one by one as
missing files deep in the DAG.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from ..core.folds import base_model
from ..core.pairs import named_twice
from ..core.paths import ENCODABLE_SOURCE, ENCODABLE_SOURCES, EVENT_VECTOR_SOURCES
from .plan import SEEDED_STAGES, layered_settings, sentence_vector_source

VECTOR_BASES = ("paragram-xxl", "glove-6b-50d", "minilm-static")
# The word-vector tables trained on the event corpus (stsynth.sts2017.events): event embeddings, the W2V baseline.


class ConfigError(ValueError):
    """A config value that names something the config does not define."""


class _KeyRecordingLoader(yaml.SafeLoader):
    """A SafeLoader that notes every mapping key given twice (YAML loaders keep the last one silently)."""

    def __init__(self, stream, name: str):
        super().__init__(stream)
        self.name, self.repeated = name, []

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            first_line = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                line = key_node.start_mark.line + 1
                if key in first_line:
                    self.repeated.append(
                        (
                            line,
                            f"{self.name}:{line}: key {key!r} is given again (first on line "
                            f"{first_line[key]}); YAML would keep the last value without a word",
                        )
                    )
                first_line.setdefault(key, line)
        return super().construct_mapping(node, deep=deep)


def check_unique_keys(paths) -> None:
    """Raise ConfigError naming every key that a config file (config.yaml or an overlay) gives twice."""
    problems = []
    for path in paths:
        loader = _KeyRecordingLoader(Path(path).read_text(encoding="utf-8"), str(path))
        try:
            loader.get_single_data()
        finally:
            loader.dispose()
        problems += [message for _, message in sorted(loader.repeated)]
    if problems:
        raise ConfigError(f"{len(problems)} repeated key(s):\n  " + "\n  ".join(problems))


def vector_sources() -> list[str]:
    return [*VECTOR_BASES, *(f"ppdb-paragram-{base}" for base in VECTOR_BASES), *EVENT_VECTOR_SOURCES]


# STS 2017 track 5's 250 pairs are also in the STS Benchmark's dev and test sets (both from SNLI).
STS2017_TRACK5 = "STS2017-test/"
STS_BENCHMARK = "stsbenchmark/"


def sts2017_leak_problems(datasets: list[dict]) -> list[str]:
    """A config testing on STS 2017 track 5 may not train or choose anything on the STS Benchmark."""
    tested = [
        i for i, d in enumerate(datasets) if d["role"] == "test" and str(d.get("input", "")).startswith(STS2017_TRACK5)
    ]
    if not tested:
        return []
    return [
        f"datasets[{i}]: {d['year']}/{d['name']} is STS Benchmark data with role train, "
        f"and datasets[{tested[0]}] tests "
        "on STS 2017 track 5, whose 250 pairs are in the STS Benchmark's dev and test sets: whatever trains or "
        "is chosen on it has seen the test pairs. Remove it, or make it role: test"
        for i, d in enumerate(datasets)
        if d["role"] == "train" and (d.get("format") == "stsb" or str(d.get("input", "")).startswith(STS_BENCHMARK))
    ]


class Checks:
    """What the section checkers share: the config, the problems and notes found so far, and the lookups
    that resolve a name (a dataset year, a pair table, a model) to what the config declares."""

    def __init__(self, config: dict, manifest, features):
        self.config, self.manifest, self.features = config, manifest, features
        self.problems: list[str] = []
        self.notes: list[str] = []
        self.datasets = config.get("datasets", [])
        self.names = {f"{d['year']}/{d['name']}" for d in self.datasets}
        self.known_train = sorted(
            {str(d["year"]) for d in self.datasets if d["role"] == "train"}
            | {str(d["group"]) for d in self.datasets if d["role"] == "train" and "group" in d}
        )
        self.tables = [
            *config.get("paraphrase_pairs", {}).get("tables", {}),
            "synthetic",
            *(f"synthetic-{n.replace('/', '-')}" for n in sorted(self.names)),
        ]
        self.models = config.get("paragram", {}).get("models", {})
        self.runs = config.get("runs", {})
        encoder = config.get("encoder", {})
        self.named = encoder.get("models", {})
        self.tuned = encoder.get("tuning", {}).get("models", {})
        self.encoders = [*self.named, *self.tuned]

    def need(self, path: str, value, known, what: str) -> None:
        if value not in known:
            choices = ", ".join(map(str, known)) or "none"
            self.problems.append(f"{path}: {value!r} is not {what} (known: {choices})")

    def selected(self, value, role: str) -> list[dict]:
        """Datasets of a role that a selector value names: by year, or by group (default: the year)."""
        return [
            d
            for d in self.datasets
            if d["role"] == role and (d["year"] == value or str(d.get("group", d["year"])) == str(value))
        ]

    def need_years(self, path: str, years) -> None:
        """Training or dev selections (years or groups): some must name training-role data, none may name
        only test sets (test sets never train or choose anything); one naming no data is skipped, with a note."""
        for i, year in enumerate(years):
            if self.selected(year, "test") and not self.selected(year, "train"):
                self.problems.append(
                    f"{path}[{i}]: {year} is a test year; only training-role years may train or choose settings"
                )
        missing = [year for year in years if not self.selected(year, "train")]
        if years and len(missing) == len(years):
            self.problems.append(
                f"{path}: {missing} has no year with training-role datasets "
                f"(known: {', '.join(self.known_train) or 'none'})"
            )
        elif missing:
            self.notes.append(f"{path}: no datasets in {missing}; those years are skipped")

    def need_unseen(self, path: str, years, dev_path: str, dev_years) -> None:
        """Years that train (``path``) may not be years a dev protocol chooses on (``dev_path``): what is
        chosen on a set that was trained on is chosen on seen sentences."""
        dev = {str(year) for year in dev_years}
        for i, year in enumerate(years):
            if str(year) in dev:
                self.problems.append(
                    f"{path}[{i}]: {year} is a dev year ({dev_path}); what is chosen there would "
                    "be chosen on sentences this training has read"
                )

    def need_tables(self, where: str, pairs: list[str]) -> None:
        for i, table in enumerate(pairs):
            self.need(
                f"{where}.pairs[{i}]",
                table,
                self.tables,
                "a paraphrase pair table (paraphrase_pairs.tables, synthetic or synthetic-<year>-<dataset>)",
            )

    def need_model(self, path: str, model) -> None:
        self.need(path, model, list(self.models), "a model in paragram.models")

    def need_run(self, path: str, run) -> None:
        self.need(path, run, list(self.runs), "a run in runs")

    def need_vectors(self, path: str, source) -> None:
        self.need(path, source, vector_sources(), "a word-vector source")

    def need_encoder(self, path: str, encoder) -> None:
        self.need(path, encoder, self.encoders, "an encoder (encoder.models or encoder.tuning.models)")

    def check_holdout(self, where: str, entry: dict) -> None:
        if (holdout := entry.get("holdout")) and not holdout["fold"] < holdout["folds"]:
            self.problems.append(
                f"{where}.holdout: fold {holdout['fold']} of {holdout['folds']} holds nothing out "
                f"(folds are numbered 0 to {holdout['folds'] - 1})"
            )

    def runs_of_stage(self, stage: str) -> list[str]:
        return [run for run, entry in self.runs.items() if entry.get("stage") == stage]


def check_datasets(c: Checks) -> None:
    """Each dataset declared once, its columns and score range sound, its files in the manifest; no
    STS Benchmark training next to an STS 2017 test."""
    seen: dict[tuple, int] = {}
    for index, entry in enumerate(c.datasets):
        key = (entry["year"], entry["name"])
        if key in seen:
            c.problems.append(
                f"datasets[{index}]: {entry['year']}/{entry['name']} is declared twice (first as datasets[{seen[key]}])"
            )
        seen.setdefault(key, index)
        for name, keys in named_twice(entry.get("columns") or {}).items():
            c.problems.append(f"datasets[{index}].columns: {' and '.join(keys)} name the same column {name!r}")
        if "score_range" in entry and not entry["score_range"][0] < entry["score_range"][1]:
            c.problems.append(
                f"datasets[{index}].score_range: {entry['score_range']} is not [lowest, highest] with lowest < highest"
            )
        for field in ("input", "gold"):
            if field in entry and entry[field] not in c.manifest:
                c.problems.append(
                    f"datasets[{index}].{field}: {entry[field]} is not in the corpus manifest "
                    f"({c.config.get('corpus', {}).get('manifest')})"
                )
    c.problems += sts2017_leak_problems(c.datasets)


def check_vectors(c: Checks) -> None:
    vocabulary = c.config.get("vectors", {}).get("minilm-static", {}).get("vocabulary")
    if isinstance(vocabulary, list):
        declared = {str(d["year"]) for d in c.datasets} | {str(d["group"]) for d in c.datasets if "group" in d}
        for i, year in enumerate(vocabulary):
            if str(year) not in declared:
                c.problems.append(
                    f"vectors.minilm-static.vocabulary[{i}]: {year} names no declared dataset "
                    f"(declared years/groups: {', '.join(sorted(declared)) or 'none'})"
                )


def check_paraphrase_pairs(c: Checks) -> None:
    pairs = c.config.get("paraphrase_pairs", {})
    for table, entry in pairs.get("tables", {}).items():
        c.need_years(f"paraphrase_pairs.tables.{table}.years", entry.get("years", []))
    if "sweep" in pairs:
        sweep = pairs["sweep"]
        c.need_model("paraphrase_pairs.sweep.model", sweep["model"])
        if sweep["start"] > sweep["stop"]:
            c.problems.append(
                f"paraphrase_pairs.sweep: start {sweep['start']} is above stop {sweep['stop']}, "
                "so the sweep has no threshold"
            )
        c.need_years("paraphrase_pairs.sweep.years", sweep.get("years", []))


def check_crosslingual(c: Checks) -> None:
    crosslingual = c.config.get("crosslingual", {})
    if (
        crosslingual.get("sides") == "identified"
        and crosslingual.get("languages")
        and "es" not in crosslingual["languages"]
    ):
        c.problems.append(
            f"crosslingual.languages: {crosslingual['languages']} lacks 'es', so no sentence could be "
            "identified as Spanish (crosslingual.sides: identified)"
        )
    for i, model in enumerate(crosslingual.get("reference_translation", {}).get("models", [])):
        c.need_model(f"crosslingual.reference_translation.models[{i}]", model)


def check_paragram(c: Checks) -> None:
    """The paragram models (their pair tables, presets, vectors, years, held-out folds), the sets they
    leave out, the source comparison and the synthetic dev check."""
    paragram = c.config.get("paragram", {})
    presets = list(paragram.get("presets", {}))
    c.check_holdout("paragram.defaults", paragram.get("defaults", {}))
    for preset, entry in paragram.get("presets", {}).items():
        c.check_holdout(f"paragram.presets.{preset}", entry)

    def need_preset_and_vectors(where: str, entry: dict) -> None:
        if "preset" in entry:
            c.need(f"{where}.preset", entry["preset"], presets, "a paragram preset")
        if "vectors" in entry:
            c.need_vectors(f"{where}.vectors", entry["vectors"])

    for model, entry in c.models.items():
        where = f"paragram.models.{model}"
        c.check_holdout(where, entry)
        c.need_tables(where, entry.get("pairs", []))
        need_preset_and_vectors(where, entry)
        c.need_years(f"{where}.dev_years", entry.get("dev_years", []))
        for i, name in enumerate(entry.get("exclude", [])):
            c.need(f"{where}.exclude[{i}]", name, sorted(c.names), "a declared dataset (year/name)")
    need_preset_and_vectors("paragram.defaults", paragram.get("defaults", {}))
    defaults = paragram.get("defaults", {})
    for model, entry in c.models.items():
        merged = layered_settings(defaults, entry)
        if merged.get("unknown") == "encode" and merged.get("vectors") not in ENCODABLE_SOURCES:
            c.problems.append(
                f"paragram.models.{model}: unknown: encode gives an unknown word its "
                f"{ENCODABLE_SOURCE} vector, but the model's vectors are {merged.get('vectors')!r} "
                f"(encode needs one of {', '.join(ENCODABLE_SOURCES)}; rare or skip work with any)"
            )
    compare = paragram.get("compare_sources", {})
    for i, source in enumerate(compare.get("sources", [])):
        c.need_vectors(f"paragram.compare_sources.sources[{i}]", source)
    c.need_years("paragram.compare_sources.dev_years", compare.get("dev_years", []))
    for i, model in enumerate(c.config.get("synthetic", {}).get("dev_check", [])):
        c.need_model(f"synthetic.dev_check[{i}]", model)


def check_runs(c: Checks) -> None:
    """What each run names: an external run's prediction files, a paragram run's model, an encoder
    run's encoders."""
    test_sets = [d for d in c.datasets if d["role"] == "test"]
    for run, entry in c.runs.items():
        if entry.get("stage") == "external":
            try:
                files = {entry["predictions"].format(year=d["year"], dataset=d["name"]) for d in test_sets}
            except (KeyError, IndexError, ValueError) as err:
                c.problems.append(
                    f"runs.{run}.predictions: {entry['predictions']!r} may hold only {{year}} and "
                    f"{{dataset}} ({type(err).__name__}: {err})"
                )
                continue
            if len(files) < len(test_sets):
                c.problems.append(
                    f"runs.{run}.predictions: {entry['predictions']!r} names one file for several "
                    "test sets; put {year} and {dataset} in it"
                )
        if entry.get("stage") == "paragram":
            c.need_model(f"runs.{run}.model", entry.get("model"))
        if entry.get("stage") == "encoder" and "model" in entry:
            c.need(f"runs.{run}.model", entry["model"], list(c.tuned), "a model in encoder.tuning.models")
        if isinstance(entry.get("encoder"), str):
            c.need_encoder(f"runs.{run}.encoder", entry["encoder"])
        elif isinstance(entry.get("encoder"), dict):
            for protocol in ("final", "dev"):
                c.need_encoder(f"runs.{run}.encoder.{protocol}", entry["encoder"][protocol])


def check_encoder(c: Checks) -> None:
    """Named and tuned encoders: one name each, what a tuned one trains on and starts from (no cycle),
    the dev check."""
    encoder = c.config.get("encoder", {})
    tuning = encoder.get("tuning", {})
    defaults = tuning.get("defaults", {})
    if "default" in encoder:
        c.need("encoder.default", encoder["default"], list(c.named), "a named encoder in encoder.models")
    for name in sorted(set(c.named) & set(c.tuned)):
        c.problems.append(f"encoder.models.{name} and encoder.tuning.models.{name}: one name for two encoders")
    for model, entry in c.tuned.items():
        where = f"encoder.tuning.models.{model}"
        c.need_tables(where, entry.get("pairs", []))
        c.need_years(f"{where}.gold_years", entry.get("gold_years", []))
        c.need_years(f"{where}.dev_years", entry.get("dev_years", []))
        if entry.get("start") is not None:
            c.need(
                f"{where}.start",
                entry["start"],
                [m for m in c.encoders if m != model],
                "a named encoder (encoder.models) or another tuned encoder",
            )
        loss = entry.get("loss", defaults.get("loss"))
        source = "gold_years" if loss in ("cosent", "cosine") else "pairs"
        if not entry.get(source, defaults.get(source)):
            c.problems.append(f"{where}: loss {loss!r} trains on {source}, which it does not give")
    c.problems += start_cycles(c.tuned)
    for i, model in enumerate(tuning.get("dev_check", [])):
        c.need(f"encoder.tuning.dev_check[{i}]", model, list(c.tuned), "a model in encoder.tuning.models")
        if model in c.tuned and not c.tuned[model].get("dev_years"):
            c.problems.append(f"encoder.tuning.dev_check[{i}]: {model} has no dev_years to score")


def start_cycles(tuned: dict) -> list[str]:
    """Start chains of tuned encoders that come back to themselves (A -> B -> A would recurse for ever)."""
    problems = []
    for model in tuned:
        chain, current = [model], tuned[model].get("start")
        while current in tuned and current not in chain:
            chain.append(current)
            current = tuned[current].get("start")
        if current in chain and model == min(chain[chain.index(current) :]):
            cycle = chain[chain.index(current) :] + [current]
            problems.append(
                f"encoder.tuning.models.{model}.start: {' -> '.join(cycle)} is a cycle; a tuned encoder "
                "must start, through its starts, from a named encoder (encoder.models)"
            )
    return problems


def check_fusion(c: Checks) -> None:
    """The fusion's paragram features and groups, its runs' groups, its years and the dev table; the
    features' word vectors."""
    fusion = c.config.get("fusion", {})
    for feature, entry in fusion.get("paragram", {}).items():
        for protocol in ("final", "dev"):
            c.need_model(f"fusion.paragram.{feature}.{protocol}", entry[protocol])
    known_features = sorted({*c.features, *fusion.get("paragram", {})})
    for group, members in fusion.get("groups", {}).items():
        for i, name in enumerate(members):
            c.need(
                f"fusion.groups.{group}[{i}]",
                name,
                known_features,
                "a feature (stsynth.dcu2016.features.FEATURES), paragram feature (fusion.paragram) "
                "or encoder similarity",
            )
    fusion_runs = c.runs_of_stage("fusion")
    for run in fusion_runs:
        for i, group in enumerate(c.runs[run].get("groups", [])):
            c.need(f"runs.{run}.groups[{i}]", group, list(fusion.get("groups", {})), "a group in fusion.groups")
    if "dev" in fusion:
        c.need_years("fusion.dev.train_years", fusion["dev"]["train_years"])
        c.need_years("fusion.train_years", fusion.get("train_years", []))
        c.need_years("fusion.dev.validate_years", fusion["dev"]["validate_years"])
        c.need_unseen(
            "fusion.dev.train_years",
            fusion["dev"]["train_years"],
            "fusion.dev.validate_years",
            fusion["dev"]["validate_years"],
        )
    if "dev_table" in fusion:
        if fusion["dev_table"]["run"] not in fusion_runs:
            c.notes.append(
                f"fusion.dev_table.run: {fusion['dev_table']['run']!r} is not a fusion run in runs "
                f"(known: {', '.join(fusion_runs) or 'none'}); the dev-protocol table is not built"
            )
        for i, model in enumerate(fusion["dev_table"].get("paragram_models", [])):
            c.need_model(f"fusion.dev_table.paragram_models[{i}]", model)
    if "features" in c.config:
        c.need_vectors("features.vectors", c.config["features"]["vectors"])


def check_scoring(c: Checks) -> None:
    compare = c.config.get("scoring", {}).get("compare", {})
    if compare.get("reference") is not None:
        c.need_run("scoring.compare.reference", compare["reference"])
    for i, pair in enumerate(compare.get("pairs", [])):
        for j, run in enumerate(pair):
            c.need_run(f"scoring.compare.pairs[{i}][{j}]", run)


def check_seed_study(c: Checks) -> None:
    """Each studied run declared, a headline run, of a stage whose training takes a seed; no seed the headline
    runs already use (its runs would repeat them, and shrink the spread)."""
    study, paragram = c.config.get("seed_study", {}), c.config.get("paragram", {})
    tuning = c.config.get("encoder", {}).get("tuning", {})
    default_preset = paragram.get("presets", {}).get(paragram.get("defaults", {}).get("preset"), {})
    used = {
        c.config.get("fusion", {}).get("seed"),
        tuning.get("defaults", {}).get("seed"),
        default_preset.get("seed"),
        c.config.get("events", {}).get("skipgram", {}).get("seed"),
        c.config.get("vectors", {}).get("ppdb", {}).get("trainer", {}).get("seed"),
    } - {None}
    for i, seed in enumerate(study.get("seeds", [])):
        if seed in used:
            c.problems.append(
                f"seed_study.seeds[{i}]: {seed} is a seed the headline runs use (fusion.seed, the "
                "default paragram preset's, encoder.tuning.defaults', events.skipgram.seed, "
                "vectors.ppdb.trainer.seed): its runs would repeat them"
            )
    for i, run in enumerate(study.get("runs", [])):
        where = f"seed_study.runs[{i}]"
        c.need_run(where, run)
        entry = c.runs.get(run, {})
        if entry.get("study"):
            c.problems.append(f"{where}: {run} is a study run; the seed study repeats headline runs")
        elif entry and entry.get("stage") not in SEEDED_STAGES:
            c.problems.append(
                f"{where}: {run} (stage {entry.get('stage')}) trains nothing the seed study can seed "
                f"(stages {', '.join(SEEDED_STAGES)})"
            )


def check_report(c: Checks) -> None:
    report = c.config.get("report", {})
    for i, run in enumerate(report.get("scatter_runs", [])):
        c.need_run(f"report.scatter_runs[{i}]", run)
    for run in report.get("paper_systems", {}):
        c.need_run(f"report.paper_systems.{run}", run)
    for run in report.get("training_curves", {}):
        c.need_run(f"report.training_curves.{run}", run)
    for run, models_of_run in report.get("training_curves", {}).items():
        for i, model in enumerate(models_of_run):
            c.need_model(f"report.training_curves.{run}[{i}]", model)
    for run in report.get("paper_table1", {}):
        c.need(f"report.paper_table1.{run}", run, c.runs_of_stage("head"), "a regression-head run (stage head) in runs")


def check_paraphrase_cnn(c: Checks) -> None:
    """The SemEval-2017 system's paraphrase-embedding models and their grid."""
    pe = c.config.get("paraphrase_cnn", {})
    pe_models = pe.get("models", {})
    for model, entry in pe_models.items():
        where = f"paraphrase_cnn.models.{model}"
        merged = layered_settings(pe.get("defaults", {}), entry)
        c.need_tables(where, merged.get("pairs", []))
        c.need_vectors(f"{where}.vectors", merged.get("vectors"))
        c.need_years(f"{where}.gold_years", merged.get("gold_years", []))
        c.need_years(f"{where}.dev_years", merged.get("dev_years", []))
        if merged.get("width", 1) % 2 == 0:
            c.problems.append(
                f"{where}.width: {merged['width']} is even; the convolution width must be odd (its "
                "output keeps the sentence's length)"
            )
        if merged.get("unknown") == "encode" and merged.get("vectors") not in ENCODABLE_SOURCES:
            c.problems.append(
                f"{where}: unknown: encode gives an unknown word its {ENCODABLE_SOURCE} vector, but the "
                f"model's vectors are {merged.get('vectors')!r} (encode needs one of "
                f"{', '.join(ENCODABLE_SOURCES)}; row works with any)"
            )
    if "grid" in pe:
        c.need("paraphrase_cnn.grid.model", pe["grid"]["model"], list(pe_models), "a model in paraphrase_cnn.models")


def check_head(c: Checks) -> None:
    """The SemEval-2017 system's regression head: its years, presets and runs; the event corpus's years."""
    head = c.config.get("head", {})
    if "events" in c.config:
        pair_years = c.config["events"]["corpus"]["pair_years"]
        c.need_years("events.corpus.pair_years", pair_years)
        if "dev" in head:  # the event embeddings feed the head runs, whose settings are chosen on these years
            c.need_unseen(
                "events.corpus.pair_years", pair_years, "head.dev.validate_years", head["dev"]["validate_years"]
            )
    if "dev" in head:
        c.need_years("head.dev.train_years", head["dev"]["train_years"])
        c.need_years("head.dev.validate_years", head["dev"]["validate_years"])
        c.need_unseen(
            "head.dev.train_years", head["dev"]["train_years"], "head.dev.validate_years", head["dev"]["validate_years"]
        )
        c.need_years("head.train_years", head.get("train_years", []))
    sources = list(c.config.get("sentence_vectors", {}))
    for run in c.runs_of_stage("head"):
        for i, source in enumerate(c.runs[run].get("vectors", [])):
            c.need(f"runs.{run}.vectors[{i}]", source, sources, "a sentence-vector source (sentence_vectors)")
        if "preset" in c.runs[run]:
            c.need(
                f"runs.{run}.preset", c.runs[run]["preset"], list(head.get("presets", {})), "a preset in head.presets"
            )


def check_sentence_vectors(c: Checks) -> None:
    """The sentence-vector sources of the regression head: what each averages or encodes, and the
    event corpus whenever a head run reads vectors trained on it."""

    pe_models = list(c.config.get("paraphrase_cnn", {}).get("models", {}))
    read = {source for run in c.runs_of_stage("head") for source in c.runs[run].get("vectors", [])}
    used_events = False
    unknown_rule: dict[str, tuple[str, str]] = {}  # a mean's source -> (its unknown rule, the entry that set it)
    for name, entry in c.config.get("sentence_vectors", {}).items():
        try:
            kind, value = sentence_vector_source(name, entry)
        except ValueError as error:
            c.problems.append(str(error))
            continue
        if "unknown" in entry:
            if kind != "mean":
                c.problems.append(
                    f"sentence_vectors.{name}.unknown: only a mean has it (a paraphrase-embedding "
                    f"model's is paraphrase_cnn.defaults.unknown); this entry is {kind}"
                )
            elif entry["unknown"] == "encode" and value not in ENCODABLE_SOURCES:
                c.problems.append(
                    f"sentence_vectors.{name}.unknown: encode gives an unknown word its {ENCODABLE_SOURCE} "
                    f"vector, but this mean averages {value!r} (encode needs one of "
                    f"{', '.join(ENCODABLE_SOURCES)})"
                )
        if kind == "mean":  # one table per source (stsynth.sts2017.head_plan.mean_unknown): its entries must agree
            rule = entry.get("unknown", "skip")
            first = unknown_rule.setdefault(value, (rule, name))
            if first[0] != rule:
                c.problems.append(
                    f"sentence_vectors.{name}.unknown: {rule}, but sentence_vectors.{first[1]} averages "
                    f"the same vectors ({value}) with unknown: {first[0]}; one table is built per "
                    "source, so set both alike"
                )
        for protocol, model in value.items() if isinstance(value, dict) else [("", value)]:
            where = f"sentence_vectors.{name}.{kind}" + (f".{protocol}" if protocol else "")
            if kind in ("mean", "events"):
                c.need_vectors(where, model)
                used_events |= name in read and model in EVENT_VECTOR_SOURCES
            elif kind == "paraphrase_cnn":
                c.need(where, model, pe_models, "a model in paraphrase_cnn.models")
            else:  # an encoder, or a tuned encoder's fold model
                c.need(
                    where, base_model(model), sorted(c.encoders), "an encoder (encoder.models or encoder.tuning.models)"
                )
    events = c.config.get("events")
    if used_events and events and not events["corpus"]["kjv"] and not events["corpus"]["pair_years"]:
        c.problems.append(
            "events.corpus: kjv is null and pair_years is empty, but a head run reads the event "
            "embeddings or word2vec, which are trained on that corpus"
        )


# One checker per config section, in the order their problems are listed.
SECTION_CHECKS = (
    check_datasets,
    check_vectors,
    check_paraphrase_pairs,
    check_crosslingual,
    check_paragram,
    check_runs,
    check_encoder,
    check_fusion,
    check_scoring,
    check_seed_study,
    check_report,
    check_paraphrase_cnn,
    check_head,
    check_sentence_vectors,
)


def check_config(
    config: dict, manifest: set[str] | dict, features: set[str] = frozenset(), config_name: str = "config.yaml"
) -> list[str]:
    """Raise ConfigError listing every dangling reference or repeated entry; return notes to log.

    manifest: the relative paths the corpus manifest lists; features: the names a fusion group may
    use besides the paragram features (stsynth.dcu2016.features.FEATURES and the encoder similarities).
    """
    checks = Checks(config, manifest, features)
    for check in SECTION_CHECKS:
        check(checks)
    if checks.problems:
        raise ConfigError(f"{config_name}: {len(checks.problems)} problem(s):\n  " + "\n  ".join(checks.problems))
    return [f"{config_name}: {note}" for note in checks.notes]
