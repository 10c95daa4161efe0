"""Snakemake's between-workflow cache (`--cache`, the rules marked `cache: True`), on the tiny corpus: a job served
from the cache gives the bytes a fresh job writes in another working directory, and a changed model file (an input
whose bytes the key reads) or a changed param misses it."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from conftest import make_workspace
from test_model_identity import other_weights, output_of, save_weights

TARGET = "results/scores/tiny.parquet"


def tiny_encoder_workspace(root: Path, model: Path):
    work = make_workspace(root)
    work.write_config({"encoder": {"models": {"tiny": {"path": str(model)}}}})
    work.keep_runs({"tiny": {"stage": "encoder", "encoder": "tiny"}})
    work.write_config()
    return work


def cached_run(work, cache: Path):
    return work.snakemake(
        TARGET, "--cache", env={"SNAKEMAKE_OUTPUT_CACHE": str(cache)}
    )  # `--cache` last: it takes rule names


def stored(result) -> list[str]:
    return re.findall(r"Moving output file (\S+) to cache", output_of(result))


def fetched(result) -> list[str]:
    """Outputs linked from the cache: a hit's, or a miss's after it was stored."""
    return re.findall(r"Symlinking output file (\S+) from cache", output_of(result))


@pytest.mark.workflow
def test_a_cached_similarity_table_is_a_fresh_jobs_bytes_and_a_changed_model_or_param_misses(tmp_path):
    from test_encoder import save_tiny_model

    model, cache = save_tiny_model(tmp_path / "models/tiny"), tmp_path / "cache"
    cache.mkdir()
    first = tiny_encoder_workspace(tmp_path / "first", model)
    tables = stored(cached_run(first, cache))
    assert tables and all(table.startswith("resources/encoder/tiny/") for table in tables), tables

    # another working directory, the same config: the similarity job is served from the cache ...
    second = tiny_encoder_workspace(tmp_path / "second", model)
    result = cached_run(second, cache)
    assert sorted(fetched(result)) == sorted(tables) and not stored(result)
    # ... with the bytes a fresh job (no cache) writes in a third
    fresh = tiny_encoder_workspace(tmp_path / "fresh", model)
    fresh.snakemake(TARGET)
    for table in tables:
        assert (second.path / table).is_symlink() and not (fresh.path / table).is_symlink()
        assert (second.path / table).read_bytes() == (fresh.path / table).read_bytes(), table

    # a changed param misses the cache
    second.write_config({"encoder": {"max_length": 32}})
    assert sorted(stored(cached_run(second, cache))) == sorted(tables)

    # a model file overwritten in place (same size, mtime kept) misses it too, in a fresh directory as well
    weights = model / "model.safetensors"
    times = weights.stat()
    changed = tmp_path / "changed.safetensors"
    save_weights(other_weights(model), changed)
    shutil.copyfile(changed, weights)
    os.utime(weights, ns=(times.st_atime_ns, times.st_mtime_ns))
    third = tiny_encoder_workspace(tmp_path / "third", model)
    result = cached_run(third, cache)
    assert sorted(stored(result)) == sorted(tables)  # the job ran (a stored output is then linked back)
    assert all((third.path / t).read_bytes() != (fresh.path / t).read_bytes() for t in tables)
