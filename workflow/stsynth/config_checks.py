"""Start-up checks of config.yaml that its JSON schema cannot express: names that point at another
part of the config (tables, models, runs, feature groups, years, datasets), repeated datasets and
values that only make sense together (a range's ends, a held-out fold and its fold count).

``check_config`` collects every problem, each naming its key path, and raises one ConfigError, so a
user fixes them all in one go instead of meeting them one by one as missing files deep in the DAG.
"""
from __future__ import annotations

from pathlib import Path

import yaml

from .pairs import named_twice

VECTOR_BASES = ("paragram-xxl", "glove-6b-50d", "minilm-static")
# The word-vector tables trained on the event corpus (stsynth.events): event embeddings, the W2V baseline.
EVENT_VECTOR_SOURCES = ("event-embeddings", "word2vec")


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
                    self.repeated.append((line, f"{self.name}:{line}: key {key!r} is given again (first on line "
                                         f"{first_line[key]}); YAML would keep the last value without a word"))
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
    tested = [i for i, d in enumerate(datasets) if d["role"] == "test" and str(d.get("input", "")).startswith(STS2017_TRACK5)]
    if not tested:
        return []
    return [f"datasets[{i}]: {d['year']}/{d['name']} is STS Benchmark data with role train, and datasets[{tested[0]}] tests "
            "on STS 2017 track 5, whose 250 pairs are in the STS Benchmark's dev and test sets: whatever trains or "
            "is chosen on it has seen the test pairs. Remove it, or make it role: test"
            for i, d in enumerate(datasets)
            if d["role"] == "train" and (d.get("format") == "stsb" or str(d.get("input", "")).startswith(STS_BENCHMARK))]


