"""What users expect of a Snakemake workflow, checked on the real Snakefile (parsed, nothing run):
every rule declares log, benchmark (a cached rule none), threads, mem_mb and runtime (so `--profile profiles/slurm`
asks the scheduler for the right job size), a conda env and a script; translation rules declare
a GPU resource; `snakemake --lint` has nothing to say."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import yaml
from snakemake.api import SnakemakeApi
from snakemake.settings.enums import Quietness
from snakemake.settings.types import OutputSettings, ResourceSettings

from bench_measure import names_loop_rule
from conftest import REPO, declared_project_config, run_snakemake

# Rules that only collect targets.
TARGET_RULES = {"all", "studies", "eval"}  # targets: inputs only
# Rules that run the machine-translation backend (Marian can run on CUDA).
TRANSLATION_RULES = {"translate_pairs", "round_trips"}


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("conventions")
    config = declared_project_config()
    config["corpus"]["manifest"] = str(REPO / config["corpus"]["manifest"])
    (path / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    return path


@pytest.fixture(scope="module")
def rules(workdir):
    cwd = os.getcwd()
    try:
        with SnakemakeApi(OutputSettings(quiet={Quietness.ALL})) as api:  # a set: the logger filters on its members
            workflow = api.workflow(resource_settings=ResourceSettings(), snakefile=REPO / "Snakefile", workdir=workdir)
            return [rule for rule in workflow._workflow.rules if rule.name not in TARGET_RULES]
    finally:
        os.chdir(cwd)


def declared_threads(rule) -> bool:
    """Whether the rule's own block has a threads: line (the parsed rule always has a default)."""
    lines = Path(rule.snakefile).read_text().splitlines()
    start = next(
        (i for i, line in enumerate(lines) if re.match(rf"\s*(rule|checkpoint)\s+{rule.name}\s*:", line)), None
    )
    if start is None:  # a rule a loop defines: `rule:`, then `name: f"<prefix>{...}"` or a literal among names
        opened = [i for i, line in enumerate(lines) if re.match(r"\s*rule\s*:", line)]
        named = next(i for i, line in enumerate(lines) if names_loop_rule(line, rule.name) and opened and i > opened[0])
        start = max(i for i in opened if i < named)
    for line in lines[start + 1 :]:
        if line.strip() and not line.startswith((" ", "\t")):
            return False
        if re.match(r"\s+threads\s*:", line):
            return True
    return False


def test_every_rule_declares_what_a_scheduler_needs(rules):
    gaps = []
    for rule in rules:
        missing = [
            what
            for what, present in [
                ("log", bool(rule.log)),
                # Snakemake refuses a benchmark file to a rule its between-workflow cache may hold
                ("benchmark", rule.benchmark is not None or bool(rule.cache)),
                ("threads", declared_threads(rule)),
                ("resources.mem_mb", "mem_mb" in rule.resources),
                ("resources.runtime", "runtime" in rule.resources),
                ("conda", rule.conda_env is not None),
                ("script", rule.script is not None),
            ]
            if not present
        ]
        if missing:
            gaps.append(f"{rule.name} ({Path(rule.snakefile).relative_to(REPO)}:{rule.lineno}): {', '.join(missing)}")
    assert not gaps, "rules missing declarations:\n" + "\n".join(gaps)


def test_translation_rules_declare_a_gpu_resource(rules):
    by_name = {rule.name: rule for rule in rules}
    present = TRANSLATION_RULES & set(by_name)
    if not present:
        pytest.skip("no translation rule in the workflow yet")
    assert [name for name in sorted(present) if "gpu" not in by_name[name].resources] == []


@pytest.mark.workflow
def test_lint_is_clean(workdir):
    result = run_snakemake(workdir, "--lint", check=False, timeout=120)
    assert result.returncode == 0, f"snakemake --lint:\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"


def test_every_rule_is_named_in_the_architecture_page(rules):
    """Rules made in loops included (encoder_similarity_<encoder>): docs/architecture.md is the map."""
    page = (REPO / "docs" / "architecture.md").read_text()
    missing = [
        rule.name
        for rule in rules
        if f"`{rule.name}`" not in page
        and not (rule.name.startswith("encoder_similarity_") and "`encoder_similarity_<encoder>`" in page)
        and not ("__" in rule.name and f"`{rule.name.split('__')[0]}__<group>`" in page)  # a part's rule
    ]
    assert not missing, f"rules docs/architecture.md does not name: {missing}"


def test_the_hosted_ci_runs_the_projects_ci_script_and_the_lint():
    """.github/workflows/ci.yml: .ci/run (the README's test command) and `make lint` (snakefmt, ruff, the layer
    contracts, Snakemake's lint)."""
    workflow = yaml.safe_load((REPO / ".github/workflows/ci.yml").read_text())
    commands = [step.get("run", "") for job in workflow["jobs"].values() for step in job["steps"]]
    assert any(".ci/run" in command for command in commands) and "make lint" in commands
    makefile = (REPO / "Makefile").read_text()
    lint = makefile.split("\nlint: ", 1)[1].split("\n\n", 1)[0]
    for check in (
        "snakefmt --check Snakefile workflow/rules/",
        "ruff format --check",
        "ruff check",
        "lint-imports",
        "snakemake --lint",
    ):
        assert check in lint, check
    assert "test: env lint" in makefile  # .ci/run's make test lints first


def test_every_script_rule_knows_its_code_by_content(rules):
    """Snakemake's code trigger and cache key see a script's text, not the stsynth modules it imports: the `code`
    param (stsynth.pipeline.code) carries those, so a changed module reruns the jobs that run it."""
    from stsynth.pipeline.code import code_digest

    wrong = [
        rule.name
        for rule in rules
        if rule.script
        and getattr(rule.params, "code", None) != code_digest(REPO / "workflow" / "scripts" / Path(rule.script).name)
    ]
    assert not wrong, f"rules without their script's code digest as the `code` param: {wrong}"
