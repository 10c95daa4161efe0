"""A hub model missing from the Hugging Face cache is fetched once by a job of its own (rule hub_fetch;
stsynth.encoders.hub) from a small local hub the test starts (HF_ENDPOINT; no network), then known by its bytes;
with HF_HUB_OFFLINE=1 start-up refuses it and says how to fetch it."""

from __future__ import annotations

import json

import pytest

from hub_server import FakeHub
from test_model_identity import eval_config, jobs_run, output_of, similarity_table

COMMIT = "0123456789abcdef0123456789abcdef01234567"


@pytest.mark.workflow
def test_a_missing_hub_model_is_fetched_once_then_known_by_its_bytes(workspace, tmp_path):
    from test_encoder import save_tiny_model

    model = save_tiny_model(tmp_path / "served/tiny")
    with FakeHub({"org/tiny": (COMMIT, model)}) as hub:
        env = {"HF_HOME": str(tmp_path / "hf"), "HF_ENDPOINT": hub.endpoint, "HF_HUB_OFFLINE": "0"}
        eval_config(workspace, models=["org/tiny"])
        encoded = similarity_table("org__tiny")  # eval's job that opens the model; the rest read its tables
        first = workspace.snakemake(encoded, env=env)
        assert "hub_fetch" in jobs_run(first) and "eval_encode" in jobs_run(first)
        assert sorted(hub.sent) == sorted(f"org/tiny/{name}" for name in hub.files("org/tiny"))
        record = json.loads((workspace.path / "resources/hub/org__tiny.json").read_text())
        assert record["hub"] == "org/tiny" and record["commit"] == COMMIT and record["files"] == len(hub.sent)
        assert (tmp_path / "hf/hub/models--org--tiny/snapshots" / COMMIT).is_dir()  # the user's cache
        fetched = len(hub.sent)

        # a second run: nothing fetched, nothing to do (the model is known by its bytes, as a cached one)
        second = workspace.snakemake(encoded, env=env)
        assert len(hub.sent) == fetched and "Nothing to be done" in output_of(second)

        # offline, on a machine whose cache lacks it: refused at start-up, naming HF_HUB_OFFLINE, on every run
        offline = {**env, "HF_HOME": str(tmp_path / "empty-hf"), "HF_HUB_OFFLINE": "1"}
        for _ in range(2):
            refused = workspace.snakemake("-n", "eval", check=False, env=offline)
            assert refused.returncode != 0 and "HF_HUB_OFFLINE" in output_of(refused)
            assert "org/tiny" in output_of(refused) and "hub_fetch" in output_of(refused)
        assert len(hub.sent) == fetched