def check_config(config: dict, manifest: set[str] | dict, features: set[str] = frozenset(),
                 config_name: str = "config.yaml") -> list[str]:
    """Raise ConfigError listing every dangling reference or repeated entry; return notes to log.

    manifest: the relative paths the corpus manifest lists; features: the names a fusion group may
    use besides the paragram features (stsynth.features.FEATURES and the encoder similarities).
    """
    problems: list[str] = []
    notes: list[str] = []
    datasets = config.get("datasets", [])
    seen: dict[tuple, int] = {}
    for index, entry in enumerate(datasets):
        key = (entry["year"], entry["name"])
        if key in seen:
            problems.append(f"datasets[{index}]: {entry['year']}/{entry['name']} is declared twice "
                            f"(first as datasets[{seen[key]}])")
        seen.setdefault(key, index)
        for name, keys in named_twice(entry.get("columns") or {}).items():
            problems.append(f"datasets[{index}].columns: {' and '.join(keys)} name the same column {name!r}")
        if "score_range" in entry and not entry["score_range"][0] < entry["score_range"][1]:
            problems.append(f"datasets[{index}].score_range: {entry['score_range']} is not [lowest, highest] "
                            "with lowest < highest")
        for field in ("input", "gold"):
            if field in entry and entry[field] not in manifest:
                problems.append(f"datasets[{index}].{field}: {entry[field]} is not in the corpus manifest "
                                f"({config.get('corpus', {}).get('manifest')})")
    problems += sts2017_leak_problems(datasets)
    names = {f"{d['year']}/{d['name']}" for d in datasets}

    def need(path: str, value, known, what: str) -> None:
        if value not in known:
            choices = ", ".join(map(str, known)) or "none"
            problems.append(f"{path}: {value!r} is not {what} (known: {choices})")

    def selected(value, role: str) -> list[dict]:
        """Datasets of a role that a selector value names: by year, or by group (default: the year)."""
        return [d for d in datasets if d["role"] == role and (d["year"] == value or str(d.get("group", d["year"])) == str(value))]

    known = sorted({str(d["year"]) for d in datasets if d["role"] == "train"}
                   | {str(d["group"]) for d in datasets if d["role"] == "train" and "group" in d})

    vocabulary = config.get("vectors", {}).get("minilm-static", {}).get("vocabulary")
    if isinstance(vocabulary, list):
        declared = {str(d["year"]) for d in datasets} | {str(d["group"]) for d in datasets if "group" in d}
        for i, year in enumerate(vocabulary):
            if str(year) not in declared:
                problems.append(f"vectors.minilm-static.vocabulary[{i}]: {year} names no declared dataset "
                                f"(declared years/groups: {', '.join(sorted(declared)) or 'none'})")

    def need_years(path: str, years) -> None:
        """Training or dev selections (years or groups): some must name training-role data, none may name
        only test sets (test sets never train or choose anything); one naming no data is skipped, with a note."""
        for i, year in enumerate(years):
            if selected(year, "test") and not selected(year, "train"):
                problems.append(f"{path}[{i}]: {year} is a test year; only training-role years may train or choose settings")
        missing = [year for year in years if not selected(year, "train")]
        if years and len(missing) == len(years):
            problems.append(f"{path}: {missing} has no year with training-role datasets "
                            f"(known: {', '.join(known) or 'none'})")
        elif missing:
            notes.append(f"{path}: no datasets in {missing}; those years are skipped")

    pairs = config.get("paraphrase_pairs", {})
    tables = [*pairs.get("tables", {}), "synthetic", *(f"synthetic-{n.replace('/', '-')}" for n in sorted(names))]
    for table, entry in pairs.get("tables", {}).items():
        need_years(f"paraphrase_pairs.tables.{table}.years", entry.get("years", []))

    crosslingual = config.get("crosslingual", {})
    if crosslingual.get("sides") == "identified" and crosslingual.get("languages") and \
            "es" not in crosslingual["languages"]:
        problems.append(f"crosslingual.languages: {crosslingual['languages']} lacks 'es', so no sentence could be "
                        "identified as Spanish (crosslingual.sides: identified)")

    def need_tables(where: str, entry: dict) -> None:
        for i, table in enumerate(entry.get("pairs", [])):
            need(f"{where}.pairs[{i}]", table, tables, "a paraphrase pair table (paraphrase_pairs.tables, "
                 "synthetic or synthetic-<year>-<dataset>)")

    def check_holdout(where: str, entry: dict) -> None:
        if (holdout := entry.get("holdout")) and not holdout["fold"] < holdout["folds"]:
            problems.append(f"{where}.holdout: fold {holdout['fold']} of {holdout['folds']} holds nothing out "
                            f"(folds are numbered 0 to {holdout['folds'] - 1})")

    paragram = config.get("paragram", {})
    models = paragram.get("models", {})
    check_holdout("paragram.defaults", paragram.get("defaults", {}))
    for preset, entry in paragram.get("presets", {}).items():
        check_holdout(f"paragram.presets.{preset}", entry)
    for model, entry in models.items():
        where = f"paragram.models.{model}"
        check_holdout(where, entry)
        need_tables(where, entry)
        if "preset" in entry:
            need(f"{where}.preset", entry["preset"], list(paragram.get("presets", {})), "a paragram preset")
        if "vectors" in entry:
            need(f"{where}.vectors", entry["vectors"], vector_sources(), "a word-vector source")
        need_years(f"{where}.dev_years", entry.get("dev_years", []))
        for i, name in enumerate(entry.get("exclude", [])):
            need(f"{where}.exclude[{i}]", name, sorted(names), "a declared dataset (year/name)")
    defaults = paragram.get("defaults", {})
    if "preset" in defaults:
        need("paragram.defaults.preset", defaults["preset"], list(paragram.get("presets", {})), "a paragram preset")
    if "vectors" in defaults:
        need("paragram.defaults.vectors", defaults["vectors"], vector_sources(), "a word-vector source")
    runs = config.get("runs", {})
    test_sets = [d for d in datasets if d["role"] == "test"]
    for run, entry in runs.items():
        if entry.get("stage") == "external":
            try:
                files = {entry["predictions"].format(year=d["year"], dataset=d["name"]) for d in test_sets}
            except (KeyError, IndexError, ValueError) as err:
                problems.append(f"runs.{run}.predictions: {entry['predictions']!r} may hold only {{year}} and "
                                f"{{dataset}} ({type(err).__name__}: {err})")
                continue
            if len(files) < len(test_sets):
                problems.append(f"runs.{run}.predictions: {entry['predictions']!r} names one file for several test "
                                "sets; put {year} and {dataset} in it")
        if entry.get("stage") == "paragram":
            need(f"runs.{run}.model", entry.get("model"), list(models), "a model in paragram.models")
    if "sweep" in pairs:
        need("paraphrase_pairs.sweep.model", pairs["sweep"]["model"], list(models), "a model in paragram.models")
        if pairs["sweep"]["start"] > pairs["sweep"]["stop"]:
            problems.append(f"paraphrase_pairs.sweep: start {pairs['sweep']['start']} is above stop "
                            f"{pairs['sweep']['stop']}, so the sweep has no threshold")
        need_years("paraphrase_pairs.sweep.years", pairs["sweep"].get("years", []))
    compare = paragram.get("compare_sources", {})
    for i, source in enumerate(compare.get("sources", [])):
        need(f"paragram.compare_sources.sources[{i}]", source, vector_sources(), "a word-vector source")
    need_years("paragram.compare_sources.dev_years", compare.get("dev_years", []))

    for i, model in enumerate(config.get("synthetic", {}).get("dev_check", [])):
        need(f"synthetic.dev_check[{i}]", model, list(models), "a model in paragram.models")
    reference = config.get("crosslingual", {}).get("reference_translation", {})
    for i, model in enumerate(reference.get("models", [])):
        need(f"crosslingual.reference_translation.models[{i}]", model, list(models), "a model in paragram.models")

    encoder = config.get("encoder", {})
    tuning = encoder.get("tuning", {})
    tuned = tuning.get("models", {})
    named = encoder.get("models", {})
    encoders = [*named, *tuned]
    if "default" in encoder:
        need("encoder.default", encoder["default"], list(named), "a named encoder in encoder.models")
    for name in sorted(set(named) & set(tuned)):
        problems.append(f"encoder.models.{name} and encoder.tuning.models.{name}: one name for two encoders")
    for model, entry in tuned.items():
        where = f"encoder.tuning.models.{model}"
        need_tables(where, entry)
        need_years(f"{where}.gold_years", entry.get("gold_years", []))
        need_years(f"{where}.dev_years", entry.get("dev_years", []))
        if entry.get("start") is not None:
            need(f"{where}.start", entry["start"], [m for m in encoders if m != model],
                 "a named encoder (encoder.models) or another tuned encoder")
        loss = entry.get("loss", tuning.get("defaults", {}).get("loss"))
        source = "gold_years" if loss in ("cosent", "cosine") else "pairs"
        if not entry.get(source, tuning.get("defaults", {}).get(source)):
            problems.append(f"{where}: loss {loss!r} trains on {source}, which it does not give")
    for model in tuned:  # a start chain that comes back to itself would recurse for ever (A -> B -> A)
        chain, current = [model], tuned[model].get("start")
        while current in tuned and current not in chain:
            chain.append(current)
            current = tuned[current].get("start")
        if current in chain and model == min(chain[chain.index(current):]):
            cycle = chain[chain.index(current):] + [current]
            problems.append(f"encoder.tuning.models.{model}.start: {' -> '.join(cycle)} is a cycle; a tuned encoder "
                            "must start, through its starts, from a named encoder (encoder.models)")
    for i, model in enumerate(tuning.get("dev_check", [])):
        need(f"encoder.tuning.dev_check[{i}]", model, list(tuned), "a model in encoder.tuning.models")
        if model in tuned and not tuned[model].get("dev_years"):
            problems.append(f"encoder.tuning.dev_check[{i}]: {model} has no dev_years to score")
    for run, entry in runs.items():
        if entry.get("stage") == "encoder" and "model" in entry:
            need(f"runs.{run}.model", entry["model"], list(tuned), "a model in encoder.tuning.models")
        if isinstance(entry.get("encoder"), str):
            need(f"runs.{run}.encoder", entry["encoder"], encoders, "an encoder (encoder.models or encoder.tuning.models)")
        elif isinstance(entry.get("encoder"), dict):
            for protocol in ("final", "dev"):
                need(f"runs.{run}.encoder.{protocol}", entry["encoder"][protocol], encoders,
                     "an encoder (encoder.models or encoder.tuning.models)")

    fusion = config.get("fusion", {})
    for feature, entry in fusion.get("paragram", {}).items():
        for protocol in ("final", "dev"):
            need(f"fusion.paragram.{feature}.{protocol}", entry[protocol], list(models), "a model in paragram.models")
    known_features = sorted({*features, *fusion.get("paragram", {})})
    for group, members in fusion.get("groups", {}).items():
        for i, name in enumerate(members):
            need(f"fusion.groups.{group}[{i}]", name, known_features,
                 "a feature (stsynth.features.FEATURES), paragram feature (fusion.paragram) or encoder similarity")
    fusion_runs = [name for name, entry in runs.items() if entry.get("stage") == "fusion"]
    for run in fusion_runs:
        for i, group in enumerate(runs[run].get("groups", [])):
            need(f"runs.{run}.groups[{i}]", group, list(fusion.get("groups", {})), "a group in fusion.groups")
    if "dev" in fusion:
        need_years("fusion.dev.train_years", fusion["dev"]["train_years"])
        need_years("fusion.train_years", fusion.get("train_years", []))
        need_years("fusion.dev.validate_years", fusion["dev"]["validate_years"])
    if "dev_table" in fusion:
        if fusion["dev_table"]["run"] not in fusion_runs:
            notes.append(f"fusion.dev_table.run: {fusion['dev_table']['run']!r} is not a fusion run in runs "
                         f"(known: {', '.join(fusion_runs) or 'none'}); the dev-protocol table is not built")
        for i, model in enumerate(fusion["dev_table"].get("paragram_models", [])):
            need(f"fusion.dev_table.paragram_models[{i}]", model, list(models), "a model in paragram.models")
    if "features" in config:
        need("features.vectors", config["features"]["vectors"], vector_sources(), "a word-vector source")

    run_names = list(runs)
    compare_runs = config.get("scoring", {}).get("compare", {})
    if compare_runs.get("reference") is not None:
        need("scoring.compare.reference", compare_runs["reference"], run_names, "a run in runs")
    for i, pair in enumerate(compare_runs.get("pairs", [])):
        for j, run in enumerate(pair):
            need(f"scoring.compare.pairs[{i}][{j}]", run, run_names, "a run in runs")
    report = config.get("report", {})
    for i, run in enumerate(report.get("scatter_runs", [])):
        need(f"report.scatter_runs[{i}]", run, run_names, "a run in runs")
    for run in report.get("paper_systems", {}):
        need(f"report.paper_systems.{run}", run, run_names, "a run in runs")
    for run in report.get("training_curves", {}):
        need(f"report.training_curves.{run}", run, run_names, "a run in runs")
    for run, models_of_run in report.get("training_curves", {}).items():
        for i, model in enumerate(models_of_run):
            need(f"report.training_curves.{run}[{i}]", model, list(models), "a model in paragram.models")

    problems += sts2017_system_problems(config, need, need_years, tables)

    if problems:
        raise ConfigError(f"{config_name}: {len(problems)} problem(s):\n  " + "\n  ".join(problems))
    return [f"{config_name}: {note}" for note in notes]


