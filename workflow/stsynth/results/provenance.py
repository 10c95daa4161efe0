"""The report's provenance section: the machine, the workflow commit, the MT engine, the word-vector
sources, the seeds, the wall time per rule (``benchmarks/``, and Snakemake's log for the cached rules, which
have no benchmark file), and the Python and Debian packages.

Unlike the other report modules this one reads the machine: ``git``, ``dpkg-query``, ``/proc``, Snakemake's
logs and the configured translator (for its version).
"""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys
import time
from datetime import datetime
from importlib import metadata
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

from ..core.tables import markdown_rows
from ..core.threads import X86_64_V3, cpu_info


def package_versions(requirements: str) -> list[list[str]]:
    rows = []
    for line in requirements.splitlines():
        line = line.split("#")[0].strip()
        match = re.match(r"([A-Za-z0-9_.\-]+)\s*(?:==\s*(\S+))?", line)
        if not line or not match:
            continue
        name, pinned = match.group(1), match.group(2) or "(unpinned)"
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            installed = "not installed"
        same = installed.split("+")[0] == pinned  # a local label (2.13.0+cpu) is the same release
        rows.append([name, pinned, installed if same else f"**{installed}**"])
    return rows


def debian_versions(packages: list[str]) -> list[list[str]]:
    rows = []
    for package in packages:
        result = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True)
        rows.append(
            [package, result.stdout.strip() if result.returncode == 0 and result.stdout.strip() else "not installed"]
        )
    return rows


def cpu_model() -> str:
    return cpu_info("model name") or platform.processor() or "unknown"


def kernels_in_effect() -> str:
    """The kernel pins this job process inherited (stsynth.core.threads) and the ATen family torch then uses."""
    pins = ", ".join(f"{name}={os.environ[name]}" for name in X86_64_V3 if name in os.environ) or "none (native)"
    try:
        import torch

        return f"{pins}; torch uses {torch.backends.cpu.get_cpu_capability()}"
    except ImportError:
        return pins


