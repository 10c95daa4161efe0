"""Paraphrase embeddings (PE) of the SemEval-2017 paraphrase/event-embedding system (its §2.1): a
convolutional network over word vectors, one network with shared weights for both sentences of a pair::

    word vectors [L, d] -> convolution (width w, F filters, tanh) -> max-pooling over positions [F]
                        -> fully connected (F -> D, tanh) -> fully connected (D -> D) = the sentence's PE

The paper also says the input is "created by averaging the word vectors"; read literally, the
convolution then runs over the dimensions of one averaged vector and sees no word order, although
the paper adds the CNN "because it better accounts for sentence structure". ``input: words`` (the
default) convolves over the sentence's words; ``input: average`` is the literal reading (a
one-channel signal of d values, same layers after it).

Training, in the paper's two steps (errors reach the word vectors too):

1. Paraphrase pairs, the margin loss of Wieting et al. (stsynth.word_vectors.paragram.margin_loss): for a pair
   (x1, x2) with negatives t1, t2 drawn uniformly from the other pairs of the batch,
   ``max(0, δ − cos(g1, g2) + cos(g1, t1)) + max(0, δ − cos(g1, g2) + cos(g2, t2))`` plus
   ``λc Σ‖Wc‖² + λw ‖W_init − W_w‖²``.
2. STS gold pairs, the regression objective of the head (stsynth.sts2017.head), the head trained with it.

Both with mini-batch Adagrad. The word vectors are an ``nn.Embedding`` with sparse gradients; the
λw term is taken over the rows of each batch (the rows a batch moves), not the whole table every
step: with λw ≤ 1e-5 the two differ in rows that a batch leaves alone only by a slower pull back
to W_init, and the dense version cost a full table update per step. Padding is a zero row that never
trains. A word the vocabulary lacks (``unknown``): ``encode`` adds its minilm-static vector from the word
alone (rule vectors_unknown_words) where a job meets it: the gold and dev sets' words before training
(stsynth.sts2017.paraphrase_cnn_fit.fit's ``vectors`` already hold them), each set's words before its
sentence vectors (:func:`with_words`); a word no batch uses keeps its initial vector, so an encoded word gets the vector
a vocabulary that held it would have left it with. Any other unknown word (and every one under ``row``)
maps to one trainable row that starts at zero.

Model files: ``resources/models/{model}.pe.safetensors`` (the network's tensors, ``embeddings.weight``
the word vectors [V + 2, d] with padding and unknown rows last; metadata ``stsynth``: JSON of the
settings), ``{model}.pe.vocab.parquet`` (``word`` string, one row per vocabulary row), and
``{model}.pe.epochs.parquet``: ``step`` string (``pretrain``, ``finetune``), ``epoch`` int32, ``loss``
float64, ``seconds`` float64, ``pairs`` int32, then ``dev_<year>_<dataset>`` / ``dev_ALL`` float64 (step
1: Pearson of the PE cosine; step 2: of the fine-tuning head's prediction; epoch 0: before training).
"""

from __future__ import annotations

import json
import logging
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F

from ..core.correlations import correlations
from ..core.model_files import METADATA_KEY, stored_settings
from ..core.progress import Progress
from ..word_vectors.paragram import choose_negatives, cosine, margin_loss
from ..word_vectors.vectors import WordVectors
from .head import TaiHead, head_loss, predict, target_distribution, train_epochs

log = logging.getLogger(__name__)
# torch's sparse Adagrad warns on every run that it skips its own invariant checks; the gradients are its own.
warnings.filterwarnings("ignore", message="Sparse invariant checks are implicitly disabled")

INPUTS = ("words", "average")


