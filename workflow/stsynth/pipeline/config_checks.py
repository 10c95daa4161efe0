"""Start-up checks of config.yaml that its JSON schema cannot express: names that point at another
part of the config (tables, models, runs, feature groups, datasets), repeated datasets and values that
only make sense together (a range's ends, a held-out fold and its fold count). The protocol's own sets are
checked before, where it is resolved (stsynth.pipeline.protocol.protocol_problems): every year a stage reads
comes from it.

``check_config`` runs one checker per config section (:data:`SECTION_CHECKS`), each adding the problems
it finds, named by their key path, to what the sections share (stsynth.pipeline.checks.Checks); then it raises one
ConfigError listing them all, so a user fixes them in one go instead of meeting them one by one as
missing files deep in the DAG.
"""

from __future__ import annotations

from typing import Callable

from ..core.pairs import named_twice
from ..core.paths import ENCODABLE_SOURCE, ENCODABLE_SOURCES
from ..core.wording import counted
from ..encoders.tuning import SENTENCE_GRADED_LOSSES
from .checks import Checks, ConfigError
from .config_checks_2017 import check_head, check_paraphrase_cnn, check_sentence_vectors, sts2017_leak_problems
from .plan import layered_settings
from .protocol import model_sets
from .runs import SEEDED_STAGES


def check_datasets(c: Checks) -> None:
    """Each dataset declared once, its columns and score range sound, its files in the manifest (every declared
    entry, as written: its index is the declared list's); no STS Benchmark training next to an STS 2017 test."""
    seen: dict[tuple, int] = {}
    for index, entry in enumerate(c.declared):
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


def check_paraphrase_pairs(c: Checks) -> None:
    pairs = c.config.get("paraphrase_pairs", {})
    if "sweep" in pairs:
        sweep = pairs["sweep"]
        c.need_model("paraphrase_pairs.sweep.model", sweep["model"])
        if sweep["start"] > sweep["stop"]:
            c.problems.append(
                f"paraphrase_pairs.sweep: start {sweep['start']} is above stop {sweep['stop']}, "
                "so the sweep has no threshold"
            )


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
        check_more_encoders(c, run, entry)


def check_more_encoders(c: Checks, run: str, entry: dict) -> None:
    """A fusion run's more encoders: known encoders, not its own encoder again, beside an encoder feature, and
    read in-sample (a tuned one is not read out of fold: fusion.encoder_folds 0)."""
    more = entry.get("more_encoders", [])
    if not more:
        return
    key = f"runs.{run}.more_encoders"
    if entry.get("stage") != "fusion":
        c.problems.append(f"{key}: only a fusion run reads more encoders (this one is stage {entry.get('stage')})")
        return
    from ..encoders.encoder import ENCODER_FEATURES

    groups = c.config.get("fusion", {}).get("groups", {})
    if not any(f in ENCODER_FEATURES for g in entry.get("groups", []) for f in groups.get(g, [])):
        c.problems.append(f"{key}: the run's groups hold no encoder feature ({', '.join(ENCODER_FEATURES)}) to join")
    own = entry.get("encoder") or c.config.get("encoder", {}).get("default")
    own_names = set(own.values()) if isinstance(own, dict) else {own}
    for i, name in enumerate(more):
        names = (
            [(f"{key}[{i}].{p}", name[p]) for p in ("final", "dev")]
            if isinstance(name, dict)
            else [(f"{key}[{i}]", name)]
        )
        for where, encoder in names:
            c.need_encoder(where, encoder)
            if encoder in own_names:
                c.problems.append(f"{where}: {encoder!r} is the run's own encoder already")
            if encoder in c.tuned and c.config.get("fusion", {}).get("encoder_folds", 0):
                c.problems.append(
                    f"{where}: a tuned encoder among more_encoders is read in-sample; set fusion.encoder_folds: 0 "
                    "or make it the run's encoder"
                )


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
    for name, entry in c.named.items():
        if "hub" in entry and (problem := hub_name_problem(entry["hub"])):
            c.problems.append(f"encoder.models.{name}.hub: {entry['hub']!r} is not a Hugging Face hub name: {problem}")
    for model, entry in c.tuned.items():
        where = f"encoder.tuning.models.{model}"
        c.need_tables(where, entry.get("pairs", []))
        if entry.get("start") is not None:
            c.need(
                f"{where}.start",
                entry["start"],
                [m for m in c.encoders if m != model],
                "a named encoder (encoder.models) or another tuned encoder",
            )
        loss = entry.get("loss", defaults.get("loss"))
        if loss == "mnrl" and not entry.get("pairs", defaults.get("pairs")):
            c.problems.append(f"{where}: loss {loss!r} trains on pairs, which it does not give")
        elif loss != "mnrl" and not model_sets(c.config, model, entry.get("protocol"))["gold_years"]:  # graded
            c.problems.append(
                f"{where}: loss {loss!r} trains on gold pairs, and its protocol gives it no set to learn from"
            )
        if entry.get("frozen_layers", defaults.get("frozen_layers", 0)) and loss not in SENTENCE_GRADED_LOSSES:
            c.problems.append(
                f"{where}.frozen_layers: trains above stored states with a "
                f"{' or '.join(SENTENCE_GRADED_LOSSES)} loss only, not {loss!r}"
            )
    c.problems += start_cycles(c.tuned)
    for i, model in enumerate(tuning.get("dev_check", [])):
        c.need(f"encoder.tuning.dev_check[{i}]", model, list(c.tuned), "a model in encoder.tuning.models")
        if model in c.tuned and not model_sets(c.config, model, c.tuned[model].get("protocol"))["dev_years"]:
            c.problems.append(
                f"encoder.tuning.dev_check[{i}]: {model} is scored on no dev set (a dev-protocol twin, <model>-dev, is)"
            )


