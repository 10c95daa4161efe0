"""How a job computes its floats: its thread count, and the CPU kernels its libraries pick.

Left alone, OpenBLAS and OpenMP start one thread per visible core, and how a large product or
SVD is split between threads changes its last bits. Pinning every pool to the rule's ``threads:``
makes a job compute the same floats on a laptop, a workstation and a Slurm node
(tests/test_slurm.py compares them exactly).

Left alone, each library also picks its kernels by the CPU it finds: torch's ATen ops, MKL (under
torch's linear layers), oneDNN, OpenBLAS (under numpy, scipy and gensim) and numpy's own ufuncs take
AVX-512 code on a CPU that has it and AVX2 code on one that does not, and those round differently (on
an AMD EPYC with AVX2, forcing another family moved the floats of paragram training, MiniLM encoding
and fine-tuning, the PCA's SVD, gensim's skip-gram and numpy's exp/tanh; scikit-learn's gradient
boosting moved with none: docs/reproducibility.md). ``kernels: x86-64-v3`` (the default) caps every one
of them at the AVX2/FMA family that every x86-64 CPU from 2013 on has, so an Intel Xeon with AVX-512
and an AMD EPYC run the same kernels; ``native`` lets each library choose (faster where AVX-512 is there).
"""

from __future__ import annotations

import os
import platform
import sys
from pathlib import Path

# Each library's own switch, set to the AVX2/FMA family (x86-64-v3). On a CPU of that family these are
# the kernels the libraries pick anyway (measured: the same bytes, docs/reproducibility.md).
X86_64_V3 = {
    "ATEN_CPU_CAPABILITY": "avx2",  # torch's vectorised ATen kernels
    "MKL_CBWR": "AVX2",  # MKL's conditional numerical reproducibility branch (torch's BLAS)
    "ONEDNN_MAX_CPU_ISA": "AVX2",  # oneDNN (torch's mkldnn ops)
    "OPENBLAS_CORETYPE": "Haswell",  # OpenBLAS's kernels (numpy, scipy, gensim)
    "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",  # numpy's AVX-512 ufunc loops
}
NEEDED_FLAGS = {"avx", "avx2", "fma", "f16c", "bmi1", "bmi2"}  # what x86-64-v3 code needs (lscpu's names)


def cpu_info(field: str, cpuinfo: str | Path = "/proc/cpuinfo") -> str | None:
    """The first CPU's ``field`` in /proc/cpuinfo (``flags``, ``model name``), None where there is none."""
    path = Path(cpuinfo)
    lines = path.read_text(errors="replace").splitlines() if path.exists() else []
    return next((line.split(":", 1)[1].strip() for line in lines if line.split(":", 1)[0].strip() == field), None)


def cpu_flags(cpuinfo: str | Path = "/proc/cpuinfo") -> set[str]:
    return set((cpu_info("flags", cpuinfo) or "").split())


def kernel_environment(kernels: str, machine: str | None = None, flags: set[str] | None = None) -> tuple[dict, str]:
    """The environment that pins the kernels (``kernels``: x86-64-v3 or native) on this machine, and a
    line that says what was done. Nothing is pinned on a CPU without the family (OpenBLAS would then
    run instructions the CPU lacks) or off x86-64; the line says the figures may then differ."""
    machine = machine or platform.machine()
    if kernels == "native":
        return (
            {},
            "kernels: native (each library picks its kernels by this CPU; figures may differ in the last digits "
            "from another CPU's)",
        )
    if machine not in ("x86_64", "AMD64"):
        return {}, f"kernels: {kernels} applies to x86-64; this is {machine}, each library picks its own kernels"
    missing = NEEDED_FLAGS - (cpu_flags() if flags is None else flags)
    if missing:
        return {}, (
            f"kernels: {kernels} needs {', '.join(sorted(missing))}, which this CPU lacks; each library "
            "picks its own kernels (figures may differ in the last digits from an AVX2 machine's)"
        )
    return dict(X86_64_V3), "kernels: x86-64-v3 (" + ", ".join(f"{k}={v}" for k, v in X86_64_V3.items()) + ")"


def pin_kernels(kernels: str, environ=os.environ) -> str:
    """Set the pins for the jobs this process starts (they inherit its environment); a variable the user
    set already is kept. Returns the line to log: it names every kept variable, and where nothing is
    pinned (``native``, or a CPU without the family) every kernel variable the environment sets anyway
    (some machines set OPENBLAS_CORETYPE for all programs), since that library then does not choose."""
    pins, note = kernel_environment(kernels)
    kept = [name for name, value in pins.items() if environ.get(name, value) != value]
    for name, value in pins.items():
        environ.setdefault(name, value)
    preset = [name for name in X86_64_V3 if name in environ and name not in pins]
    if kept:
        note += f"; kept as set: {', '.join(f'{k}={environ[k]}' for k in kept)}"
    if preset:
        note += f"; set in the environment, so kept: {', '.join(f'{k}={environ[k]}' for k in preset)}"
    return note


# The pools' own variables, read when a library is loaded: they pin the libraries a job loads after use_threads.
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def use_threads(count: int) -> None:
    """Run the job's BLAS, OpenMP and torch pools on ``count`` threads: those loaded now through threadpoolctl and
    torch's own setting, and those a later import loads through their variables (torch reads OMP_NUM_THREADS at
    its import), so that a job that never uses torch does not import it (two to three seconds a job)."""
    from threadpoolctl import threadpool_limits

    os.environ.update(dict.fromkeys(THREAD_VARIABLES, str(count)))
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(count)
    threadpool_limits(limits=count)


def job_slots(requested: int, usable: int) -> int:
    """Cores' worth of jobs to run at once on one machine: what ``--cores`` asked for, at most the
    cores this process may use (more would only make the jobs' threads compete for the same cores)."""
    return max(1, min(requested, usable))
