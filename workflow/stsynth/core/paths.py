"""Every path the workflow reads or writes, in one place: rules, scripts, the report and the model
cards ask here; nothing else builds a path string.

Per-dataset tables are ``{folder}/{year}/{name}{suffix}`` (a dataset without a year: ``0/``); a
rule's output pattern is the same function called with :data:`WILDCARDS`. The path functions take
names (a run, a model, an encoder) or a Dataset; which files a job reads is stsynth.pipeline.plan's business,
built from these.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING

from .corpus import CORPUS_COPIES

if TYPE_CHECKING:  # annotations only: the `stsynth` command reads paths at start-up without pandas
    from .datasets import Dataset

# The publications' figures (paper, task and participants' tables, with their sources): read by the report,
# Table 1 and the docs; a declared input of the jobs that read it.
PUBLISHED_FIGURES = str(Path(__file__).parents[1] / "results" / "published_figures.yaml")  # beside its readers


def checkout_path(location: str, checkout: str) -> str:
    """A relative local path as a path inside the checkout; URLs and absolute paths as they are."""
    if re.match(r"^[a-z]+://", location) or Path(location).is_absolute():
        return location
    return str(Path(checkout) / location)


def dataset_file(folder: str, d: Dataset, suffix: str = ".parquet") -> str:
    """``{folder}/{year}/{name}{suffix}``: where every per-dataset table lives."""
    return f"{folder}/{d.year}/{d.name}{suffix}"


def _per_dataset(folder: str, suffix: str = ".parquet", doc: str = "") -> Callable[[Dataset], str]:
    """The path function of one kind of per-dataset table: d -> :func:`dataset_file` ``(folder, d, suffix)``."""

    def path(d: Dataset) -> str:
        return dataset_file(folder, d, suffix)

    path.__doc__ = doc or f"``{folder}/{{year}}/{{name}}{suffix}``"
    return path


def _model_file(suffix: str, doc: str = "") -> Callable[[str], str]:
    """The path function of one kind of model file: model -> ``resources/models/{model}{suffix}``."""

    def path(model: str) -> str:
        return f"resources/models/{model}{suffix}"

    path.__doc__ = doc or f"``resources/models/{{model}}{suffix}``"
    return path


# The sha256 of every local dataset file, recorded the first time a run reads it (stsynth.core.local_files).
DATASETS_LOCK = "results/datasets.lock.tsv"

# A rule's output pattern for per-dataset tables: the path functions below with the wildcards.
WILDCARDS = SimpleNamespace(year="{year}", name="{dataset}")


def corpus_copy(relpath: str) -> str:
    """The verified copy of a corpus file (its manifest path)."""
    return f"{CORPUS_COPIES}{relpath}"


LOGS, BENCHMARKS = "logs", "benchmarks"  # the folders of every job's log and benchmark


def log_path(job: str) -> str:
    """A job's log (``logs/<job>.log``; ``job`` names its stage and, with wildcards, the job: every rule's
    ``log:``)."""
    return f"{LOGS}/{job}.log"


def benchmark_path(job: str) -> str:
    """A job's benchmark (``benchmarks/<job>.tsv``, Snakemake's ``benchmark:``, read by ``make bench`` and the
    report's job times)."""
    return f"{BENCHMARKS}/{job}.tsv"


def corpus_fetch_log(relpath: str) -> str:
    """fetch_corpus_file's log of a copy: it names the sha256 the copy was verified against."""
    return log_path(f"corpus/{relpath}")


def paraphrase_table(table: str) -> str:
    return f"resources/paraphrase_pairs/{table}.parquet"


def synthetic_counts(table: str) -> str:
    return f"results/synthetic/{table}.counts.md"


language_path = _per_dataset("resources/language")
pairs_path = _per_dataset("resources/pairs")
tokens_path = _per_dataset("resources/pairs", ".tokens.parquet")
round_trips_path = _per_dataset("resources/round_trips")
features_path = _per_dataset("resources/features")
events_path = _per_dataset(
    "resources/events", doc="The event tokens of a dataset's sentences (stsynth.sts2017.events)."
)


def translated_path(d: Dataset, suffix: str = ".parquet") -> str:
    return dataset_file("resources/translated", d, suffix)


def english_pairs_path(d: Dataset) -> str:
    """The pair table whose s1 and s2 are both English: es-en sets go through translation."""
    return translated_path(d) if d.track == "es-en" else pairs_path(d)


