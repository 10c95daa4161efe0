"""config.yaml is checked against workflow/schemas/config.schema.yaml before anything runs: a
misspelt key or a bad value stops the workflow with a message naming the key and the value."""

import copy
import re
from pathlib import Path

import pytest
import yaml
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

import conftest
from conftest import REPO, run_snakemake

SCHEMA = str(REPO / "workflow" / "schemas" / "config.schema.yaml")


@pytest.fixture
def project_config() -> dict:
    """config.yaml as a run is given it (the schema validates what a user writes, not what the protocol resolves)."""
    return conftest.declared_project_config()


def broken(config: dict, path: tuple, value, *, rename_to: str | None = None) -> dict:
    """A copy of config with the key at path set to value, or renamed to rename_to."""
    config = copy.deepcopy(config)
    *parents, key = path
    holder = config
    for parent in parents:
        holder = holder[parent]
    if rename_to is not None:
        holder[rename_to] = holder.pop(key)
    else:
        holder[key] = value
    return config


def validation_error(config: dict) -> str:
    with pytest.raises(WorkflowError) as error:
        validate(config, SCHEMA)
    return str(error.value)


def test_project_config_is_valid(project_config):
    validate(project_config, SCHEMA)


@pytest.mark.parametrize(
    "path, rename_to, expected",
    [
        (("runs",), "run", "'run' was unexpected"),
        (("tokenize", "lowercase"), "lowercse", "'lowercse' was unexpected"),
        (("corpus", "download_timeout"), "download_timout", "'download_timout' was unexpected"),
    ],
)
def test_misspelt_key_is_named(project_config, path, rename_to, expected):
    message = validation_error(broken(project_config, path, None, rename_to=rename_to))
    assert "Additional properties are not allowed" in message and expected in message


@pytest.mark.parametrize(
    "path, value, expected",
    [
        (("runs", "baseline", "stage"), "no-such-stage", "'no-such-stage' is not one of"),
        (("tokenize", "lowercase"), "yes", "'yes' is not of type 'boolean'"),
        (("corpus", "download_timeout"), -5, "-5 is less than or equal to the minimum of 0"),
        (
            ("encoder", "tuning", "models", "minilm-sts", "loss"),
            "triplet",
            "'triplet' is not one of ['cosent', 'angle', 'cosine', 'cross-bce', 'cross-mse', 'mnrl']",
        ),
        (("encoder", "tuning", "defaults", "batch_size"), 1, "1 is less than the minimum of 2"),
    ],
)
def test_wrong_value_is_named(project_config, path, value, expected):
    assert expected in validation_error(broken(project_config, path, value))


def test_only_a_fusion_run_names_tuned_encoders_for_its_features(project_config):
    config = copy.deepcopy(project_config)
    config["runs"]["encoder-sts"]["encoder"] = {"final": "minilm-sts", "dev": "minilm-sts-dev"}
    assert "should not be valid" in validation_error(config)
    validate({**project_config, "runs": {"encoder": {"stage": "encoder"}}}, SCHEMA)  # model optional


def test_a_dataset_entry_may_say_only_that_it_is_a_test_set(project_config):
    """The protocol gives every set its part; an entry's own role is test or nothing (a set added beside it)."""
    config = copy.deepcopy(project_config)
    config["datasets"][0]["role"] = "train"
    assert "'test' was expected" in validation_error(config)


@pytest.mark.workflow
@pytest.mark.parametrize(
    "path, change, expected",
    [
        (("tokenize", "lowercase"), {"rename_to": "lowercse"}, "'lowercse' was unexpected"),
        (("runs", "encoder", "stage"), {"value": "no-such-stage"}, "'no-such-stage' is not one of"),
    ],
)
def test_snakemake_stops_before_any_job_with_the_schema_message(project_config, tmp_path, path, change, expected):
    config = broken(project_config, path, change.get("value"), rename_to=change.get("rename_to"))
    config["corpus"]["manifest"] = str(REPO / config["corpus"]["manifest"])
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    result = run_snakemake(tmp_path, "--dry-run", check=False, timeout=120)
    assert result.returncode != 0
    output = result.stdout + result.stderr
    # every schema problem, with its key and the config file that set it (stsynth.pipeline.overlays)
    assert re.search(r"\d+ config problems?:", output) and expected in output and "(set in " in output
    assert not (tmp_path / "resources").exists()
    # the start-up of the tools and tests (stsynth.pipeline.overlays.declared_config): the same sequence, same words
    from snakemake.exceptions import WorkflowError

    from stsynth.pipeline.overlays import declared_config

    with pytest.raises(WorkflowError) as declared:
        declared_config([tmp_path / "config.yaml"])
    problems = str(declared.value).splitlines()
    assert re.fullmatch(r"\d+ config problems?:", problems[0]) and expected in str(declared.value)
    assert all(line.strip() in output for line in problems)


def seed_keys(node, path=""):
    """Every property of the schema named seed, or the items of one named seeds: (path, schema)."""
    if isinstance(node, dict):
        for name, child in node.get("properties", {}).items():
            if name == "seed":
                yield f"{path}.{name}", child
            if name == "seeds":
                yield f"{path}.{name}[]", child["items"]
        for key, child in node.items():
            yield from seed_keys(child, f"{path}.{key}")
    elif isinstance(node, list):
        for i, child in enumerate(node):
            yield from seed_keys(child, f"{path}[{i}]")


def test_every_seed_of_the_schema_is_the_one_definition_from_zero_and_the_suffix_reads_each():
    from stsynth.core.folds import seed_model, seed_name

    schema = yaml.safe_load(Path(SCHEMA).read_text())
    found = list(seed_keys(schema))
    assert len(found) >= 8, found  # bootstrap, seed study, fusion, skip-gram, the trainers, tuning, PE, head
    for where, node in found:
        if node.get("$ref") != "#/$defs/seed":  # a default over a $ref'd trainer: its seed is the trainer's
            assert set(node) == {"default"} and where.endswith("ppdb.properties.trainer.seed"), where
    assert schema["$defs"]["seed"]["minimum"] == 0
    for seed in (0, 1, 7, 2**31):
        assert seed_model(seed_name("minilm-sts", seed)) == ("minilm-sts", seed)


def test_the_shipped_yaml_reads_the_same_through_libyaml_and_a_refusal_says_what_pyyaml_says():
    """stsynth.core.yaml_text: every config, overlay, decisions file and the schema give yaml.safe_load's values; a
    text libyaml refuses is refused with PyYAML's own message."""
    from stsynth.core import yaml_text

    files = [
        REPO / "config.yaml",
        *sorted((REPO / "config").rglob("*.yaml")),
        REPO / "workflow/schemas/config.schema.yaml",
    ]
    assert len(files) > 10
    for path in files:
        assert yaml_text.safe_load(path.read_text()) == yaml.safe_load(path.read_text()), path
    bad = "runs:\n  a: [1, 2\n  b: 3\n"
    with pytest.raises(yaml.YAMLError) as theirs:
        yaml.safe_load(bad)
    with pytest.raises(yaml.YAMLError) as ours:
        yaml_text.safe_load(bad)
    assert str(ours.value) == str(theirs.value) and "line 3, column 4" in str(ours.value)
