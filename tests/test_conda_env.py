"""envs/stsynth.yaml lists the pins of requirements.txt itself (stsynth.pipeline.conda_env): Snakemake builds a rule's
environment from a copy of the env file and keys it by that file's bytes, so a reference to requirements.txt
would neither resolve there nor rebuild the environment when a pin changes."""

import pytest
import yaml

from conftest import REPO
from stsynth.pipeline.conda_env import main, render, requirements


def test_the_env_file_lists_every_pin_of_requirements_txt():
    env = yaml.safe_load((REPO / "envs/stsynth.yaml").read_text())
    [pip] = [entry["pip"] for entry in env["dependencies"] if isinstance(entry, dict)]
    assert pip == requirements((REPO / "requirements.txt").read_text())
    assert not any(pin.startswith("-") for pin in pip)  # no -r line: the copy under .snakemake/conda cannot follow it
    assert (
        main(
            ["--requirements", str(REPO / "requirements.txt"), "--env-file", str(REPO / "envs/stsynth.yaml"), "--check"]
        )
        == 0
    )


def test_an_env_file_behind_its_requirements_fails_the_check_and_is_rewritten(tmp_path, capsys):
    (tmp_path / "requirements.txt").write_text("numpy==2.4.6\n# a comment\n\nscipy==1.17.1  # why\n")
    env_file = tmp_path / "stsynth.yaml"
    env_file.write_text(render("numpy==2.4.6\n"))
    args = ["--requirements", str(tmp_path / "requirements.txt"), "--env-file", str(env_file)]
    assert main([*args, "--check"]) == 1
    assert "does not list the pins of" in capsys.readouterr().err
    assert main(args) == 0 and main([*args, "--check"]) == 0
    assert env_file.read_text().endswith("      - numpy==2.4.6\n      - scipy==1.17.1\n")


@pytest.mark.parametrize("line", ["-r other.txt", "torch>=2", "torch"])
def test_a_requirement_that_is_not_an_exact_pin_is_refused_naming_its_line(line):
    with pytest.raises(ValueError, match=rf"requirements.txt:2: '{line}' is not a pin"):
        requirements(f"numpy==2.4.6\n{line}\n")