def english_tokens_path(d: Dataset) -> str:
    """The token table that English-only models read: es-en sets' s1 translated (rule translate_pairs)."""
    return translated_path(d, ".tokens.parquet") if d.track == "es-en" else tokens_path(d)


def similarity_path(model: str, d: Dataset) -> str:
    return dataset_file(f"resources/similarity/{model}", d)


def encoder_path(encoder: str, d: Dataset) -> str:
    """Similarities of a named or tuned encoder (or a tuned encoder's fold model) on dataset d."""
    return dataset_file(f"resources/encoder/{encoder}", d)


def hub_record_path(encoder: str) -> str:
    """What the hub_fetch job fetched for a hub encoder (stsynth.encoders.hub), as JSON."""
    return f"resources/hub/{encoder}.json"


def onnx_path(encoder: str, precision: str) -> str:
    """A named or tuned encoder's transformer exported to ONNX (stsynth.encoders.onnx_backend; ``fp32`` or ``int8``)."""
    return f"resources/onnx/{encoder}/{precision}.onnx"


def predictions_path(run: str, d: Dataset) -> str:
    return predictions_file(run, d.year, d.name)


def predictions_file(run: str, year: int, name: str) -> str:
    """``results/predictions/{run}/{year}/{name}.txt``: one score per line of the dataset's input."""
    return f"results/predictions/{run}/{year}/{name}.txt"


model_path = _model_file(".safetensors")
export_folder = _model_file(
    ".sentence-transformers", "A paragram model as a sentence-transformers folder (stsynth.dcu2016.export)."
)
vocabulary_path = _model_file(".vocab.parquet")
epochs_path = _model_file(".epochs.parquet", "A paragram model's or tuned encoder's per-epoch loss and dev scores.")
tuned_encoder_folder = _model_file("", "A fine-tuned encoder: a sentence-transformers model folder.")


def vectors_path(source: str) -> str:
    return f"resources/vectors/{source}.parquet"


# The word-vector source whose words `unknown: encode` can encode, and the sources whose vocabulary is its.
ENCODABLE_SOURCE = "minilm-static"
PPDB_TUNED = (
    "ppdb-paragram-"  # ppdb-paragram-<base>: a base source tuned on PPDB lexical pairs (rule vectors_ppdb_paragram)
)
ENCODABLE_SOURCES = (ENCODABLE_SOURCE, f"{PPDB_TUNED}{ENCODABLE_SOURCE}")


def projection_path(source: str) -> str:
    """The PCA that made a source's vectors (minilm-static), kept to project the words met later."""
    return f"resources/vectors/{source}.projection.npz"


def unknown_vectors_path(d: Dataset) -> str:
    """The vectors of dataset d's words that minilm-static's vocabulary lacks (``unknown: encode``)."""
    return dataset_file(f"resources/vectors/{ENCODABLE_SOURCE}.unknown", d)


def scores_path(name: str, suffix: str = "parquet") -> str:
    """A run's scores, or a comparisons table (``comparisons``, ``study_comparisons``)."""
    return f"results/scores/{name}.{suffix}"


def fusion_path(run: str, name: str) -> str:
    """A fusion run's own files: dev.parquet, predictions.parquet, model.npz, importances, ablation."""
    return f"results/fusion/{run}/{name}"


def paragram_result_path(model: str, name: str) -> str:
    """A paragram model's checks: unknown_words.*, export_check.*."""
    return f"results/paragram/{model}/{name}"


def release_folder(run: str) -> str:
    """A run's model released with its card (stsynth.results.model_card)."""
    return f"results/models/{run}"


# --- the SemEval-2017 system (stsynth.sts2017.paraphrase_cnn, stsynth.sts2017.events, stsynth.sts2017.head) ---


def pe_model_path(model: str, suffix: str = ".safetensors") -> str:
    """A paraphrase-embedding model (``.safetensors``), its vocabulary (``.vocab.parquet``) and its
    per-epoch log (``.epochs.parquet``)."""
    return f"resources/models/{model}.pe{suffix}"


