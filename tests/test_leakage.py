"""Which training jobs read a test sentence (or its gold score), read from the real Snakefile's plan.

The plan is the project's own config (and config/sts2017.yaml over it for the 2017 protocol), dry-run in
an empty folder: nothing is built, so these tests read the real protocols in seconds. A job reads what
its planned inputs hold and, through them, everything the jobs that made those inputs
read: each training job's ancestry in the DAG of a dry run of `all` is closed over, and every test set's
files (its corpus copy, pair table and token table) are looked for in it. The round trips of the test
sentences (the synthetic paraphrases, as in the DCU paper) are read by design; what descends from them is
the synthetic family. Everything else that learns (word vectors, paragram models, tuned encoders, the
fusion, the event corpus, PE, the regression head) must not see a test sentence, and on the 2017 protocol
the event corpus must not see the dev year's either.
"""

import re
import subprocess
import sys

import pytest
import yaml

from conftest import REPO

# Rules whose jobs learn from what they read (a table of word vectors, a model, a corpus to train on).
TRAINING_RULES = {
    "vectors_minilm_static",
    "vectors_ppdb_paragram",
    "paragram_train",
    "encoder_tune",
    "fusion_dev",
    "fusion_fit",
    "event_corpus",
    "event_embeddings",
    "paraphrase_cnn_train",
    "head_dev",
    "head_fit",
}
SYNTHETIC_RULES = {"round_trips"}  # reads the test sentences by design: the synthetic paraphrases
# Rules whose one job writes a table per dataset, each row a function of its own sentence alone (encoding,
# similarity): a table of a training set made there holds nothing of the other sets the job also read. A
# rule of one part of the sets (name__<group>: plan.table_job_parts) is its base rule's.
PER_SET_RULES = {
    "sentence_vectors_mean",
    "sentence_vectors_events",
    "sentence_vectors_paraphrase_cnn",
    "sentence_vectors_encoder",
    "event_tables",
    "vectors_unknown_words",
}
# A fit reads no test set at all: fusion_predict and head_predict, which learn nothing, predict them.


def planned_jobs(result) -> list[tuple[str, list[str], list[str]]]:
    """(rule, input files, output files) of every job a dry run prints."""
    jobs = []
    for block in re.split(r"\n(?=(?:local)?rule \S+:\n)", result.stdout):
        if match := re.match(r"(?:local)?rule (\S+):\n", block):
            fields = dict(re.findall(r"^    (input|output): (.*)$", block, flags=re.M))
            jobs.append(
                (match.group(1), *(fields[k].split(", ") if fields.get(k) else [] for k in ("input", "output")))
            )
    return jobs


def _set_of(path: str) -> tuple[str, str] | None:
    """(year, dataset) of a per-set table (.../{year}/{dataset}[.kind].parquet), None for another file."""
    match = re.search(r"/(\d{4})/([^/]+?)(?:\.[a-z]+)*\.parquet$", path)
    return match.groups() if match else None


def _own_set(output: str, inputs: list[str]) -> list[str]:
    """The inputs of a per-set table (PER_SET_RULES): those of its own year/dataset and those of no set."""
    return [path for path in inputs if _set_of(path) in (None, _set_of(output))]


def ancestry(jobs, files: list[str]) -> tuple[set[str], set[str]]:
    """Every file the given files are made from (them included) and every rule that made one."""
    producers = {
        output: (rule, _own_set(output, inputs) if rule.split("__")[0] in PER_SET_RULES else inputs)
        for rule, inputs, outputs in jobs
        for output in outputs
    }
    seen, rules, todo = set(), set(), list(files)
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        if path in producers:
            rule, inputs = producers[path]
            rules.add(rule)
            todo.extend(inputs)
    return seen, rules


def set_files(dataset: dict) -> set[str]:
    where = f"resources/pairs/{dataset['year']}/{dataset['name']}"
    return {
        f"{where}.parquet",
        f"{where}.tokens.parquet",
        *(f"resources/corpus/{dataset[field]}" for field in ("input", "gold") if field in dataset),
    }