def machine() -> list[list[str]]:
    memory = (
        next(
            (
                line.split()[1]
                for line in Path("/proc/meminfo").read_text().splitlines()
                if line.startswith("MemTotal:")
            ),
            None,
        )
        if Path("/proc/meminfo").exists()
        else None
    )
    try:
        import torch

        gpus = (
            [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
            if torch.cuda.is_available()
            else []
        )
        gpu = ", ".join(gpus) if gpus else f"none (torch {torch.__version__}: CUDA not available)"
    except ImportError:
        gpu = "unknown (torch not installed)"
    return [
        ["CPU", cpu_model()],
        ["CPU cores", str(os.cpu_count())],
        ["kernels", kernels_in_effect()],
        ["memory", f"{int(memory) / 2**20:.1f} GiB" if memory else "unknown"],
        ["GPU", gpu],
        ["platform", platform.platform()],
        ["Python", sys.version.split()[0]],
    ]


def translation_provenance(settings: dict | None) -> list[list[str]]:
    if settings is None:
        return [["machine translation", "stage absent"]]
    from ..translation.translate import make_translator

    try:
        version = make_translator(settings).version
    except Exception as error:  # the report still records which engine was configured
        version = f"unavailable here ({type(error).__name__}: {error})"
    backend = settings["backend"]
    engine = settings[backend].get("models") or settings[backend].get("modes")
    return [["MT backend", backend], ["MT engine / models", json.dumps(engine)], ["MT version", version]]


def vector_provenance(paths: dict[str, str]) -> list[list[str]]:
    if not paths:
        return [["word vectors", "none (no configured run uses word vectors)"]]
    rows = []
    for source, path in paths.items():
        raw = (pq.read_schema(path).metadata or {}).get(b"stsynth")
        info = json.loads(raw) if raw else {}
        rows.append(
            [
                f"word vectors: {source}",
                f"{info.get('words', '?')} words × {info.get('dim', '?')} dims; "
                f"{json.dumps(info.get('provenance', 'no provenance recorded'))}",
            ]
        )
    return rows


def workflow_commit(basedir: str) -> str:
    head = subprocess.run(["git", "-C", basedir, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    if head.returncode != 0:
        return "not a git checkout"
    dirty = subprocess.run(
        ["git", "-C", basedir, "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True
    ).stdout.strip()
    return head.stdout.strip() + (" + uncommitted changes" if dirty else "")


def stage_times(benchmark_dir: str | Path, patterns: list[tuple[str, str]]) -> pd.DataFrame:
    """Wall and CPU seconds per rule from the benchmark files (rule found by its benchmark pattern).

    Schema: rule string, jobs int, wall_s float64 (sum), max_wall_s float64, cpu_s float64.
    """
    from snakemake.io import regex_from_filepattern

    compiled = [(rule, re.compile(regex_from_filepattern(pattern))) for rule, pattern in patterns]
    rows = []
    for path in sorted(Path(benchmark_dir).rglob("*.tsv")):
        relative = str(Path(benchmark_dir).name / path.relative_to(benchmark_dir))
        rule = next((rule for rule, regex in compiled if regex.match(relative)), None)
        if rule is None:
            continue
        table = pd.read_csv(path, sep="\t")
        rows.append((rule, float(table["s"].iloc[-1]), float(table["cpu_time"].iloc[-1])))
    frame = pd.DataFrame(rows, columns=["rule", "s", "cpu"])
    return (
        frame.groupby("rule")
        .agg(jobs=("s", "size"), wall_s=("s", "sum"), max_wall_s=("s", "max"), cpu_s=("cpu", "sum"))
        .sort_values("wall_s", ascending=False)
        .reset_index()
    )


def logged_jobs(workdir: str | Path) -> list[tuple[str, str | None, float | None]]:
    """(rule, benchmark path or None, seconds from start to finish, None if no end is logged) of every job
    Snakemake's logs (.snakemake/log) record, from the timestamps of its `rule <name>:` and `Finished jobid:`
    entries; a job run again in a later log counts once, with its last run (as its benchmark file would)."""
    jobs: dict[tuple[str, str], dict] = {}  # (rule, its outputs) -> the job's entry, the latest run's
    for log in sorted((Path(workdir) / ".snakemake" / "log").glob("*.snakemake.log")):
        in_this_log: dict[str, dict] = {}  # jobid -> entry
        stamp, current = None, None
        for line in log.read_text().splitlines():
            if when := re.match(r"\[(\w{3} \w{3} +\d+ [\d:]+ \d{4})\]$", line):
                stamp = time.mktime(time.strptime(when.group(1), "%a %b %d %H:%M:%S %Y"))
            elif begun := re.match(r"(?:local)?rule (\w+):$", line):
                current = {"rule": begun.group(1), "output": "", "benchmark": None, "start": stamp, "end": None}
            elif current is not None and (field := re.match(r"\s+(output|benchmark|jobid): (.+)$", line)):
                current[field.group(1)] = field.group(2)  # the entry is shared: later fields still land in it
                if field.group(1) == "jobid":
                    jobs[current["rule"], current["output"] or f"{log.name}:{field.group(2)}"] = current
                    in_this_log[field.group(2)] = current
            elif (finished := re.match(r"Finished jobid: (\d+)", line)) and finished.group(1) in in_this_log:
                in_this_log.pop(finished.group(1))["end"] = stamp
    return [
        (job["rule"], job["benchmark"], job["end"] - job["start"] if job["end"] is not None else None)
        for job in jobs.values()
    ]


def logged_times(workdir: str | Path, rules: list[str]) -> pd.DataFrame:
    """Wall seconds per rule of ``rules`` from Snakemake's logs (:func:`logged_jobs`: 1 s resolution; a job the
    between-workflow cache served counts its copy), for the rules without a benchmark file.

    Schema: as :func:`stage_times`'s, cpu_s NaN (the log has no CPU time).
    """
    wanted = set(rules)
    frame = pd.DataFrame(
        [(rule, seconds) for rule, _, seconds in logged_jobs(workdir) if rule in wanted and seconds is not None],
        columns=["rule", "s"],
    )
    return (
        frame.groupby("rule")
        .agg(jobs=("s", "size"), wall_s=("s", "sum"), max_wall_s=("s", "max"))
        .assign(cpu_s=float("nan"))
        .sort_values("wall_s", ascending=False)
        .reset_index()
    )


def model_provenance(models: dict[str, str | None]) -> list[list[str]]:
    """One row per named encoder: the SHA-256 over its folder's files (stsynth.core.digests) the jobs were
    planned with."""
    return [
        [f"encoder: {name}", f"files sha256 {identity}" if identity else "a folder this workflow makes"]
        for name, identity in models.items()
    ]


def wall_time_section(times: pd.DataFrame, cached_times: pd.DataFrame | None = None) -> str:
    """The job time per rule: ``times`` from the benchmark files (:func:`stage_times`), ``cached_times`` those of
    the cached rules from Snakemake's log (:func:`logged_times`), one table, longest first."""
    cached = cached_times if cached_times is not None and len(cached_times) else None
    every = pd.concat([times, cached]) if cached is not None else times
    total = every["wall_s"].sum() if len(every) else 0.0
    time_rows = [
        [r.rule, str(r.jobs), f"{r.wall_s:.1f}", f"{r.max_wall_s:.1f}", f"{r.cpu_s:.1f}"] for r in times.itertuples()
    ]
    if cached is not None:
        time_rows = sorted(
            time_rows
            + [
                [f"{r.rule} (log)", str(r.jobs), f"{r.wall_s:.1f}", f"{r.max_wall_s:.1f}", "–"]
                for r in cached.itertuples()
            ],
            key=lambda row: -float(row[2]),
        )
    return (
        "### Wall time per stage\n\nFrom the `benchmarks/` files (each job's last run)"
        + (
            " and, for the cached rules ("
            + ", ".join(f"`{r}`" for r in cached["rule"])
            + ": Snakemake's between-workflow cache serves them and allows them no benchmark file), from Snakemake's "
            "log (marked `(log)`: 1 s resolution, no CPU time; a job the cache served counts its copy)"
            if cached is not None
            else ""
        )
        + f": {len(every)} rules, {int(every['jobs'].sum()) if len(every) else 0} jobs, {total / 60:.1f} min of job "
        "wall time in total (jobs run in parallel, so the elapsed time was shorter).\n\n"
        + markdown_rows(["rule", "jobs", "wall s", "max s", "CPU s"], time_rows)
    )


def provenance_section(
    *,
    requirements: str,
    debian_packages: list[str],
    translate: dict | None,
    vectors: dict[str, str],
    seed_values: list[tuple[str, object]],
    times: pd.DataFrame,
    basedir: str,
    started: datetime,
    models: dict[str, str | None] | None = None,
    cached_times: pd.DataFrame | None = None,
) -> str:
    """``times`` per rule from the benchmark files; ``cached_times`` those of the cached rules, from the log."""
    facts = [
        ["built", started.strftime("%Y-%m-%d %H:%M UTC")],
        ["workflow commit", workflow_commit(basedir)],
        *machine(),
        *translation_provenance(translate),
        *model_provenance(models or {}),
        *vector_provenance(vectors),
        ["seeds", "; ".join(f"`{path}` = {value}" for path, value in seed_values) or "none"],
    ]
    return (
        "## Provenance\n\n"
        + markdown_rows(["", ""], facts, "ll")
        + "\n"
        + wall_time_section(times, cached_times)
        + "\n### Python packages (requirements.txt; bold: installed version differs)\n\n"
        + markdown_rows(["package", "pinned", "installed"], package_versions(requirements), "lll")
        + "\n### System packages (Debian)\n\n"
        + markdown_rows(["package", "version"], debian_versions(debian_packages), "ll")
    )
