"""Which torch device a job runs on: config.yaml's one ``device`` setting.

``auto`` is sentence-transformers' pick: CUDA when torch sees a GPU, else Apple's ``mps`` when torch has it
(or another accelerator torch knows), else the CPU; ``cpu``;
``cuda`` or ``cuda:<i>``, and ``mps`` (Apple silicon), which fail with a clear error where torch does
not see that device instead of falling back silently. An ``mps`` job asks the scheduler for no GPU
(``gpu`` counts CUDA devices, which Slurm hands out). Every stage that runs
a neural model reads it: encoding (stsynth.encoders.encoder), fine-tuning (stsynth.encoders.tuning), the
paragram exports' check (stsynth.dcu2016.export) and Marian translation (stsynth.translation.translate).

Two places resolve it. A job resolves it with torch (:func:`resolve_device`). The workflow, which
must start in well under a second and so never imports torch, asks :func:`gpus_requested` how many
GPUs a job declares as its ``gpu`` resource (the Slurm profile turns it into ``--gpus``); for
``auto`` it looks for an NVIDIA GPU the way the driver exposes one (:func:`nvidia_gpu_visible`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

DEVICE_SETTING = re.compile(r"auto|cpu|mps|cuda(:\d+)?")


def check_setting(setting: str) -> str:
    if not isinstance(setting, str) or not DEVICE_SETTING.fullmatch(setting):
        raise ValueError(f"config.yaml: device: {setting!r} is not auto, cpu, mps, cuda or cuda:<index>")
    return setting


def resolve_device(setting: str, cuda_available: bool | None = None, mps_available: bool | None = None) -> str:
    """The torch device name a job uses. ``auto``: sentence-transformers' own pick
    (``sentence_transformers.util.get_device_name``: CUDA, then MPS, NPU, XPU, HPU, else the CPU). An
    explicit setting is kept, and fails where torch lacks that device (the library only picks, so this
    check is ours); cuda_available, mps_available: torch's answers (asked when None)."""
    check_setting(setting)
    if setting == "cpu":
        return "cpu"
    if setting == "auto":
        from sentence_transformers.util import get_device_name

        return get_device_name()
    if cuda_available is None or mps_available is None:
        import torch

        cuda_available = torch.cuda.is_available() if cuda_available is None else cuda_available
        mps_available = torch.backends.mps.is_available() if mps_available is None else mps_available
    if setting == "mps":
        if not mps_available:
            raise RuntimeError(
                "config.yaml: device: mps, but torch sees no Apple MPS device here (set device: auto or cpu)"
            )
        return "mps"
    if not cuda_available:
        raise RuntimeError(
            f"config.yaml: device: {setting}, but torch sees no CUDA device here "
            "(set device: auto or cpu, or run the job on a GPU node)"
        )
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
    if setting in ("cpu", "mps"):
        return 0
    if setting == "auto":
        return int(gpu_visible())
    return 1
