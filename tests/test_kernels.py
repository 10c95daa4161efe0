"""The CPU kernels of the jobs' libraries (stsynth.core.threads, config key `kernels`): which environment pins
them, where nothing is pinned, and that each library reads the variable the pins set."""

import json
import subprocess
import sys

import pytest

from stsynth.core.threads import NEEDED_FLAGS, X86_64_V3, cpu_flags, kernel_environment, pin_kernels

AVX2_CPU = NEEDED_FLAGS | {"sse4_2", "avx512f"}


def test_x86_64_v3_pins_every_library_on_an_avx2_cpu_and_nothing_elsewhere():
    pins, note = kernel_environment("x86-64-v3", "x86_64", AVX2_CPU)
    assert pins == X86_64_V3 and set(pins) == {
        "ATEN_CPU_CAPABILITY",
        "MKL_CBWR",
        "ONEDNN_MAX_CPU_ISA",
        "OPENBLAS_CORETYPE",
        "NPY_DISABLE_CPU_FEATURES",
    }
    assert note.startswith("kernels: x86-64-v3 (ATEN_CPU_CAPABILITY=avx2")
    # OpenBLAS's Haswell kernels on a CPU without AVX2 would stop on an illegal instruction
    pins, note = kernel_environment("x86-64-v3", "x86_64", {"sse4_2", "avx"})
    assert pins == {} and "needs avx2, bmi1, bmi2, f16c, fma, which this CPU lacks" in note
    assert kernel_environment("x86-64-v3", "aarch64", set()) == (
        {},
        "kernels: x86-64-v3 applies to x86-64; this is aarch64, each library picks its own kernels",
    )
    pins, note = kernel_environment("native", "x86_64", AVX2_CPU)
    assert pins == {} and note.startswith("kernels: native")


def test_a_variable_the_user_set_is_kept_and_named(monkeypatch):
    monkeypatch.setattr("stsynth.core.threads.cpu_flags", lambda: AVX2_CPU)
    monkeypatch.setattr("platform.machine", lambda: "x86_64")
    environ = {"OPENBLAS_CORETYPE": "SkylakeX"}
    note = pin_kernels("x86-64-v3", environ)
    assert environ == {**X86_64_V3, "OPENBLAS_CORETYPE": "SkylakeX"}
    assert note.endswith("; kept as set: OPENBLAS_CORETYPE=SkylakeX")
    environ = {}
    assert pin_kernels("native", environ).startswith("kernels: native (") and environ == {}


def test_native_names_the_kernel_variables_the_environment_sets_anyway(monkeypatch):
    # Some machines set OPENBLAS_CORETYPE for every program; under `native` OpenBLAS then does not choose.
    monkeypatch.setattr("stsynth.core.threads.cpu_flags", lambda: AVX2_CPU)
    monkeypatch.setattr("platform.machine", lambda: "x86_64")
    environ = {"OPENBLAS_CORETYPE": "Haswell", "OPENBLAS_L2_SIZE": "512"}
    note = pin_kernels("native", environ)
    assert environ == {"OPENBLAS_CORETYPE": "Haswell", "OPENBLAS_L2_SIZE": "512"}
    assert note.endswith("; set in the environment, so kept: OPENBLAS_CORETYPE=Haswell")
    assert "set in the environment" not in pin_kernels("x86-64-v3", {"OPENBLAS_CORETYPE": "Haswell"})


def test_cpu_flags_come_from_cpuinfo(tmp_path):
    (tmp_path / "cpuinfo").write_text("processor\t: 0\nflags\t\t: fpu sse2 avx2 fma\nbugs\t: none\n")
    assert cpu_flags(tmp_path / "cpuinfo") == {"fpu", "sse2", "avx2", "fma"}
    assert cpu_flags(tmp_path / "absent") == set()


PROBE = """
import json, numpy, torch
from numpy._core._multiarray_umath import __cpu_features__
from threadpoolctl import threadpool_info
print(json.dumps({"aten": torch.backends.cpu.get_cpu_capability(), "numpy_x86_v3": __cpu_features__.get("X86_V3"),
                  "openblas": [i.get("architecture") for i in threadpool_info() if i["internal_api"] == "openblas"]}))
"""


@pytest.mark.subprocess
@pytest.mark.skipif(not NEEDED_FLAGS <= cpu_flags(), reason="the library switches are checked on an x86-64-v3 CPU")
def test_each_library_reads_the_variable_the_pins_set():
    """A misspelt variable would be ignored without a word: each switch is set below the pinned family
    here and the library must follow it (MKL and oneDNN report theirs nowhere torch exposes)."""

    def probe(env):
        result = subprocess.run(
            [sys.executable, "-c", PROBE],
            capture_output=True,
            text=True,
            check=True,
            env={"PATH": "/usr/bin:/bin", **env},
        )
        return json.loads(result.stdout)

    pinned = probe(X86_64_V3)
    assert pinned["aten"] == "AVX2" and pinned["numpy_x86_v3"] is True and pinned["openblas"] == ["Haswell"]
    lowered = probe(
        {
            "ATEN_CPU_CAPABILITY": "default",
            "NPY_DISABLE_CPU_FEATURES": "X86_V3 X86_V4",
            "OPENBLAS_CORETYPE": "SandyBridge",
        }
    )
    assert lowered == {"aten": "DEFAULT", "numpy_x86_v3": False, "openblas": ["Sandybridge"]}


@pytest.mark.subprocess
def test_use_threads_pins_torch_imported_before_or_after_it_and_imports_it_for_no_job():
    """A job that never uses torch does not import it; one that imports it later gets the same pools as one that
    imported it first (what test_slurm compares exactly: the same floats)."""
    probe = """
import json, sys
from stsynth.core.threads import use_threads
{first}
use_threads(1)
imported = "torch" in sys.modules
import torch
from threadpoolctl import threadpool_info
pools = sorted({{(pool["internal_api"], pool["num_threads"]) for pool in threadpool_info()}})
print(json.dumps([imported, torch.get_num_threads(), pools]))
"""
    runs = [
        json.loads(
            subprocess.run(
                [sys.executable, "-c", probe.format(first=first)], capture_output=True, text=True, check=True
            ).stdout
        )
        for first in ("", "import torch")
    ]
    (later_imported, later_threads, later_pools), (first_imported, first_threads, first_pools) = runs
    assert not later_imported and first_imported
    assert later_threads == first_threads == 1 and later_pools == first_pools
    assert all(threads == 1 for _, threads in later_pools)
