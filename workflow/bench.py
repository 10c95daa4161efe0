"""Time the workflow the way a user meets it, on a scratch copy of this checkout (`make bench`).

1. cold ``snakemake --cores N all`` (nothing built; the corpus comes from the configured mirrors),
2. the no-op dry run ``snakemake -n all`` on the built tree (median of 3),
3. ``paraphrase_pairs.threshold`` changed, then ``snakemake --cores N all`` again (what reruns).

Prints Markdown: the three timings with job counts, job time per rule of the cold build (from the
rules' benchmark files), and the machine. Usage::

    python workflow/bench.py [--cores 2] [--scratch DIR] [--threshold 3.7]
"""
from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent


def copy_checkout(target: Path) -> None:
    """The tracked files of the working tree (uncommitted edits included), nothing built."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    for name in filter(None, files.decode().split("\0")):
        source = REPO / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


def mirrors_env(config: dict) -> str:
    """The configured mirrors with local relative paths made absolute (they are relative to the checkout)."""
    mirrors = os.environ.get("STSYNTH_MIRRORS", "").split() or config["corpus"]["mirrors"]
    return " ".join(m if re.match(r"^[a-z]+://", m) or Path(m).is_absolute() else str((REPO / m).resolve())
                    for m in mirrors)


def snakemake(workdir: Path, *args: str, env: dict) -> tuple[float, str]:
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "snakemake", *args], cwd=workdir, env=env,
                            capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        sys.exit(f"snakemake {' '.join(args)} failed in {workdir}:\n{result.stderr[-4000:]}")
    return seconds, result.stdout + result.stderr


def jobs_done(output: str) -> int:
    """Jobs that ran, the target rule `all` not counted."""
    return sum(1 for rule in re.findall(r"Finished jobid: \d+ \(Rule: (\w+)\)", output) if rule != "all")


def rule_job_times(workdir: Path) -> list[tuple[str, str, int, float]]:
    """(rule, stage = its rule file, jobs, job seconds) from the tree's benchmark files, largest first.

    Which rule wrote a benchmark file comes from Snakemake's own logs (.snakemake/log), which name
    each job's rule and benchmark path."""
    rule_of = {}
    for log in sorted((workdir / ".snakemake" / "log").glob("*.snakemake.log")):
        rule = None
        for line in log.read_text().splitlines():
            started = re.match(r"(?:local)?rule (\w+):$", line)
            if started:
                rule = started.group(1)
            benchmark = re.match(r"\s+benchmark: (\S+)$", line)
            if benchmark and rule:
                rule_of[benchmark.group(1)] = rule
    stage_of = {name: path.stem for path in (workdir / "workflow" / "rules").glob("*.smk")
                for name in re.findall(r"^\s*rule (\w+):", path.read_text(), re.M)}
    totals: dict[str, list] = {}
    for path in (workdir / "benchmarks").rglob("*.tsv"):
        lines = path.read_text().splitlines()
        if len(lines) < 2:
            continue
        rule = rule_of.get(path.relative_to(workdir).as_posix(), "(no log entry)")
        entry = totals.setdefault(rule, [0, 0.0])
        entry[0] += 1
        entry[1] += float(lines[1].split("\t")[0])
    return sorted(((rule, stage_of.get(rule, ""), jobs, seconds) for rule, (jobs, seconds) in totals.items()),
                  key=lambda row: -row[3])


def print_job_times(workdir: Path, title: str, rows: list | None = None) -> None:
    rows = rule_job_times(workdir) if rows is None else rows
    total = sum(seconds for *_, seconds in rows)
    print(f"\n{title} (benchmark files of {workdir}; {sum(jobs for _, _, jobs, _ in rows)} jobs, "
          f"{total / 60:.1f} min of job time):\n")
    print("| rule | stage (rule file) | jobs | job time |\n|---|---|---:|---:|")
    for rule, stage, jobs, seconds in rows:
        print(f"| {rule} | {stage} | {jobs} | {minutes(seconds)} |")


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor()) if Path("/proc/cpuinfo").exists() else ""
    memory = ""
    if Path("/proc/meminfo").exists():
        kib = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f", {kib / 2**20:.0f} GiB RAM"
    from importlib.metadata import version
    return (f"{os.cpu_count()} cores ({cpu}){memory}, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}, Snakemake {version('snakemake')}")


def minutes(seconds: float) -> str:
    return f"{int(seconds // 60)} min {seconds % 60:04.1f} s" if seconds >= 60 else f"{seconds:.1f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--scratch", type=Path, help="empty folder for the copy (default: a new temporary one)")
    parser.add_argument("--threshold", type=float, default=3.7, help="paraphrase_pairs.threshold for step 3")
    parser.add_argument("--summarize", type=Path, metavar="TREE",
                        help="only print the job time per rule of an already built tree")
    args = parser.parse_args()
    if args.summarize:
        print_job_times(args.summarize, "Job time per rule")
        return
    scratch = args.scratch or Path(tempfile.mkdtemp(prefix="stsynth-bench-"))
    scratch.mkdir(parents=True, exist_ok=True)
    if any(scratch.iterdir()):
        sys.exit(f"{scratch} is not empty")
    copy_checkout(scratch)
    config_path = scratch / "config.yaml"
    config = yaml.safe_load(config_path.read_text())
    env = {**os.environ, "STSYNTH_MIRRORS": mirrors_env(config)}
    print(f"scratch copy: {scratch}", file=sys.stderr)

    cold, output = snakemake(scratch, "--cores", str(args.cores), "all", env=env)
    cold_jobs = jobs_done(output)
    cold_times = rule_job_times(scratch)  # before the rerun overwrites the benchmark files it reruns
    no_op = [snakemake(scratch, "-n", "all", env=env)[0] for _ in range(3)]
    old_threshold = config["paraphrase_pairs"]["threshold"]
    text = config_path.read_text()
    edited = re.sub(r"(\n  threshold: )[0-9.]+", rf"\g<1>{args.threshold}", text, count=1)
    if edited == text:
        sys.exit("config.yaml: paraphrase_pairs.threshold not found")
    config_path.write_text(edited)
    rerun, output = snakemake(scratch, "--cores", str(args.cores), "all", env=env)

    print(f"| step (`--cores {args.cores}`) | wall | jobs |\n|---|---:|---:|")
    print(f"| cold `snakemake all` | {minutes(cold)} | {cold_jobs} |")
    print(f"| `snakemake -n all` on the built tree (median of 3) | {statistics.median(no_op):.1f} s | 0 |")
    print(f"| `paraphrase_pairs.threshold` {old_threshold} -> {args.threshold}, `snakemake all` | "
          f"{minutes(rerun)} | {jobs_done(output)} |")
    print_job_times(scratch, "Job time per rule, cold build", cold_times)
    print(f"\nMachine: {machine()}")


if __name__ == "__main__":
    main()