def early_problems(config: dict) -> list[str]:
    """The checks that need no valid config (reported beside the schema's problems, in the same pass): every hub
    name huggingface_hub refuses."""
    models = (config.get("encoder") or {}).get("models") or {}
    return [
        f"encoder.models.{name}.hub: {entry['hub']!r} is not a Hugging Face hub name: {problem}"
        for name, entry in models.items()
        if isinstance(entry, dict) and isinstance(entry.get("hub"), str) and (problem := hub_name_problem(entry["hub"]))
    ]


def hub_name_problem(name: str) -> str | None:
    """What is wrong with a hub name (huggingface_hub's own rule: ``org/name`` of letters, digits, ``-_.``), or
    None."""
    from huggingface_hub.errors import HFValidationError
    from huggingface_hub.utils import validate_repo_id

    try:
        validate_repo_id(name)
    except HFValidationError as error:
        return str(error).split("\n", 1)[0]
    return None


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


# One checker per config section, in the order their problems are listed.
SECTION_CHECKS = (
    check_datasets,
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
    config: dict,
    manifest: set[str] | dict,
    features: set[str] = frozenset(),
    origins: Callable[[str], str] = None,
    declared_datasets: list[dict] | None = None,
) -> list[str]:
    """Raise ConfigError listing every dangling reference or repeated entry; return notes to log.

    manifest: the relative paths the corpus manifest lists; features: the names a fusion group may
    use besides the paragram features (stsynth.dcu2016.features.FEATURES and the encoder similarities);
    origins: where a key was set (stsynth.pipeline.overlays.ConfigOrigins), added to each problem;
    declared_datasets: the datasets as declared, before the protocol kept its own (default: the config's).
    """
    checks = Checks(config, manifest, features, declared_datasets)
    for check in SECTION_CHECKS:
        check(checks)
    origins = origins or (lambda key: "")
    if checks.problems:
        problems = [f"{problem}{origins(problem.split(':', 1)[0])}" for problem in checks.problems]
        raise ConfigError(f"config: {counted(len(problems), 'problem')}:\n  " + "\n  ".join(problems))
    return [f"config: {note}{origins(note.split(':', 1)[0])}" for note in checks.notes]