def sts2017_system_problems(config: dict, need, need_years, tables: list[str]) -> list[str]:
    """The SemEval-2017 system's sections: paraphrase-embedding models, the event corpus, the
    sentence-vector sources, the regression head and its runs, and Table 1's rows (``need`` and
    ``need_years`` record into check_config's problems; the rest is returned)."""
    from .sentence_vectors import source_kind

    problems = []
    pe = config.get("paraphrase_cnn", {})
    pe_models = pe.get("models", {})
    for model, entry in pe_models.items():
        where = f"paraphrase_cnn.models.{model}"
        merged = {**pe.get("defaults", {}), **entry}
        for i, table in enumerate(merged.get("pairs", [])):
            need(f"{where}.pairs[{i}]", table, tables, "a paraphrase pair table (paraphrase_pairs.tables, synthetic "
                 "or synthetic-<year>-<dataset>)")
        need(f"{where}.vectors", merged.get("vectors"), vector_sources(), "a word-vector source")
        need_years(f"{where}.gold_years", merged.get("gold_years", []))
        need_years(f"{where}.dev_years", merged.get("dev_years", []))
        if merged.get("width", 1) % 2 == 0:
            problems.append(f"{where}.width: {merged['width']} is even; the convolution width must be odd (its output "
                            "keeps the sentence's length)")
    if "grid" in pe:
        need("paraphrase_cnn.grid.model", pe["grid"]["model"], list(pe_models), "a model in paraphrase_cnn.models")
    if "events" in config:
        need_years("events.corpus.pair_years", config["events"]["corpus"]["pair_years"])
    head = config.get("head", {})
    if "dev" in head:
        need_years("head.dev.train_years", head["dev"]["train_years"])
        need_years("head.dev.validate_years", head["dev"]["validate_years"])
        need_years("head.train_years", head.get("train_years", []))
    sources = config.get("sentence_vectors", {})
    encoders = {*config.get("encoder", {}).get("models", {}), *config.get("encoder", {}).get("tuning", {}).get("models", {})}
    used_events = False
    runs = config.get("runs", {})
    head_runs = [run for run, entry in runs.items() if entry.get("stage") == "head"]
    read = {source for run in head_runs for source in runs[run].get("vectors", [])}
    for name, entry in sources.items():
        try:
            kind, value = source_kind(name, entry)
        except ValueError as error:
            problems.append(str(error))
            continue
        for protocol, model in (value.items() if isinstance(value, dict) else [("", value)]):
            where = f"sentence_vectors.{name}.{kind}" + (f".{protocol}" if protocol else "")
            if kind in ("mean", "events"):
                need(where, model, vector_sources(), "a word-vector source")
                used_events |= name in read and model in EVENT_VECTOR_SOURCES
            elif kind == "paraphrase_cnn":
                need(where, model, list(pe_models), "a model in paraphrase_cnn.models")
            else:
                need(where, model.split(".fold")[0], sorted(encoders), "an encoder (encoder.models or encoder.tuning.models)")
    if used_events and "events" in config and not config["events"]["corpus"]["kjv"] and \
            not config["events"]["corpus"]["pair_years"]:
        problems.append("events.corpus: kjv is null and pair_years is empty, but a head run reads the event "
                        "embeddings or word2vec, which are trained on that corpus")
    presets = list(head.get("presets", {}))
    for run in head_runs:
        for i, source in enumerate(runs[run].get("vectors", [])):
            need(f"runs.{run}.vectors[{i}]", source, list(sources), "a sentence-vector source (sentence_vectors)")
        if "preset" in runs[run]:
            need(f"runs.{run}.preset", runs[run]["preset"], presets, "a preset in head.presets")
    for run in config.get("report", {}).get("paper_table1", {}):
        need(f"report.paper_table1.{run}", run, head_runs, "a regression-head run (stage head) in runs")
    return problems
