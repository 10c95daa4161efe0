"""Start-up checks of the SemEval-2017 system's config sections (paraphrase_cnn, head, sentence_vectors) and of
its test set: nothing trained or chosen on the STS Benchmark beside STS 2017 track 5, whose pairs it holds.
check_config (stsynth.pipeline.config_checks) runs them with the other sections' checks.
"""

from __future__ import annotations

from ..core.folds import base_model
from ..core.paths import ENCODABLE_SOURCE, ENCODABLE_SOURCES, EVENT_VECTOR_SOURCES
from .checks import Checks
from .plan import layered_settings
from .runs import sentence_vector_source

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


def check_paraphrase_cnn(c: Checks) -> None:
    """The SemEval-2017 system's paraphrase-embedding models and their grid."""
    pe = c.config.get("paraphrase_cnn", {})
    pe_models = pe.get("models", {})
    for model, entry in pe_models.items():
        where = f"paraphrase_cnn.models.{model}"
        merged = layered_settings(pe.get("defaults", {}), entry)
        c.need_tables(where, merged.get("pairs", []))
        c.need_vectors(f"{where}.vectors", merged.get("vectors"))
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
    if "grid" in pe and pe_models:  # the grid of a config with paraphrase embeddings (config/sts2017.yaml)
        c.need("paraphrase_cnn.grid.model", pe["grid"]["model"], list(pe_models), "a model in paraphrase_cnn.models")


def check_head(c: Checks) -> None:
    """The SemEval-2017 system's regression head: its presets and runs (its sets and the event corpus's are the
    protocol's: stsynth.pipeline.protocol)."""
    head = c.config.get("head", {})
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
    if used_events and events and not events["corpus"]["kjv"] and not events["corpus"].get("pairs", True):
        c.problems.append(
            "events.corpus: kjv is null and pairs is false, but a head run reads the event "
            "embeddings or word2vec, which are trained on that corpus"
        )
