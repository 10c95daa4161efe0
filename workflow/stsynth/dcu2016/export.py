"""A paragram model as a sentence-transformers model folder, so others load it without this package::

    from sentence_transformers import SentenceTransformer
    model = SentenceTransformer("resources/models/task-internal.sentence-transformers")
    a, b = model.encode(["A man is playing a guitar.", "A man plays the guitar."])

The folder chains the library's own modules, one per step of stsynth.dcu2016.sentence_model:

1. ``WordEmbeddings``: the model's word vectors, with a Hugging Face ``tokenizers`` word-level
   tokenizer: lowercase, then a regular-expression split that approximates the Moses tokenizer the
   pipeline uses (:data:`MOSES_LIKE`). An unknown word maps to the row the pipeline maps it to (the
   seeded rare word, ``unknown: rare``) or to an extra zero row of weight 0 (``unknown: skip``).
2. ``WordWeights``: each word's weight in the mean (1, or SIF's a / (a + p(w))).
3. ``Pooling`` (mean): with the weights above, the weighted mean of the pipeline.
4. ``Dense`` without bias or activation: ``I - C^T C``, the removal of the principal components C.

On the same tokens the cosines are the pipeline's (float32); the only difference is the tokenizer,
measured by :func:`export_check` (the share of sentences tokenized alike, per dataset).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from ..core.similarity import cosines
from .sentence_model import SentenceModel

# English clitics split off as Moses does ("don't" -> "don" "'t"), an ellipsis, a run of dashes,
# dotted abbreviations ("u.s."), words (letters/digits joined by inner hyphens, dots or commas:
# "well-known", "3.5", "1,000"), any other character alone. Moses tokens of the 18,366 STS 2016
# sentences: 97.6% of the sentences split alike (the rest: Moses's non-breaking prefixes such as
# "sen." and its context rules for apostrophes).
MOSES_LIKE = r"'(?:s|t|re|ve|ll|d|m)\b|\.\.\.|-{2,}|(?:[^\W\d_]\.){2,}|[^\W_]+(?:[-.,][^\W_]+)*|\S"
SKIPPED = "[skipped]"  # the zero-weight row unknown words map to when the model skips them


def tokenizer_for(words: list[str], unknown_token: str):
    from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.WordLevel({word: row for row, word in enumerate(words)}, unk_token=unknown_token))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Split(Regex(MOSES_LIKE), behavior="isolated")]
    )
    return PreTrainedTokenizerFast(tokenizer_object=tokenizer, unk_token=unknown_token, model_max_length=1_000_000)


def to_sentence_transformer(model: SentenceModel, folder: str | Path, device: str = "cpu"):
    """Write ``model`` as a sentence-transformers folder (safetensors weights); returns the model on
    ``device`` (config.yaml's ``device``, stsynth.core.device) for the check."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Dense, Pooling, WordEmbeddings, WordWeights

    from ..core.device import resolve_device

    words = list(model.words)
    embeddings = model.paragram.embeddings.detach().float().numpy()
    weights = model.paragram.weights.detach().float().numpy()
    if model.unknown is None:
        words.append(SKIPPED)
        embeddings = np.vstack([embeddings, np.zeros((1, embeddings.shape[1]), dtype=np.float32)])
        weights = np.append(weights, np.float32(0.0))
    unknown_token = SKIPPED if model.unknown is None else words[model.unknown]
    word_embeddings = WordEmbeddings(tokenizer_for(words, unknown_token), embeddings)
    word_weights = WordWeights(words, {word: float(w) for word, w in zip(words, weights)}, unknown_word_weight=0.0)
    pooling = Pooling(embeddings.shape[1], pooling_mode="mean")
    components = model.paragram.components.detach().double()
    removal = (torch.eye(embeddings.shape[1], dtype=torch.float64) - components.T @ components).float()
    dense = Dense(
        embeddings.shape[1],
        embeddings.shape[1],
        bias=False,
        activation_function=torch.nn.Identity(),
        init_weight=removal,
    )
    transformer = SentenceTransformer(modules=[word_embeddings, word_weights, pooling, dense], device="cpu")
    transformer.save(str(folder))
    transformer.to(resolve_device(device))
    return transformer


def moses_like_tokens(sentence: str) -> list[str]:
    return re.findall(MOSES_LIKE, sentence.lower())


def export_check(transformer, sets) -> pd.DataFrame:
    """The exported model against the pipeline, per dataset: ``sets`` are ``(name, pairs, tokens,
    similarity)`` tables (English pair table, its Moses tokens, the model's cosines).

    Schema: dataset string, lines int64 (pairs, scored or not), same_tokens float64 (share of sentences the exported
    tokenizer splits as Moses did), max_difference float64 (largest |cosine difference| over pairs
    whose two sentences are tokenized alike: the modules' own numerical difference), pearson_pipeline
    and pearson_exported float64 (official Pearson of each model's 5 x cosine over the scored pairs).
    """
    from ..core.correlations import correlations

    rows = []
    for name, pairs, tokens, similarity in sets:
        sides = [(list(pairs[s]), [list(t) for t in tokens[t]]) for s, t in (("s1", "tokens1"), ("s2", "tokens2"))]
        alike = [np.array([moses_like_tokens(s) == t for s, t in zip(*side)]) for side in sides]
        vectors = [transformer.encode(side[0], convert_to_numpy=True, batch_size=256) for side in sides]
        exported = cosines(vectors[0], vectors[1])
        pipeline = similarity["cosine"].to_numpy()
        both = alike[0] & alike[1]
        gold = pairs["gold"].to_numpy(dtype=np.float64)
        rows.append(
            {
                "dataset": name,
                "lines": len(pairs),
                "same_tokens": float(np.concatenate(alike).mean()) if len(pairs) else float("nan"),
                "max_difference": float(np.abs(exported - pipeline)[both].max()) if both.any() else float("nan"),
                "pearson_pipeline": correlations([(name, pipeline, gold)])[0][2],
                "pearson_exported": correlations([(name, exported.astype(np.float64), gold)])[0][2],
            }
        )
    return pd.DataFrame(rows).astype({"dataset": "string", "lines": "int64"})
