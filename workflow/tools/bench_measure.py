"""How `make bench` measures a step (bench.py runs the steps): a Snakemake command timed as a whole, with its
step count logged while it runs; the peak memory in use machine-wide; job time per rule from a built tree's
benchmark files; the machine's description.
"""

from __future__ import annotations

import logging
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

LOG = logging.getLogger("stsynth.bench")  # progress of the steps, to stderr (main)


def snakemake(workdir: Path, *args: str, env: dict) -> tuple[float, str]:
    """(wall seconds, Snakemake's output) of one command. While it runs, a build's step count goes to stderr
    as done/total, rate and time left at least every 20 s (stsynth.core.progress), so a half-hour step of
    `make bench` is not silent; a dry run (``-n``) reports nothing."""
    from stsynth.core.progress import Progress

    started, lines, progress = time.perf_counter(), [], None
    with subprocess.Popen(
        [sys.executable, "-m", "snakemake", *args],
        cwd=workdir,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    ) as process:
        for line in process.stdout:
            lines.append(line)
            if "-n" in args:
                continue
            if progress is None and (planned := re.match(r"total\s+(\d+)$", line)):  # Snakemake's job stats
                progress = Progress(LOG, f"snakemake in {workdir}", int(planned.group(1)), "steps")
            if progress and (counted := re.match(r"(\d+) of \d+ steps", line)):
                progress.advance(int(counted.group(1)) - progress.done)
    if progress:
        progress.finish()
    seconds, output = time.perf_counter() - started, "".join(lines)
    if process.returncode != 0:
        sys.exit(f"snakemake {' '.join(args)} failed in {workdir}:\n{output[-4000:]}")
    return seconds, output


def cache_outputs(output: str) -> int:
    """Output files a step took from Snakemake's between-workflow cache: those its log links from the cache
    that no job of the step moved there first (a cached rule's job that runs moves its outputs into the
    cache and links them back, with the same line)."""
    linked = re.findall(r"^(?:Symlinking|Copying) output file (\S+) from cache", output, re.M)
    moved = set(re.findall(r"^Moving output file (\S+) to cache", output, re.M))
    return sum(path not in moved for path in linked)


# what every encoding job of a named encoder logs (stsynth.encoders.embedding_store): its jobs' summary lines
ENCODED = re.compile(r"(\d+) sentences encoded, (\d+) read from the embedding store")


def sentences_encoded(tree: Path, since: float) -> tuple[int, int]:
    """(sentences encoded, sentences read from the embedding store) by the encoding jobs a step ran in copy
    ``tree``: the counts of their logs written since ``since`` (Snakemake replaces a job's log when it runs)."""
    encoded = stored = 0
    for log in tree.rglob("logs/**/*.log"):
        if log.stat().st_mtime >= since:
            for done, read in ENCODED.findall(log.read_text(errors="replace")):
                encoded, stored = encoded + int(done), stored + int(read)
    return encoded, stored


def jobs_pending(workdir: Path, env: dict) -> int:
    """Jobs a dry run of `all` would run (0 on a fully built tree)."""
    _, output = snakemake(workdir, "-n", "all", env=env)
    if "Nothing to be done" in output:
        return 0
    return int(match.group(1)) if (match := re.search(r"^total\s+(\d+)$", output, re.M)) else -1


def jobs_done(output: str) -> int:
    """Jobs that ran, the target rule `all` not counted."""
    return sum(1 for rule in re.findall(r"Finished jobid: \d+ \(Rule: (\w+)\)", output) if rule != "all")


def names_loop_rule(line: str, rule: str) -> bool:
    """Whether a line of a rule file names ``rule`` the way a rule made in a loop is named (`rule:`, then `name:`
    with an f-string whose literal prefix the name starts with, a quoted literal among names, or a part's rule
    `base__<group>` named `get_part_rule_name("base", ...)`); the conventions test finds such a rule's block by it
    too."""
    prefix = re.search(r'f"(\w+)\{', line)
    part = f'get_part_rule_name("{rule.split("__")[0]}",' in line
    return bool(prefix and rule.startswith(prefix.group(1))) or f'"{rule}"' in line or part