# The event corpus (stsynth.sts2017.events): its documents, their entity chains of event tokens, its sentences.
EVENT_CORPUS = {name: f"resources/events/corpus/{name}.parquet" for name in ("documents", "chains", "sentences")}
# The word-vector sources trained on it (rule event_embeddings), each with the part of the corpus it reads:
# the event embeddings (EE) its entity chains of event tokens, the W2V baseline its sentences.
EVENT_VECTOR_SOURCES = {"event-embeddings": "chains", "word2vec": "sentences"}


def sentence_vectors_path(kind: str, name: str, d: Dataset) -> str:
    """A source's sentence vectors of dataset d (stsynth.sts2017.sentence_vectors; kind: mean, events,
    paraphrase_cnn, encoder)."""
    return dataset_file(f"resources/sentence_vectors/{kind}/{name}", d)


def head_path(run: str, name: str) -> str:
    """A regression-head run's own files: dev.parquet, predictions.parquet, model.safetensors."""
    return f"results/head/{run}/{name}"


# Paper tables generated from the build: name -> path without suffix (.parquet, .md).
PAPER_TABLES = {"sts2017_table1": "results/papers/sts2017_table1"}


# The two reports (stsynth.results.report): part -> where it is written.
REPORT_PARTS = {"results": "results/report.md", "studies": "results/studies.md"}

# The study tables, each written by one rule (results/studies.md reads them).
STUDY_TABLES = {
    "language": "results/language/accuracy.parquet",
    "dev_table": "results/fusion/dev_table.parquet",
    "threshold_sweep": "results/paragram/threshold_sweep.parquet",
    "sources": "results/paragram/sources.parquet",
    "dev_check": "results/synthetic/dev_check.parquet",
    "encoder_dev_check": "results/encoder_tuning/dev_check.parquet",
    "mt_comparison": "results/crosslingual/mt_comparison.parquet",
    "pe_grid": "results/paraphrase_cnn/grid.parquet",
    "seed_study": "results/seed_study/spread.parquet",
    "decisions": "results/fusion/decisions.parquet",
}
SEED_STUDY_SIGNS = "results/seed_study/signs.parquet"  # the seed study's second table (stsynth.results.seed_study)


def seed_study_importances_path(run: str, suffix: str = ".parquet") -> str:
    """A seeded fusion run's importance spread (rule seed_study_importances; stsynth.results.seed_study)."""
    return f"results/seed_study/importances/{run}{suffix}"


def study_file(key: str, suffix: str = ".md") -> str:
    """A study table's companion file (its Markdown, or its plot)."""
    return STUDY_TABLES[key].removesuffix(".parquet") + suffix


# --- `snakemake eval` (stsynth.eval.evaluation) ---------------------------------------------------------
EVAL_DIR = "results/eval"
# each protocol's working directory, as the Makefile's targets and the `stsynth` command run it (its tree)
# MTEB's results layout under its cache root: results/{model name, / as __}/{revision}/{Task}.json
# (mteb.cache.ResultCache(EVAL_MTEB_CACHE).load_results reads it).
EVAL_MTEB_CACHE = f"{EVAL_DIR}/mteb"
EVAL_LEADERBOARD = {
    "markdown": f"{EVAL_DIR}/leaderboard.md",
    "table": f"{EVAL_DIR}/leaderboard.parquet",
    "plot": f"{EVAL_DIR}/leaderboard.png",
}


def eval_similarity_path(encoder: str, d: Dataset) -> str:
    """An encoder's similarity table of one dataset (schema: stsynth.eval.evaluation)."""
    return dataset_file(f"{EVAL_DIR}/similarity/{encoder}", d)


def eval_model_facts(encoder: str) -> str:
    """What the loaded encoder said of itself (dimension, max tokens, similarity function), as JSON."""
    return f"{EVAL_DIR}/similarity/{encoder}/model.json"


def eval_scores_path(encoder: str, suffix: str = "parquet") -> str:
    """An encoder's scores table (stsynth.core.scoring's schema; ``group`` = the task)."""
    return f"{EVAL_DIR}/scores/{encoder}.{suffix}"


def eval_mteb_file(folder: str, task: str, cache: str = EVAL_MTEB_CACHE) -> str:
    """A TaskResult JSON (or ``model_meta``) in MTEB's layout; ``folder``: stsynth.eval.evaluation.mteb_folder."""
    return f"{cache}/results/{folder}/{task}.json"


# The runs of `all` on the tasks MTEB knows (the 2016 English sets = its STS16), in MTEB's layout.
RUN_MTEB_CACHE = "results/mteb"
