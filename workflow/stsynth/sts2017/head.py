"""The regression head of the SemEval-2017 paraphrase/event-embedding system (its §2.3, after Tai et
al. 2015): a similarity score from two frozen sentence vectors, over any sentence vectors the
project has (stsynth.sts2017.sentence_vectors: paraphrase embeddings, event embeddings, averaged word
vectors, any encoder, or several of them concatenated).

With v1, v2 the two sentences' vectors::

    h× = v1 ⊙ v2,   h+ = |v1 − v2|,   h = tanh(W× h× + W+ h+ + b),   p = softmax(W h + b'),   ŷ = Σ_r r · p_r

over the six integer scores r = 0..5. Trained as Tai et al. train theirs: the KL divergence from the
sparse target distribution that puts the gold score y between its two neighbouring integers
(``p[⌊y⌋] = ⌊y⌋ − y + 1``, ``p[⌊y⌋ + 1] = y − ⌊y⌋``) to p, plus ``λ Σ ‖W‖²`` over the three weight
matrices (biases unregularized), mini-batch Adagrad. The paper gives neither the loss nor the hidden
size k; both, the learning rate, λ and the number of epochs are chosen on the dev protocol
(config head.grid, searched by :func:`dev_search`; docs/results.md says what was chosen).

Where SentEval's relatedness model (``senteval/tools/relatedness.py``, its SICK-R and STS-B
evaluation) differs: it has no hidden layer (softmax straight over [v1 ⊙ v2, |v1 − v2|]), fits the
probabilities with a mean squared error instead of the KL divergence, uses Adam, and stops early on
the dev Pearson checked every 50 epochs; its target encoding is the one used here.

Head model file (``results/head/{run}/model.safetensors``): ``product.weight`` [k, d],
``difference.weight`` [k, d], ``difference.bias`` [k], ``output.weight`` [6, k], ``output.bias`` [6],
float32; metadata ``stsynth``: JSON of the settings and the sentence-vector sources.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import torch
import torch.nn.functional as F

from ..core.correlations import correlations
from ..core.model_files import METADATA_KEY, stored_settings
from ..core.progress import Progress
from ..core.similarity import cosines
from .vector_tables import SentenceVectorError, concatenate, read_table

log = logging.getLogger(__name__)

SCORES = 6  # the integer scores 0..5 the softmax is over
SCALE = torch.arange(SCORES, dtype=torch.float32)


def target_distribution(gold) -> np.ndarray:
    """Tai et al.'s sparse target: each score spread over its two neighbouring integers, float32 [N, 6]."""
    gold = np.asarray(gold, dtype=np.float64)
    if gold.ndim != 1 or not np.all(np.isfinite(gold)) or gold.min(initial=0) < 0 or gold.max(initial=0) > SCORES - 1:
        raise ValueError(f"gold scores must be finite numbers in [0, {SCORES - 1}]")
    floor = np.minimum(np.floor(gold), SCORES - 2).astype(int)  # 5.0 -> floor 4 with weight 1 on 5
    upper = gold - floor
    target = np.zeros((len(gold), SCORES), dtype=np.float32)
    rows = np.arange(len(gold))
    target[rows, floor] = 1 - upper
    target[rows, floor + 1] = upper
    return target


class TaiHead(torch.nn.Module):
    """h = tanh(W× (v1 ⊙ v2) + W+ |v1 − v2| + b); log p = log_softmax(W h + b')."""

    def __init__(self, dimension: int, hidden: int):
        super().__init__()
        self.product = torch.nn.Linear(dimension, hidden, bias=False)
        self.difference = torch.nn.Linear(dimension, hidden)
        self.output = torch.nn.Linear(hidden, SCORES)

    def forward(self, v1: torch.Tensor, v2: torch.Tensor) -> torch.Tensor:
        hidden = torch.tanh(self.product(v1 * v2) + self.difference((v1 - v2).abs()))
        return F.log_softmax(self.output(hidden), dim=-1)

    def predict(self, v1: torch.Tensor, v2: torch.Tensor) -> torch.Tensor:
        """The expected score Σ r · p_r, in [0, 5]."""
        return self(v1, v2).exp() @ SCALE

    def weights(self) -> list[torch.Tensor]:
        return [self.product.weight, self.difference.weight, self.output.weight]


