# Shared helpers: dataset table, manifest, wildcard constraints, output paths.
import os
import re
import sys
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(workflow.basedir) / "workflow"))  # the stsynth package, for this file's helpers

from stsynth.config_checks import check_config
from stsynth.corpus import read_manifest
from stsynth.encoder import ENCODER_FEATURES
from stsynth.features import FEATURES
from stsynth.pairs import Dataset

# Workflow scripts import the stsynth package from workflow/ (also inside conda envs and cluster jobs).
os.environ.update(
    PYTHONPATH=os.pathsep.join(filter(None, [str(Path(workflow.basedir) / "workflow"), os.environ.get("PYTHONPATH")]))
)

MANIFEST = read_manifest(config["corpus"]["manifest"])
# Every name that points at another part of the config, checked before any job (stsynth.config_checks).
for _note in check_config(config, MANIFEST, {*FEATURES, *ENCODER_FEATURES}):
    logger.warning(_note)
DATASETS = {(d["year"], d["name"]): Dataset.from_config(d) for d in config["datasets"]}
ENV = "../../envs/stsynth.yaml"


def _alternatives(values):
    return "|".join(re.escape(str(v)) for v in sorted(set(values)))


wildcard_constraints:
    year=_alternatives(year for year, _ in DATASETS),
    dataset=_alternatives(name for _, name in DATASETS),
    relpath=_alternatives(MANIFEST),


def dataset(wildcards):
    return DATASETS[(int(wildcards.year), wildcards.dataset)]


def datasets_with(role=None, track=None):
    return [d for d in DATASETS.values() if role in (None, d.role) and track in (None, d.track)]


def pairs_path(d):
    return f"resources/pairs/{d.year}/{d.name}.parquet"


def tokens_path(d):
    return f"resources/pairs/{d.year}/{d.name}.tokens.parquet"


def predictions_path(run, d):
    return f"results/predictions/{run}/{d.year}/{d.name}.txt"


def english_tokens_path(d):
    """The token table that English-only models read for dataset d.

    es-en sets are routed through translation (rules translate_pairs, tokenize_translated in
    translate.smk: s1 translated to English with config `translate`), so every model-based run
    reads one English table per dataset.
    """
    if d.track == "es-en":
        return f"resources/translated/{d.year}/{d.name}.tokens.parquet"
    return tokens_path(d)


def english_pairs_path(d):
    """The pair table whose s1 and s2 are both English: es-en sets go through translation."""
    return f"resources/translated/{d.year}/{d.name}.parquet" if d.track == "es-en" else pairs_path(d)


def round_trips_path(d):
    """English -> Spanish -> English round trips of both sides of every line (synthetic.smk)."""
    return f"resources/round_trips/{d.year}/{d.name}.parquet"


def per_set_model(d):
    """The paragram model of run synthetic-per-set for test set d (see PARAGRAM_MODELS)."""
    return f"synthetic-per-set-{d.year}-{d.name}"


# Params are Snakemake's rerun trigger for config values: it compares them between runs when they
# are plain Python values (a dataclass such as Dataset is silently left out), so rules get dicts.
def dataset_entry(wc):
    """The dataset's config entry, as the plain dict its rules take as a param."""
    return asdict(dataset(wc))


def manifest_facts(wc):
    """What a corpus copy is (path, sha256, size); where it comes from is not part of it."""
    entry = MANIFEST[wc.relpath]
    return {"relpath": entry.relpath, "sha256": entry.sha256, "bytes": entry.bytes}