def plan(tmp_path, *overlays: dict | str) -> tuple[list, list[dict]]:
    """The planned jobs of `all` and the datasets under config.yaml with the overlays (a config/ file name
    or a dict) over it."""
    from stsynth.pipeline.overlays import resolved_config

    tmp_path.mkdir(parents=True, exist_ok=True)
    files = [REPO / "config.yaml"]
    for i, overlay in enumerate(overlays):
        path = REPO / "config" / overlay if isinstance(overlay, str) else tmp_path / f"overlay{i}.yaml"
        if isinstance(overlay, dict):
            path.write_text(yaml.safe_dump(overlay))
        files.append(path)
    datasets = resolved_config(files)["datasets"]  # those the protocol keeps, with their roles
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "snakemake",
            "--snakefile",
            str(REPO / "Snakefile"),
            "--directory",
            str(tmp_path / "work"),
            "--configfile",
            *map(str, files),
            "--cores",
            "2",
            "-n",
            "all",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return planned_jobs(result), datasets


def readers(jobs, datasets, years=None) -> dict[str, set[str]]:
    """training job (its first output) -> the test sets (or, given years, those years' sets) it reads, with
    'synthetic' where it descends from the round trips."""
    watched = {
        f"{d['year']}/{d['name']}": set_files(d)
        for d in datasets
        if (d["role"] == "test" if years is None else d["year"] in years)
    }
    found = {}
    for rule, inputs, outputs in jobs:
        if rule in TRAINING_RULES:
            files, rules = ancestry(jobs, inputs)
            if sets := {name for name, paths in watched.items() if files & paths}:
                found[outputs[0]] = sets | ({"synthetic"} if rules & SYNTHETIC_RULES else set())
    return found


def _without_synthetic(found):
    return {output: sets for output, sets in found.items() if "synthetic" not in sets}


def _derived_from(jobs, outputs, source: str) -> list[str]:
    """Those of the outputs that are not made from ``source``."""
    return [output for output in outputs if source not in ancestry(jobs, [output])[0]]


VOCABULARY = "resources/vectors/minilm-static.parquet"


TRANSDUCTIVE = {"vectors": {"minilm-static": {"vocabulary": "all"}}}


@pytest.mark.workflow
def test_on_the_2016_protocol_no_training_job_reads_a_test_sentence_but_the_synthetic_family(tmp_path):
    jobs, datasets = plan(tmp_path / "default")
    found = readers(jobs, datasets)
    assert _without_synthetic(found) == {}
    # the check sees a test sentence where one is read: the round trips, by design
    assert "resources/models/synthetic.safetensors" in found
    assert any(rule == "vectors_unknown_words__2016" for rule, _, _ in jobs)  # unknown: encode, the default
    # vocabulary: all (transductive): the minilm-static table reads the test sets' words, and so does
    # whatever is trained from it; nothing else
    jobs, datasets = plan(tmp_path / "transductive", TRANSDUCTIVE)
    leaky = _without_synthetic(readers(jobs, datasets))
    assert VOCABULARY in leaky and _derived_from(jobs, leaky, VOCABULARY) == []


@pytest.mark.workflow
def test_on_the_2017_protocol_only_the_synthetic_family_reads_track_5_and_the_event_corpus_no_dev_sentence(tmp_path):
    jobs, datasets = plan(tmp_path / "overlay", "sts2017.yaml")
    found = readers(jobs, datasets)
    assert _without_synthetic(found) == {}
    assert "resources/models/synthetic.safetensors" in found  # the round trips of track 5, by design
    assert any(rule == "vectors_unknown_words__2017" for rule, _, _ in jobs)  # track 5's words are encoded where met
    # the event corpus holds no sentence of the dev year either (the protocol's train sets only)
    [corpus] = [outputs[0] for rule, _, outputs in jobs if rule == "event_corpus"]
    dev_readers = readers(jobs, datasets, years={2016})
    assert corpus not in dev_readers and "resources/models/pe.pe.safetensors" in dev_readers  # PE trains on 2016
    # vocabulary: all (the setting the overlay held before it was measured inductive): the table and what is
    # trained from it (PE, the paragram models) read track 5's words; nothing else does
    jobs, datasets = plan(tmp_path / "transductive", "sts2017.yaml", TRANSDUCTIVE)
    leaky = _without_synthetic(readers(jobs, datasets))
    assert VOCABULARY in leaky and _derived_from(jobs, leaky, VOCABULARY) == []
