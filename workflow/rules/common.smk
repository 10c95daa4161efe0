# Shared helpers: dataset table, manifest, wildcard constraints, output paths.
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(workflow.basedir) / "workflow"))  # the stsynth package, for this file's helpers

from stsynth.corpus import read_manifest
from stsynth.pairs import Dataset

# Workflow scripts import the stsynth package from workflow/ (also inside conda envs and cluster jobs).
os.environ.update(
    PYTHONPATH=os.pathsep.join(filter(None, [str(Path(workflow.basedir) / "workflow"), os.environ.get("PYTHONPATH")]))
)

DATASETS = {(d["year"], d["name"]): Dataset.from_config(d) for d in config["datasets"]}
MANIFEST = read_manifest(config["corpus"]["manifest"])
ENV = "../../envs/stsynth.yaml"

for _dataset in DATASETS.values():
    for _relpath in (_dataset.input, _dataset.gold):
        if _relpath not in MANIFEST:
            raise ValueError(f"config.yaml: dataset {_dataset.year}/{_dataset.name} reads {_relpath}, "
                             f"which {config['corpus']['manifest']} does not list")


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
