"""Which torch device a job runs on: config.yaml's one ``device`` setting.

``auto`` is CUDA when torch sees a GPU, else the CPU; ``cpu``; ``cuda`` or ``cuda:<i>``, which fail
with a clear error where torch sees no GPU instead of falling back silently. Every stage that runs
a neural model reads it: encoding (stsynth.encoder), fine-tuning (stsynth.encoder_tuning), the
paragram exports' check (stsynth.export) and Marian translation (stsynth.translate).

Two places resolve it. A job resolves it with torch (:func:`resolve_device`). The workflow, which
must start in well under a second and so never imports torch, asks :func:`gpus_requested` how many
GPUs a job declares as its ``gpu`` resource (the Slurm profile turns it into ``--gpus``); for
``auto`` it looks for an NVIDIA GPU the way the driver exposes one (:func:`nvidia_gpu_visible`).
"""
from __future__ import annotations

import os
import re
from pathlib import Path

DEVICE_SETTING = re.compile(r"auto|cpu|cuda(:\d+)?")


def check_setting(setting: str) -> str:
    if not isinstance(setting, str) or not DEVICE_SETTING.fullmatch(setting):
        raise ValueError(f"config.yaml: device: {setting!r} is not auto, cpu, cuda or cuda:<index>")
    return setting


def resolve_device(setting: str, cuda_available: bool | None = None) -> str:
    """The torch device name a job uses; cuda_available: torch's answer (asked when None)."""
    check_setting(setting)
    if setting == "cpu":
        return "cpu"
    if cuda_available is None:
        import torch

        cuda_available = torch.cuda.is_available()
    if setting == "auto":
        return "cuda" if cuda_available else "cpu"
    if not cuda_available:
        raise RuntimeError(f"config.yaml: device: {setting}, but torch sees no CUDA device here "
                           "(set device: auto or cpu, or run the job on a GPU node)")
    return setting


def nvidia_gpu_visible(environ=os.environ, driver: Path = Path("/proc/driver/nvidia/gpus")) -> bool:
    """Whether this process can see an NVIDIA GPU, without importing torch (CUDA_VISIBLE_DEVICES
    empty or -1 hides every GPU, as it does from torch)."""
    visible = environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and visible.strip() in ("", "-1", "NoDevFiles"):
        return False
    return driver.is_dir() and any(driver.iterdir())


def gpus_requested(setting: str, gpu_visible=nvidia_gpu_visible) -> int:
    """The ``gpu`` resource of a job that runs on ``setting``: 1 when it resolves to CUDA, else 0."""
    check_setting(setting)
    if setting == "cpu":
        return 0
    if setting == "auto":
        return int(gpu_visible())
    return 1