class ParaphraseCNN(torch.nn.Module):
    """Word vectors -> convolution -> max-pooling -> two fully connected layers (module docstring)."""

    def __init__(self, embeddings: torch.Tensor, filters: int, width: int, dimension: int, input: str = "words"):
        super().__init__()
        if input not in INPUTS:
            raise ValueError(f"input {input!r} is not one of {', '.join(INPUTS)}")
        if width < 1 or width % 2 == 0:
            raise ValueError(f"width {width}: the convolution width must be odd (the output keeps the input's length)")
        self.input = input
        self.pad = embeddings.shape[0] - 2  # padding row, then the unknown-word row
        self.embeddings = torch.nn.Embedding.from_pretrained(
            embeddings.float(), freeze=False, sparse=True, padding_idx=self.pad
        )
        channels = embeddings.shape[1] if input == "words" else 1
        self.convolution = torch.nn.Conv1d(channels, filters, width, padding=width // 2)
        self.hidden = torch.nn.Linear(filters, dimension)
        self.projection = torch.nn.Linear(dimension, dimension)

    def forward(self, indices: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        words = self.embeddings(indices)  # [B, L, d]
        if self.input == "words":
            states = torch.tanh(self.convolution(words.transpose(1, 2)))  # [B, F, L]
            states = states.masked_fill(mask.unsqueeze(1) == 0, float("-inf"))
        else:
            average = (words * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True).clamp_min(1)
            states = torch.tanh(self.convolution(average.unsqueeze(1)))  # [B, F, d]
        return self.projection(torch.tanh(self.hidden(states.max(dim=2).values)))

    def weights(self) -> list[torch.Tensor]:
        """Wc: the network's weight matrices (biases and word vectors excluded)."""
        return [self.convolution.weight, self.hidden.weight, self.projection.weight]


class Vocabulary:
    """Word -> embedding row; the padding and unknown rows follow the words."""

    def __init__(self, words: list[str]):
        self.words = list(words)
        self.index = {word: row for row, word in enumerate(self.words)}
        self.pad, self.unknown = len(self.words), len(self.words) + 1

    def rows(self, tokens) -> list[int]:
        return [self.index.get(token, self.unknown) for token in tokens]

    def unknown_share(self, sentences) -> tuple[int, int]:
        tokens = [token for sentence in sentences for token in sentence]
        return sum(token not in self.index for token in tokens), len(tokens)


def initial_table(vectors: WordVectors) -> torch.Tensor:
    """The word vectors with a zero padding row and a zero unknown-word row appended."""
    return torch.cat([torch.from_numpy(vectors.matrix.copy()), torch.zeros(2, vectors.dim)])


def build(vectors: WordVectors, settings: dict) -> tuple[ParaphraseCNN, Vocabulary]:
    torch.manual_seed(settings["seed"])
    model = ParaphraseCNN(
        initial_table(vectors), settings["filters"], settings["width"], settings["dimension"], settings["input"]
    )
    return model, Vocabulary(vectors.words)


def with_words(model: ParaphraseCNN, vocabulary: Vocabulary, extra: WordVectors) -> tuple[ParaphraseCNN, Vocabulary]:
    """The model with the words of ``extra`` its vocabulary lacks added before its padding and unknown
    rows (``unknown: encode``), the network's weights unchanged; the same model when it lacks none."""
    new = [word for word in extra.words if word not in vocabulary.index]
    if not new:
        return model, vocabulary
    weight = model.embeddings.weight.detach()
    if extra.dim != weight.shape[1]:
        raise ValueError(f"{extra.source}: {extra.dim}-d vectors for a model of {weight.shape[1]}-d word vectors")
    rows = extra.index()
    size = len(vocabulary.words)
    table = torch.cat([weight[:size], torch.from_numpy(extra.matrix[[rows[word] for word in new]]), weight[size:]])
    extended = ParaphraseCNN(
        table, model.convolution.out_channels, model.convolution.kernel_size[0], model.hidden.out_features, model.input
    )
    extended.load_state_dict({**model.state_dict(), "embeddings.weight": table})
    return extended.eval(), Vocabulary(vocabulary.words + new)


def pad(rows: list[list[int]], pad_row: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Index rows -> padded [N, L] indices and a 0/1 mask; an empty sentence keeps one (zero) position."""
    length = max([len(r) for r in rows] + [1])
    indices = torch.full((len(rows), length), pad_row, dtype=torch.long)
    mask = torch.zeros(len(rows), length)
    for i, row in enumerate(rows):
        indices[i, : len(row)] = torch.tensor(row, dtype=torch.long)
        mask[i, : max(len(row), 1)] = 1
    return indices, mask


@torch.no_grad()
def sentence_vectors(model: ParaphraseCNN, rows: list[list[int]], batch_size: int = 512) -> np.ndarray:
    """PE of every sentence (index rows), float32 [N, D]; sentences of similar length batched together."""
    model.eval()
    order = sorted(range(len(rows)), key=lambda i: len(rows[i]))
    out = torch.zeros(len(rows), model.projection.out_features)
    for start in range(0, len(order), batch_size):
        chunk = order[start : start + batch_size]
        out[chunk] = model(*pad([rows[i] for i in chunk], model.pad))
    return out.numpy()


def regularizer(model: ParaphraseCNN, initial: torch.Tensor, used: torch.Tensor, settings: dict) -> torch.Tensor:
    """λc Σ‖Wc‖² + λw ‖W_init − W_w‖² over the word-vector rows the batch used (module docstring)."""
    moved = F.embedding(used, model.embeddings.weight, sparse=True) - initial[used]
    return settings["lambda"] * sum((w**2).sum() for w in model.weights()) + settings["lambda"] * (moved**2).sum()


def _optimizers(parameters: list[torch.nn.Parameter], model: ParaphraseCNN, learning_rate: float):
    """Adagrad on the dense parameters and, with sparse updates, on the word vectors."""
    dense = [p for p in parameters if p is not model.embeddings.weight]
    return [
        torch.optim.Adagrad(dense, lr=learning_rate),
        torch.optim.Adagrad([model.embeddings.weight], lr=learning_rate),
    ]


def _train(
    step: str,
    modules: list[torch.nn.Module],
    count: int,
    epochs: int,
    settings: dict,
    batch_loss,
    optimizers,
    scored,
    what: str,
    rng: np.random.Generator,
) -> list[dict]:
    """Both steps' epochs (stsynth.sts2017.head.train_epochs: ``batch_loss(batch)`` -> the batch's loss, None to
    skip it); one record per epoch (epoch 0 = before training), ``scored()`` -> its dev scores."""
    records = [{"step": step, "epoch": 0, "loss": float("nan"), "seconds": 0.0, "pairs": count, **scored()}]
    progress = Progress(log, what, epochs * -(-count // settings["batch_size"]), "batches")
    for epoch, loss, seconds in train_epochs(
        modules, optimizers, count, epochs, settings["batch_size"], rng, batch_loss, progress
    ):
        records.append({"step": step, "epoch": epoch, "loss": loss, "seconds": seconds, "pairs": count, **scored()})
        log.info(
            "PE %s, epoch %d: loss %.5f, %s",
            step,
            epoch,
            loss,
            {k: round(v, 4) for k, v in records[-1].items() if k.startswith("dev_")},
        )
    progress.finish()
    return records


def pretrain(
    model: ParaphraseCNN, pairs: list[tuple[list[int], list[int]]], settings: dict, evaluate=None
) -> list[dict]:
    """Step 1: the margin loss on paraphrase pairs (index rows); ``evaluate()`` -> dev scores, recorded
    before training and after every epoch. One record per epoch (epoch 0 = before training)."""
    torch.manual_seed(settings["seed"])
    rng = np.random.default_rng(settings["seed"])  # the batches' order, then each batch's negatives
    initial = model.embeddings.weight.detach().clone()

    def batch_loss(batch):
        if len(batch) < 2:
            return None  # no other pair to draw a negative from
        first, second = [pairs[i][0] for i in batch], [pairs[i][1] for i in batch]
        g1, g2 = model(*pad(first, model.pad)), model(*pad(second, model.pad))
        t1, t2 = choose_negatives(g1.detach(), g2.detach(), "random", rng)
        candidates = torch.cat([g1, g2])
        used = torch.tensor(sorted({i for row in first + second for i in row}), dtype=torch.long)
        return margin_loss(g1, g2, candidates[t1], candidates[t2], settings["delta"]) + regularizer(
            model, initial, used, settings
        )

    return _train(
        "pretrain",
        [model],
        len(pairs),
        settings["epochs"],
        settings,
        batch_loss,
        _optimizers(list(model.parameters()), model, settings["learning_rate"]),
        evaluate or (lambda: {}),
        f"PE step 1 on {len(pairs)} paraphrase pairs",
        rng,
    )


def finetune(
    model: ParaphraseCNN,
    rows1: list[list[int]],
    rows2: list[list[int]],
    gold: np.ndarray,
    settings: dict,
    evaluate=None,
) -> tuple[TaiHead, list[dict]]:
    """Step 2: PE and a regression head (stsynth.sts2017.head) trained together on STS gold pairs.
    ``evaluate(head)`` -> dev scores of the head's predictions, recorded before and after every epoch."""
    torch.manual_seed(settings["seed"])
    head = TaiHead(model.projection.out_features, settings["head_hidden"])
    initial = model.embeddings.weight.detach().clone()
    target = torch.from_numpy(target_distribution(gold))

    def batch_loss(batch):
        first, second = [rows1[i] for i in batch], [rows2[i] for i in batch]
        v1, v2 = model(*pad(first, model.pad)), model(*pad(second, model.pad))
        used = torch.tensor(sorted({i for row in first + second for i in row}), dtype=torch.long)
        return head_loss(
            head(v1, v2), target[torch.from_numpy(batch)], head.weights(), settings["lambda"]
        ) + regularizer(model, initial, used, settings)

    scored = (lambda: evaluate(head)) if evaluate else (lambda: {})
    records = _train(
        "finetune",
        [model, head],
        len(gold),
        settings["finetune_epochs"],
        settings,
        batch_loss,
        _optimizers([*model.parameters(), *head.parameters()], model, settings["learning_rate"]),
        scored,
        f"PE step 2 on {len(gold)} gold pairs",
        np.random.default_rng(settings["seed"]),
    )
    return head, records


def dev_scores(sets, score) -> dict[str, float]:
    """Pearson per dev set and the official ALL: ``sets`` of (name, rows1, rows2, gold), ``score(rows1,
    rows2)`` -> one similarity per pair."""
    if not sets:
        return {}
    results = correlations((name.replace("/", "_"), score(rows1, rows2), gold) for name, rows1, rows2, gold in sets)
    return {f"dev_{name}": r for name, _, r in results}


def pe_cosines(model: ParaphraseCNN):
    def score(rows1, rows2):
        a, b = sentence_vectors(model, rows1), sentence_vectors(model, rows2)
        return cosine(torch.from_numpy(a), torch.from_numpy(b)).double().numpy()

    return score


def head_scores(model: ParaphraseCNN, head: TaiHead):
    def score(rows1, rows2):
        return predict(head, sentence_vectors(model, rows1), sentence_vectors(model, rows2))

    return score


# --- files --------------------------------------------------------------------------------------


def vocabulary_file(path: str | Path) -> Path:
    return Path(str(path).removesuffix(".safetensors") + ".vocab.parquet")


def save(model: ParaphraseCNN, vocabulary: Vocabulary, settings: dict, path: str | Path) -> None:
    from safetensors.torch import save_file

    tensors = {name: tensor.detach().contiguous() for name, tensor in model.state_dict().items()}
    save_file(tensors, str(path), metadata={METADATA_KEY: json.dumps(settings, sort_keys=True)})
    pd.DataFrame({"word": pd.Series(vocabulary.words, dtype="string")}).to_parquet(vocabulary_file(path), index=False)


def load(path: str | Path) -> tuple[ParaphraseCNN, Vocabulary, dict]:
    from safetensors.torch import load_file

    tensors, settings = load_file(str(path)), stored_settings(path)
    words = pd.read_parquet(vocabulary_file(path))["word"].tolist()
    if tensors["embeddings.weight"].shape[0] != len(words) + 2:
        raise ValueError(
            f"{path}: {tensors['embeddings.weight'].shape[0]} embedding rows for a vocabulary of "
            f"{len(words)} words (+ padding and unknown): the model and {vocabulary_file(path)} disagree"
        )
    model = ParaphraseCNN(
        tensors["embeddings.weight"], settings["filters"], settings["width"], settings["dimension"], settings["input"]
    )
    model.load_state_dict(tensors)
    return model.eval(), Vocabulary(words), settings
