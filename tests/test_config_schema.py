"""config.yaml is checked against workflow/schemas/config.schema.yaml before anything runs: a
misspelt key or a bad value stops the workflow with a message naming the key and the value."""

import copy
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
    return conftest.project_config()


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
            "'triplet' is not one of ['cosent', 'cosine', 'cross-bce', 'cross-mse', 'mnrl']",
        ),
        (("encoder", "tuning", "defaults", "batch_size"), 1, "1 is less than the minimum of 2"),
    ],
)
def test_wrong_value_is_named(project_config, path, value, expected):
    assert expected in validation_error(broken(project_config, path, value))


def test_only_a_fusion_run_names_tuned_encoders_for_its_features(project_config):
    config = copy.deepcopy(project_config)
    config["runs"]["encoder-sts"]["encoder"] = {"final": "minilm-sts", "dev": "minilm-sts-cosine-lr5e-5-dev"}
    assert "should not be valid" in validation_error(config)
    validate({**project_config, "runs": {"encoder": {"stage": "encoder"}}}, SCHEMA)  # model optional


def test_dataset_entry_with_unknown_role_is_named(project_config):
    config = copy.deepcopy(project_config)
    config["datasets"][0]["role"] = "dev"
    assert "'dev' is not one of ['train', 'test']" in validation_error(config)


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
    assert "config problem(s)" in output and expected in output and "(set in " in output
    assert not (tmp_path / "resources").exists()


# The shipped configs, each resolved as a run sees it (config.yaml, the overlays, the schema's defaults): the
# snapshots under tests/data/resolved-config/ are what the workflow resolved when config.yaml still spelled
# out every default, so moving a default into the schema cannot change a run. A deliberate change of a
# setting rewrites its snapshot: STSYNTH_WRITE_RESOLVED_CONFIG=1 pytest tests/test_config_schema.py
RESOLVED = REPO / "tests" / "data" / "resolved-config"
SHIPPED = {
    "config": [],
    "eval": ["config/eval.yaml"],
    "eval-mpnet": ["config/eval.yaml", "config/eval-mpnet.yaml"],
    "stsb": ["config/stsb.yaml"],
    "sts2017": ["config/sts2017.yaml"],
    "mpnet": ["config/mpnet.yaml"],
    "mpnet-tuned": ["config/mpnet.yaml", "config/mpnet-tuned.yaml"],
    "cross-encoder": ["config/cross-encoder.yaml"],
    "sts2017-cross": ["config/sts2017.yaml", "config/cross-encoder.yaml", "config/cross-encoder-sts2017.yaml"],
    "sts2017-mpnet": ["config/sts2017.yaml", "config/mpnet.yaml", "config/mpnet-sts2017.yaml"],
    "my-encoder": ["config/my-encoder.yaml"],
    "vocabulary-dev": ["config/vocabulary-dev.yaml"],
    "vocabulary-dev-sts2017": ["config/sts2017.yaml", "config/vocabulary-dev-sts2017.yaml"],
    "test": [".test/config.yaml"],
}


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_config_resolves_to_its_snapshot(name):
    import json
    import os

    from stsynth.pipeline.overlays import resolved_config

    resolved = resolved_config([REPO / "config.yaml", *(REPO / overlay for overlay in SHIPPED[name])])
    snapshot = RESOLVED / f"{name}.json"
    if os.environ.get("STSYNTH_WRITE_RESOLVED_CONFIG"):
        snapshot.write_text(json.dumps(resolved, indent=1, sort_keys=True) + "\n")
    assert resolved == json.loads(snapshot.read_text())


def test_every_overlay_in_config_has_a_snapshot():
    shipped = {overlay for overlays in SHIPPED.values() for overlay in overlays}
    assert {f"config/{path.name}" for path in (REPO / "config").glob("*.yaml")} <= shipped


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
