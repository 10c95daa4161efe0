"""What each job of a target is decided by: its rule, its outputs, its inputs and its params (the code param left out:
it changes with any edit of a module the script imports, not with what the job computes).

    .venv/bin/python workflow/tools/job_plan.py TARGET... --out FOLDER   # FOLDER/<target>.tsv each

One line per job (``rule``, first output, a digest of the inputs, then ``param=digest`` for each param), sorted; a
target is a row of workflow/stsynth/pipeline/targets.tsv. tests/test_job_plans.py keeps one such file per shipped
target under tests/data/job-plans/ and names every job whose inputs or params moved: a change of the config, a
protocol or a plan function that moves what a job reads shows there, before any build. Building the plan runs the
Snakefile's start-up (its checks included) and Snakemake's DAG, in this process, each target in its folder under a
temporary one (where the checkout's resources/encoders/ is linked: an overlay's model folder is relative to the
working directory), so a tree built in the checkout does not change it; nothing is run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]


def digest(value) -> str:
    """A value's digest, the checkout's own path in it written as ``<checkout>`` (a clone elsewhere plans the same)."""
    text = json.dumps(value, sort_keys=True, default=repr).replace(str(CHECKOUT), "<checkout>")
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def plain(value):
    """Params as plain values (Snakemake's Namedlist and such as lists and dicts)."""
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value if isinstance(value, (str, int, float, bool)) or value is None else repr(value)


def job_lines(target: str, directory: Path) -> list[str]:
    """The plan of a target (module docstring), built with ``--forceall`` in ``directory``."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, DAGSettings, OutputSettings, ResourceSettings

    from stsynth.pipeline.cli import TARGETS

    row = TARGETS[target]
    configfiles = [CHECKOUT / "config.yaml", *(CHECKOUT / overlay for overlay in row.overlays)]
    with SnakemakeApi(OutputSettings(quiet={"all"})) as api:
        workflow_api = api.workflow(
            resource_settings=ResourceSettings(cores=1),
            config_settings=ConfigSettings(configfiles=configfiles),
            snakefile=CHECKOUT / "Snakefile",
            workdir=directory,
        )
        workflow_api.dag(DAGSettings(targets={row.snakemake}, forceall=True))
        workflow = workflow_api._workflow  # the DAG's jobs have no public accessor
        workflow._prepare_dag(forceall=True, ignore_incomplete=True, lock_warn_only=True)
        workflow._build_dag()
        lines = []
        for job in workflow.dag.jobs:
            params = {name: plain(value) for name, value in job.params.items() if name != "code"}
            fields = [job.rule.name, min(map(str, job.output), default="-"), digest(sorted(map(str, job.input)))]
            lines.append("\t".join([*fields, *(f"{name}={digest(params[name])}" for name in sorted(params))]))
    return sorted(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("targets", nargs="+")
    parser.add_argument("--out", type=Path, required=True, help="the folder of the <target>.tsv files")
    options = parser.parse_args(argv)
    from stsynth.pipeline.cli import TARGETS

    options.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="job-plan-") as root:
        (Path(root) / "resources").mkdir()
        (Path(root) / "resources" / "encoders").symlink_to(CHECKOUT / "resources" / "encoders")
        for target in options.targets:
            directory = Path(root) / TARGETS[target].directory
            directory.mkdir(parents=True, exist_ok=True)
            lines = job_lines(target, directory)
            (options.out / f"{target}.tsv").write_text("".join(line + "\n" for line in lines))
            print(f"{target}: {len(lines)} jobs", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
