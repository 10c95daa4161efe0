"""stsynth.core.device: the one `device` setting, resolved by a job (torch) and by the workflow (gpu resource)."""

import pytest

from stsynth.core.device import check_setting, gpus_requested, nvidia_gpu_visible, resolve_device


def test_auto_follows_torch_and_explicit_settings_are_kept(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert resolve_device("auto") == "cuda:0"  # sentence-transformers' pick (get_device_name)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    assert resolve_device("auto") == "cpu"
    assert resolve_device("cpu", cuda_available=True) == "cpu"
    assert resolve_device("cuda:1", cuda_available=True) == "cuda:1"
    # Apple silicon: auto takes MPS when there is no CUDA; mps where torch has none is an error
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    assert resolve_device("auto") == "mps"
    assert resolve_device("mps", cuda_available=False, mps_available=True) == "mps"
    with pytest.raises(RuntimeError, match="device: mps, but torch sees no Apple MPS device"):
        resolve_device("mps", cuda_available=False, mps_available=False)
    assert gpus_requested("mps") == 0  # Slurm's --gpus counts CUDA devices


def test_cuda_without_a_gpu_is_an_error_not_a_silent_fallback():
    with pytest.raises(RuntimeError, match="device: cuda, but torch sees no CUDA device"):
        resolve_device("cuda", cuda_available=False)


def test_this_machine_resolves_auto_with_torch():
    import torch

    assert resolve_device("auto") == ("cuda:0" if torch.cuda.is_available() else "cpu")


@pytest.mark.parametrize("setting", ["gpu", "cuda:", "CUDA", "", None, "cuda:x"])
def test_malformed_settings_are_named(setting):
    with pytest.raises(ValueError, match="is not auto, cpu, mps, cuda or cuda:<index>"):
        check_setting(setting)


def test_the_gpu_resource_is_declared_when_the_device_resolves_to_cuda():
    assert gpus_requested("cpu", gpu_visible=lambda: True) == 0
    assert gpus_requested("auto", gpu_visible=lambda: True) == 1
    assert gpus_requested("auto", gpu_visible=lambda: False) == 0
    assert gpus_requested("cuda", gpu_visible=lambda: False) == 1  # asked for: a cluster node will have one


def test_gpu_visibility_follows_the_driver_and_cuda_visible_devices(tmp_path):
    driver = tmp_path / "gpus"
    assert not nvidia_gpu_visible({}, driver)
    (driver / "0000:17:00.0").mkdir(parents=True)
    assert nvidia_gpu_visible({}, driver)
    assert nvidia_gpu_visible({"CUDA_VISIBLE_DEVICES": "0"}, driver)
    assert not nvidia_gpu_visible({"CUDA_VISIBLE_DEVICES": ""}, driver)
    assert not nvidia_gpu_visible({"CUDA_VISIBLE_DEVICES": "-1"}, driver)


@pytest.mark.workflow
def test_the_workflow_declares_gpus_by_the_setting_and_a_job_refuses_a_missing_gpu(workspace):
    """device: cuda -> the encoder job asks the scheduler for a GPU (gpu=1), and on a machine whose torch
    sees none it stops with the error above instead of running on the CPU; cpu asks for none."""
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU: the missing-GPU error cannot happen here")
    workspace.keep_runs({"encoder": {"stage": "encoder"}})
    workspace.write_config({"device": "cuda"})
    planned = workspace.snakemake("-n", "results/scores/encoder.parquet")
    encoder_job = planned.stdout.split("rule encoder_similarity_minilm__2016:", 1)[1].split("\n\n", 1)[0]
    assert "gpu=1" in encoder_job
    failed = workspace.snakemake("results/scores/encoder.parquet", check=False)
    assert failed.returncode != 0
    assert (
        "device: cuda, but torch sees no CUDA device"
        in (workspace.path / "logs/encoder_similarity/minilm.2016.log").read_text()
    )
    workspace.write_config({"device": "cpu"})
    planned = workspace.snakemake("-n", "results/scores/encoder.parquet")
    assert "gpu=0" in planned.stdout.split("rule encoder_similarity_minilm__2016:", 1)[1].split("\n\n", 1)[0]
