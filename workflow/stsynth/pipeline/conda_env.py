"""envs/stsynth.yaml, the conda environment every rule names (``snakemake --sdm conda``), written from
requirements.txt so that the two cannot disagree.

Snakemake builds a rule's environment from a copy of the env file under ``.snakemake/conda/`` and keys it
by the file's own bytes: a ``-r ../requirements.txt`` line there would point at a path that does not exist
beside the copy, and an edit of requirements.txt would never rebuild the environment. So the pins are
written into the env file itself: ``python -m stsynth.pipeline.conda_env`` (``make conda-env``) writes it,
``--check`` (``make lint``, and tests/test_conda_env.py) fails when it is not what requirements.txt gives.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HEADER = """\
# Python environment of every rule, for `snakemake --sdm conda`. Written by `make conda-env` from
# requirements.txt (stsynth.pipeline.conda_env; `make lint` checks that they agree): edit requirements.txt, not this.
# System packages stay outside it: Apertium (apertium, apertium-eng-spa), WordNet (wordnet-base) and, for
# the 2017 system, the King James Bible (bible-kjv) come from Debian (see Makefile).
channels:
  - conda-forge
  - nodefaults
dependencies:
  - python=3.11
  - pip
  - pip:
"""


def requirements(text: str, source: str = "requirements.txt") -> list[str]:
    """The pins of a requirements file, in its order: one ``name==version`` per line (comments and blank
    lines skipped); anything else is refused, naming the line, since an env file must pin exactly."""
    pins = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, version = line.partition("==")
        if not sep or not name.strip() or not version.strip() or line.startswith("-"):
            raise ValueError(
                f"{source}:{number}: {line!r} is not a pin (name==version); the conda env file lists exact pins only"
            )
        pins.append(f"{name.strip()}=={version.strip()}")
    return pins


def render(requirements_text: str, source: str = "requirements.txt") -> str:
    return HEADER + "".join(f"      - {pin}\n" for pin in requirements(requirements_text, source))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requirements", default="requirements.txt")
    parser.add_argument("--env-file", default="envs/stsynth.yaml")
    parser.add_argument("--check", action="store_true", help="fail unless the env file is what requirements give")
    args = parser.parse_args(argv)
    expected = render(Path(args.requirements).read_text(), args.requirements)
    env_file = Path(args.env_file)
    if args.check:
        if not env_file.exists() or env_file.read_text() != expected:
            print(f"{env_file} does not list the pins of {args.requirements}: run `make conda-env`", file=sys.stderr)
            return 1
        return 0
    env_file.write_text(expected)
    return 0


if __name__ == "__main__":
    sys.exit(main())
