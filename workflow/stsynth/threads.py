"""A job's thread count, applied to torch and to the BLAS/OpenMP pools under numpy and scikit-learn.

Left alone, OpenBLAS and OpenMP start one thread per visible core, and how a large product or
SVD is split between threads changes its last bits. Pinning every pool to the rule's ``threads:``
makes a job compute the same floats on a laptop, a workstation and a Slurm node
(tests/test_slurm.py compares them exactly).
"""
from __future__ import annotations


def use_threads(count: int) -> None:
    import torch
    from threadpoolctl import threadpool_limits

    torch.set_num_threads(count)
    threadpool_limits(limits=count)


def job_slots(requested: int, usable: int) -> int:
    """Cores' worth of jobs to run at once on one machine: what ``--cores`` asked for, at most the
    cores this process may use (more would only make the jobs' threads compete for the same cores)."""
    return max(1, min(requested, usable))