def rule_job_times(workdir: Path) -> list[tuple[str, str, int, float]]:
    """(rule, stage = its rule file, jobs, job seconds), largest first: from each job's benchmark file, or for a
    rule without one (Snakemake allows none to a `cache: True` rule) from Snakemake's log timestamps (1 s
    resolution; a job served from the between-workflow cache counts its copy time)."""
    from stsynth.results.provenance import logged_jobs

    jobs = logged_jobs(workdir)
    rule_of = {benchmark: rule for rule, benchmark, _ in jobs if benchmark}
    rules = workdir / "workflow" / "rules"
    if not rules.is_dir():  # a `--directory` working tree (make stsb, make sts2017): this checkout's rules
        rules = Path(__file__).resolve().parents[1] / "rules"
    # per rule file, once: the names of its `rule <name>:` blocks and the `name:` lines of rules made in a loop
    named = {
        path.stem: (set(re.findall(r"^\s*rule (\w+):", text, re.M)), re.findall(r"^\s*name:\s*\n\s*(.+)$", text, re.M))
        for path in rules.glob("*.smk")
        for text in [path.read_text()]
    }

    def stage(rule: str) -> str:
        """The rule file that defines ``rule``: `rule <name>:`, or a `name:` line of a rule made in a loop."""
        return next(
            (
                stem
                for stem, (plain, loop_names) in named.items()
                if rule in plain or any(names_loop_rule(line, rule) for line in loop_names)
            ),
            "",
        )

    from stsynth.core.paths import BENCHMARKS

    totals: dict[str, list] = {}
    for path in (workdir / BENCHMARKS).rglob("*.tsv"):
        lines = path.read_text().splitlines()
        if len(lines) < 2:
            continue
        entry = totals.setdefault(rule_of.get(path.relative_to(workdir).as_posix(), "(no log entry)"), [0, 0.0])
        entry[0] += 1
        entry[1] += float(lines[1].split("\t")[0])
    for rule, benchmark, seconds in jobs:
        if benchmark is None and seconds is not None:
            entry = totals.setdefault(f"{rule} (log times)", [0, 0.0])
            entry[0] += 1
            entry[1] += seconds
    return sorted(
        ((rule, stage(rule.split()[0]), jobs, seconds) for rule, (jobs, seconds) in totals.items()),
        key=lambda row: -row[3],
    )


def print_job_times(workdir: Path, title: str, rows: list | None = None) -> None:
    rows = rule_job_times(workdir) if rows is None else rows
    total = sum(seconds for *_, seconds in rows)
    print(
        f"\n{title} (benchmark files and Snakemake's log of {workdir}; {sum(jobs for _, _, jobs, _ in rows)} jobs, "
        f"{total / 60:.1f} min of job time):\n"
    )
    print("| rule | stage (rule file) | jobs | job time |\n|---|---|---:|---:|")
    for rule, stage, jobs, seconds in rows:
        print(f"| {rule} | {stage} | {jobs} | {minutes(seconds)} |")


def machine() -> str:
    from stsynth.results.provenance import cpu_model

    cpu = cpu_model()
    memory = ""
    if Path("/proc/meminfo").exists():
        kib = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f", {kib / 2**20:.0f} GiB RAM"
    from importlib.metadata import version

    return (
        f"{os.cpu_count()} cores ({cpu}){memory}, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}, Snakemake {version('snakemake')}"
    )


def minutes(seconds: float) -> str:
    return f"{int(seconds // 60)} min {seconds % 60:04.1f} s" if seconds >= 60 else f"{seconds:.1f} s"


class MemoryPeak:
    """Machine-wide memory in use (MemTotal - MemAvailable), sampled every second in a thread."""

    def __init__(self):
        import threading

        self.base = self.peak = self.used()
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self.sample, daemon=True)

    @staticmethod
    def used() -> float:
        info = dict(line.split(":", 1) for line in Path("/proc/meminfo").read_text().splitlines())
        return (int(info["MemTotal"].split()[0]) - int(info["MemAvailable"].split()[0])) * 1024.0

    def sample(self) -> None:
        while not self.stopped.wait(1.0):
            self.peak = max(self.peak, self.used())

    def __enter__(self) -> MemoryPeak:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stopped.set()
        self.thread.join()

    def cell(self) -> str:
        return f"{(self.peak - self.base) / 2**30:.1f} GiB ({self.peak / 2**30:.1f} GiB in use at peak)"