def head_loss(log_p: torch.Tensor, target: torch.Tensor, weights: list[torch.Tensor], lam: float) -> torch.Tensor:
    """Mean KL(target ‖ p) over the batch + λ Σ ‖W‖² (terms with a zero target contribute nothing)."""
    return F.kl_div(log_p, target, reduction="batchmean") + lam * sum((w**2).sum() for w in weights)


@dataclass
class PairVectors:
    """The sentence vectors of a set of pairs (float32 [N, d] each), their gold scores (NaN: unscored) and
    their lines in the pair table."""

    name: str
    v1: np.ndarray
    v2: np.ndarray
    gold: np.ndarray
    lines: np.ndarray | None = None

    def scored(self) -> "PairVectors":
        keep = ~np.isnan(self.gold)
        return PairVectors(
            self.name, self.v1[keep], self.v2[keep], self.gold[keep], None if self.lines is None else self.lines[keep]
        )


def stack(sets: list[PairVectors], name: str = "train") -> PairVectors:
    """The scored pairs of several sets as one training set."""
    scored = [s.scored() for s in sets]
    if not scored or not sum(len(s.gold) for s in scored):
        raise ValueError(f"{name}: no scored pairs to train the regression head on")
    return PairVectors(
        name,
        np.concatenate([s.v1 for s in scored]),
        np.concatenate([s.v2 for s in scored]),
        np.concatenate([s.gold for s in scored]),
    )


@torch.no_grad()
def predict(head: TaiHead, v1: np.ndarray, v2: np.ndarray, batch_size: int = 4096) -> np.ndarray:
    head.eval()
    out = [
        head.predict(torch.from_numpy(v1[i : i + batch_size]), torch.from_numpy(v2[i : i + batch_size]))
        for i in range(0, len(v1), batch_size)
    ]
    return torch.cat(out).double().numpy() if out else np.zeros(0)


def train_epochs(
    modules: list[torch.nn.Module],
    optimizers: list[torch.optim.Optimizer],
    count: int,
    epochs: int,
    batch_size: int,
    rng: np.random.Generator,
    batch_loss,
    progress: Progress,
):
    """The mini-batch loop of the head's fit and of both PE steps (stsynth.sts2017.paraphrase_cnn): per epoch, the
    ``count`` examples in batches of a fresh ``rng`` permutation, ``batch_loss(indices)`` -> the batch's
    loss (None: skip the batch), one step of every optimizer. Yields (epoch, mean loss, seconds) after each
    epoch, so the caller scores the model between epochs."""
    for epoch in range(1, epochs + 1):
        started, losses = time.perf_counter(), []
        for module in modules:
            module.train()
        order = rng.permutation(count)
        for start in range(0, count, batch_size):
            progress.advance()
            if (loss := batch_loss(order[start : start + batch_size])) is None:
                continue
            for optimizer in optimizers:
                optimizer.zero_grad()
            loss.backward()
            for optimizer in optimizers:
                optimizer.step()
            losses.append(loss.item())
        yield epoch, float(np.mean(losses)) if losses else float("nan"), time.perf_counter() - started


def fit(train: PairVectors, settings: dict, evaluate=None, what: str = "regression head") -> tuple[TaiHead, list[dict]]:
    """Train a head for ``settings["epochs"]`` epochs (keys: hidden, learning_rate, lambda, batch_size,
    epochs, seed); ``evaluate(head)`` -> a dict of scores, recorded after every epoch. Returns the head
    and one record per epoch (epoch, loss, seconds, then the scores)."""
    torch.manual_seed(settings["seed"])
    rng = np.random.default_rng(settings["seed"])
    head = TaiHead(train.v1.shape[1], settings["hidden"])
    optimizer = torch.optim.Adagrad(head.parameters(), lr=settings["learning_rate"])
    v1, v2 = torch.from_numpy(train.v1), torch.from_numpy(train.v2)
    target = torch.from_numpy(target_distribution(train.gold))

    def batch_loss(batch):
        rows = torch.from_numpy(batch)
        return head_loss(head(v1[rows], v2[rows]), target[rows], head.weights(), settings["lambda"])

    batch = settings["batch_size"]
    progress = Progress(log, what, settings["epochs"] * -(-len(target) // batch), "batches")
    records = [
        {"epoch": epoch, "loss": loss, "seconds": seconds, **(evaluate(head) if evaluate else {})}
        for epoch, loss, seconds in train_epochs(
            [head], [optimizer], len(target), settings["epochs"], batch, rng, batch_loss, progress
        )
    ]
    progress.finish()
    return head, records


def save(head: TaiHead, path: str | Path, metadata: dict) -> None:
    from safetensors.torch import save_file

    tensors = {name: tensor.detach().contiguous() for name, tensor in head.state_dict().items()}
    save_file(tensors, str(path), metadata={METADATA_KEY: json.dumps(metadata, sort_keys=True)})


def load(path: str | Path) -> tuple[TaiHead, dict]:
    from safetensors.torch import load_file

    tensors, metadata = load_file(str(path)), stored_settings(path)
    hidden, dimension = tensors["product.weight"].shape
    head = TaiHead(dimension, hidden)
    head.load_state_dict(tensors)
    return head.eval(), metadata


# --- a head run: splits, dev search, final fit, predictions (head_dev, head_fit, head_predict) ---


def load_split(entries: list[dict]) -> list[PairVectors]:
    """One PairVectors per dataset of a split (stsynth.sts2017.head_plan.head_splits entries): gold from the
    pair table, the sources' vectors side by side, each table checked against the pair table."""
    sets, dims = [], {}
    for entry in entries:
        pairs = pd.read_parquet(entry["pairs"])
        parts = []
        for position, path in enumerate(entry["vectors"]):
            _, v1, v2, metadata = read_table(path, pairs)
            first = dims.setdefault(position, (metadata["dim"], path))
            if metadata["dim"] != first[0]:
                raise SentenceVectorError(
                    f"{path}: sentence vectors of dimension {metadata['dim']}, but {first[1]} "
                    f"(the same source) has {first[0]}: rebuild the source's tables"
                )
            parts.append((v1, v2))
        v1, v2 = concatenate(parts, entry["vectors"])
        sets.append(
            PairVectors(
                f"{entry['year']}/{entry['dataset']}",
                v1,
                v2,
                pairs["gold"].to_numpy(dtype=np.float64, na_value=np.nan),
                pairs["line"].to_numpy(),
            )
        )
    return sets


def pearsons_by_set(score, sets: list[PairVectors]) -> dict[str, float]:
    """Pearson per set and the official ALL (stsynth.core.correlations.correlations) of ``score(v1, v2)``."""

    return {name: r for name, _, r in correlations((s.name, score(s.v1, s.v2), s.gold) for s in sets)}


def scorer(head: TaiHead):
    return lambda v1, v2: predict(head, v1, v2)


def dev_search(
    train_sets: list[PairVectors], validate_sets: list[PairVectors], points: list[dict], choose_epochs: bool
) -> "pd.DataFrame":
    """Fit a head at every point on the training sets, score it after each epoch on both (official
    ALL); the row with the best validation ALL is ``chosen`` (with ``choose_epochs`` False, the last
    epoch of the single point). A ``cosine`` row gives the plain cosine's figures of the same vectors.

    Schema (``results/head/{run}/dev.parquet``): ``method`` string (head, cosine), ``point`` int32 (-1
    for cosine), ``hidden`` int32, ``learning_rate``, ``lambda`` float64, ``batch_size`` int32, ``epoch``
    int32, ``loss`` float64, ``train_ALL``, ``dev_ALL`` float64, ``dev_<year>_<set>`` float64, ``chosen`` bool.
    """
    train = stack(train_sets)
    rows = []
    # the whole search's done/total, rate and time left, beside each point's own progress
    with Progress(log, "regression head dev search", len(points), "points") as search:
        for number, point in enumerate(points):

            def evaluate(head):
                dev = pearsons_by_set(scorer(head), validate_sets)
                return {
                    "train_ALL": pearsons_by_set(scorer(head), train_sets)["ALL"],
                    "dev_ALL": dev["ALL"],
                    **{f"dev_{name.replace('/', '_')}": r for name, r in dev.items() if name != "ALL"},
                }

            _, records = fit(train, point, evaluate, f"regression head, point {number + 1}/{len(points)}")
            rows += [
                {
                    "method": "head",
                    "point": number,
                    **{k: point[k] for k in ("hidden", "learning_rate", "lambda", "batch_size")},
                    **record,
                }
                for record in records
            ]
            search.advance()
    dev = pearsons_by_set(cosines, validate_sets)
    rows.append(
        {
            "method": "cosine",
            "point": -1,
            "epoch": 0,
            "train_ALL": pearsons_by_set(cosines, train_sets)["ALL"],
            "dev_ALL": dev["ALL"],
            **{f"dev_{n.replace('/', '_')}": r for n, r in dev.items() if n != "ALL"},
        }
    )
    table = pd.DataFrame(rows).drop(columns=["seconds"])
    heads = table["method"] == "head"
    if choose_epochs:
        best = table.loc[heads, "dev_ALL"].fillna(-np.inf).idxmax()
    else:
        best = table.index[heads][-1]
    table["chosen"] = table.index == best
    return table.astype(
        {
            "method": "string",
            "point": "int32",
            "hidden": "Int32",
            "batch_size": "Int32",
            "epoch": "int32",
            "chosen": "bool",
        }
    )


def chosen_settings(dev: "pd.DataFrame", points: list[dict]) -> dict:
    """The chosen point's settings, with the chosen number of epochs."""
    row = dev[dev["chosen"]]
    if len(row) != 1:
        raise ValueError(f"the dev table marks {len(row)} rows as chosen, not 1")
    return {**points[int(row["point"].iat[0])], "epochs": int(row["epoch"].iat[0])}


def final_fit(train_sets: list[PairVectors], settings: dict) -> TaiHead:
    """The final fit: a head trained on every scored pair of the training sets."""
    head, _ = fit(stack(train_sets), settings)
    return head


def predict_test_sets(head: TaiHead, test_sets: list[PairVectors]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The head's predictions for every line of the test sets and the plain cosine's Pearson on them.

    Predictions schema (``results/head/{run}/predictions.parquet``): ``year`` int16, ``dataset`` string,
    ``line`` int32, ``prediction`` float64 (0-5), row-aligned with each test set's pair table, sets in order.
    Cosine schema (``results/head/{run}/test_cosine.parquet``): ``dataset`` string (``year/name``, or
    ``ALL``), ``pairs`` int32, ``pearson`` float64.
    """
    dimension = head.product.weight.shape[1]
    for s in test_sets:
        if s.v1.shape[1] != dimension:
            raise SentenceVectorError(
                f"{s.name}: sentence vectors of dimension {s.v1.shape[1]}, but the head was trained on "
                f"{dimension}: the run's sources differ between its splits"
            )
    rows = []
    for s in test_sets:
        year, name = s.name.split("/", 1)
        rows.append(
            pd.DataFrame({"year": int(year), "dataset": name, "line": s.lines, "prediction": predict(head, s.v1, s.v2)})
        )
    predictions = pd.concat(rows, ignore_index=True).astype({"year": "int16", "dataset": "string", "line": "int32"})
    cosine = pd.DataFrame(
        correlations((s.name, cosines(s.v1, s.v2), s.gold) for s in test_sets), columns=["dataset", "pairs", "pearson"]
    ).astype({"dataset": "string", "pairs": "int32"})
    return predictions, cosine
