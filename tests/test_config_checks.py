"""stsynth.pipeline.config_checks on the project's own config: clean as shipped, and each kind of dangling name
reported with its key path (the workflow runs these checks before any job; tests/test_provenance.py
shows that end to end)."""

import copy

import pytest
import yaml

from conftest import REPO, project_config
from stsynth.core.corpus import read_manifest
from stsynth.dcu2016.features import FEATURES
from stsynth.encoders.encoder import ENCODER_FEATURES
from stsynth.pipeline.checks import ConfigError
from stsynth.pipeline.config_checks import check_config
from stsynth.pipeline.overlays import check_unique_keys

CONFIG = project_config()
CONFIG_2017 = project_config("config/sts2017.yaml")  # the SemEval-2017 system's sections are its overlay's
MANIFEST = read_manifest(REPO / CONFIG["corpus"]["manifest"])
KNOWN_FEATURES = {*FEATURES, *ENCODER_FEATURES}


def problems(edit, base: dict = CONFIG) -> str:
    config = copy.deepcopy(base)
    edit(config)
    with pytest.raises(ConfigError) as error:
        check_config(config, MANIFEST, KNOWN_FEATURES)
    return str(error.value)


def test_the_project_config_is_clean():
    assert check_config(CONFIG, MANIFEST, KNOWN_FEATURES) == []


@pytest.mark.parametrize(
    "edit, expected",
    [
        (
            lambda c: c["datasets"].append(dict(c["datasets"][3])),
            "datasets[29]: 2012/MSRpar is declared twice (first as datasets[3])",
        ),
        (
            lambda c: c["datasets"][0].update(gold="STS2012-train/missing.txt"),
            "datasets[0].gold: STS2012-train/missing.txt is not in the corpus manifest",
        ),
        (
            lambda c: c["paragram"]["models"]["task-internal"].update(pairs=["task-internal", "gold-typo"]),
            "paragram.models.task-internal.pairs[1]: 'gold-typo' is not a paraphrase pair table",
        ),
        (
            lambda c: c["paragram"]["models"]["task-internal"].update(preset="fast"),
            "paragram.models.task-internal.preset: 'fast'",
        ),
        (
            lambda c: c["runs"]["encoder-sts"].update(model="minilm-typo"),
            "runs.encoder-sts.model: 'minilm-typo' is not a model in encoder.tuning.models",
        ),
        (
            lambda c: c["runs"]["fusion-tuned"]["encoder"].update(dev="nope"),
            "runs.fusion-tuned.encoder.dev: 'nope' is not an encoder",
        ),
        (
            lambda c: c["encoder"]["tuning"]["models"]["minilm-sts-synthetic"].update(start="minilm-sts-synthetic"),
            "encoder.tuning.models.minilm-sts-synthetic.start: 'minilm-sts-synthetic' is not a named encoder "
            "(encoder.models) or another tuned encoder",
        ),
        (
            lambda c: c["encoder"].update(default="mpnet"),
            "encoder.default: 'mpnet' is not a named encoder in encoder.models (known: minilm)",
        ),
        (
            lambda c: c["encoder"]["models"].update({"minilm-sts": {"package": "x"}}),
            "encoder.models.minilm-sts and encoder.tuning.models.minilm-sts: one name for two encoders",
        ),
        (
            lambda c: c["runs"]["encoder"].update(encoder="mpnet"),
            "runs.encoder.encoder: 'mpnet' is not an encoder (encoder.models or encoder.tuning.models)",
        ),
        (
            lambda c: c["encoder"]["tuning"]["models"]["minilm-synthetic"].update(pairs=["synthetic-2016-typo"]),
            "encoder.tuning.models.minilm-synthetic.pairs[0]: 'synthetic-2016-typo'",
        ),
        (
            lambda c: c["encoder"]["tuning"]["models"]["minilm-task-internal"].pop("pairs"),
            "encoder.tuning.models.minilm-task-internal: loss 'mnrl' trains on pairs, which it does not give",
        ),
        (
            lambda c: c["encoder"]["tuning"]["models"]["minilm-task-internal"].update(frozen_layers=3),
            "encoder.tuning.models.minilm-task-internal.frozen_layers: trains above stored states with a cosent or "
            "angle or cosine loss only, not 'mnrl'",
        ),
        (
            lambda c: c["runs"]["fusion-tuned"].update(more_encoders=["minilm", "nope"]),
            "runs.fusion-tuned.more_encoders[1]: 'nope'",
        ),
        (
            lambda c: c["runs"]["fusion-tuned"].update(more_encoders=["minilm-sts"]),
            "runs.fusion-tuned.more_encoders[0]: 'minilm-sts' is the run's own encoder already",
        ),
        (
            lambda c: c["runs"]["fusion"].update(more_encoders=["minilm"]),
            "runs.fusion.more_encoders: the run's groups hold no encoder feature (encoder, encoder_token_f1) to join",
        ),
        (
            lambda c: c["runs"]["encoder-sts"].update(more_encoders=["minilm"]),
            "runs.encoder-sts.more_encoders: only a fusion run reads more encoders (this one is stage encoder)",
        ),
        (
            lambda c: (
                c["runs"]["fusion-encoder"].update(more_encoders=["minilm-sts"]),
                c["fusion"].update(encoder_folds=2),
            ),
            "runs.fusion-encoder.more_encoders[0]: a tuned encoder among more_encoders is read in-sample",
        ),
        (
            lambda c: c["paragram"]["models"]["task-internal"].update(vectors="fasttext"),
            "paragram.models.task-internal.vectors: 'fasttext'",
        ),
        (
            lambda c: c["paragram"]["models"]["raw"].update(exclude=["2015/imagez"]),
            "paragram.models.raw.exclude[0]: '2015/imagez'",
        ),
        (
            lambda c: c["runs"]["synthetic"].update(model="synthetic-v2"),
            "runs.synthetic.model: 'synthetic-v2' is not a model",
        ),
        (lambda c: c["paraphrase_pairs"]["sweep"].update(model="nope"), "paraphrase_pairs.sweep.model: 'nope'"),
        (
            lambda c: c["synthetic"].update(dev_check=["task-internal-dev", "synthetic-dve"]),
            "synthetic.dev_check[1]: 'synthetic-dve'",
        ),
        (
            lambda c: c["crosslingual"]["reference_translation"].update(models=["fusion"]),
            "crosslingual.reference_translation.models[0]: 'fusion' is not a model",
        ),
        (
            lambda c: c["fusion"]["paragram"]["paraphrase_synthetic"].update(dev="synthetic-dev2"),
            "fusion.paragram.paraphrase_synthetic.dev: 'synthetic-dev2'",
        ),
        (
            lambda c: c["fusion"]["groups"]["cues"].append("sarcasm"),
            "fusion.groups.cues[2]: 'sarcasm' is not a feature",
        ),
        (
            lambda c: c["runs"]["fusion"]["groups"].append("syntax"),
            "runs.fusion.groups[11]: 'syntax' is not a group in fusion.groups",
        ),
        (lambda c: c["features"].update(vectors="glove-840b"), "features.vectors: 'glove-840b'"),
        (
            lambda c: c["report"]["training_curves"].update(synthetic=["synthetic-dev", "synth"]),
            "report.training_curves.synthetic[1]: 'synth'",
        ),
        # runs named outside runs: (each used to vanish without a word)
        (
            lambda c: c["scoring"]["compare"].update(reference="task-internl"),
            "scoring.compare.reference: 'task-internl' is not a run in runs",
        ),
        (
            lambda c: c["scoring"]["compare"]["pairs"].append(["fusion", "fusoin"]),
            "scoring.compare.pairs[11][1]: 'fusoin' is not a run in runs",
        ),
        (
            lambda c: c["report"].update(scatter_runs=["baseline", "synthtic"]),
            "report.scatter_runs[1]: 'synthtic' is not a run in runs",
        ),
        (
            lambda c: c["report"]["paper_systems"].update(fusoin="fusion"),
            "report.paper_systems.fusoin: 'fusoin' is not a run in runs",
        ),
        (
            lambda c: c["report"]["training_curves"].update(synthtic=["synthetic-dev"]),
            "report.training_curves.synthtic: 'synthtic' is not a run",
        ),
        # values that pass the schema but cannot work together
        (
            lambda c: c["paragram"]["models"]["task-internal"].update(holdout={"folds": 2, "fold": 5}),
            "paragram.models.task-internal.holdout: fold 5 of 2 holds nothing out (folds are numbered 0 to 1)",
        ),
        (
            lambda c: c["paraphrase_pairs"]["sweep"].update(start=4.0, stop=3.0),
            "paraphrase_pairs.sweep: start 4.0 is above stop 3.0",
        ),
        (
            lambda c: c["datasets"].append(
                {
                    "year": 2020,
                    "name": "own",
                    "role": "test",
                    "track": "en",
                    "format": "table",
                    "path": "x.csv",
                    "columns": {"sentence1": "first", "sentence2": "first"},
                }
            ),
            "datasets[29].columns: sentence1 and sentence2 name the same column 'first'",
        ),
        (
            lambda c: c["datasets"].append(
                {
                    "year": 2020,
                    "name": "own",
                    "role": "test",
                    "track": "en",
                    "format": "table",
                    "path": "x.csv",
                    "columns": {"sentence1": "a", "sentence2": "b", "score": "c"},
                    "score_range": [5, 5],
                }
            ),
            r"datasets[29].score_range: [5, 5] is not [lowest, highest] with lowest < highest",
        ),
    ],
)
def test_a_dangling_name_is_reported_with_its_key_path(edit, expected):
    assert expected in problems(edit)


def test_every_problem_is_listed_at_once():
    def two(config):
        config["runs"]["synthetic"]["model"] = "x"
        config["fusion"]["dev_table"]["paragram_models"] = ["y"]

    message = problems(two)
    assert (
        "2 problems" in message and "runs.synthetic.model" in message and "fusion.dev_table.paragram_models" in message
    )


def test_a_dev_table_run_that_is_not_built_is_a_note():
    config = project_config()
    config["fusion"]["dev_table"]["run"] = "fusion-xl"
    notes = check_config(config, MANIFEST, KNOWN_FEATURES)
    assert any("fusion.dev_table.run: 'fusion-xl' is not a fusion run in runs" in note for note in notes)


def test_a_key_given_twice_is_refused_with_both_lines(tmp_path):
    """YAML keeps the last of two equal keys without a word (a threshold of 3.8 became 0.0)."""
    overlay = tmp_path / "overlay.yaml"
    overlay.write_text("paraphrase_pairs:\n  threshold: 3.8\n  sweep: {start: 3.0, start: 2.0}\n  threshold: 0.0\n")
    check_unique_keys([REPO / "config.yaml", REPO / "config/stsb.yaml"])  # the shipped files are clean
    with pytest.raises(ConfigError) as error:
        check_unique_keys([REPO / "config.yaml", overlay])
    assert str(error.value).splitlines()[1:] == [
        f"  {overlay}:3: key 'start' is given again (first on line 3); YAML would keep the last value without a word",
        f"  {overlay}:4: key 'threshold' is given again (first on line 2); "
        "YAML would keep the last value without a word",
    ]


@pytest.mark.parametrize(
    "edit, expected",
    [
        (
            lambda c: c["sentence_vectors"]["pe"].update(paraphrase_cnn={"final": "pe", "dev": "pe-typo"}),
            "sentence_vectors.pe.paraphrase_cnn.dev: 'pe-typo' is not a model in paraphrase_cnn.models",
        ),
        (
            lambda c: c["sentence_vectors"]["minilm"].update(encoder="mpnet"),
            "sentence_vectors.minilm.encoder: 'mpnet' is not an encoder",
        ),
        (
            lambda c: c["sentence_vectors"]["w2v"].update(mean="word3vec"),
            "sentence_vectors.w2v.mean: 'word3vec' is not a word-vector source",
        ),
        (
            lambda c: c["sentence_vectors"].update(both={"mean": "word2vec", "events": "event-embeddings"}),
            "sentence_vectors.both: give exactly one of mean, events, paraphrase_cnn, encoder",
        ),
        (
            lambda c: c["paraphrase_cnn"]["models"]["pe"].update(pairs=["task-internal", "ppdb"]),
            "paraphrase_cnn.models.pe.pairs[1]: 'ppdb' is not a paraphrase pair table",
        ),
        (
            lambda c: c["paraphrase_cnn"]["grid"].update(model="pe-typo"),
            "paraphrase_cnn.grid.model: 'pe-typo' is not a model",
        ),
        (
            lambda c: c["paraphrase_cnn"]["models"]["pe"].update(vectors="glove-6b-50d"),
            "paraphrase_cnn.models.pe: unknown: encode gives an unknown word its minilm-static vector, but the model's "
            "vectors are 'glove-6b-50d'",
        ),
        (
            lambda c: c["sentence_vectors"]["w2v"].update(unknown="encode"),
            "sentence_vectors.w2v.unknown: encode gives an unknown word its minilm-static vector, "
            "but this mean averages 'word2vec'",
        ),
        (
            lambda c: c["sentence_vectors"]["ee"].update(unknown="skip"),
            "sentence_vectors.ee.unknown: only a mean has it",
        ),
        (
            lambda c: c["sentence_vectors"].update(xxl={"mean": "ppdb-paragram-minilm-static"}),
            "sentence_vectors.xxl.unknown: skip, but sentence_vectors.paragram-xxl averages the same vectors "
            "(ppdb-paragram-minilm-static) with unknown: encode",
        ),
        (
            lambda c: c["report"].update(paper_table1={"fusion": "PE"}),
            "report.paper_table1.fusion: 'fusion' is not a regression-head run (stage head) in runs",
        ),
    ],
)
def test_the_2017_system_sections_name_what_is_wrong(edit, expected):
    assert expected in problems(edit, CONFIG_2017)


def test_tuned_encoders_that_start_from_each_other_are_a_cycle_not_a_recursion_error():
    def edit(config):
        tuned = config["encoder"]["tuning"]["models"]
        tuned["minilm-sts"]["start"] = "minilm-sts-synthetic"  # minilm-sts-synthetic already starts from minilm-sts

    message = problems(edit)
    assert message.count("is a cycle") == 1
    assert (
        "encoder.tuning.models.minilm-sts.start: minilm-sts -> minilm-sts-synthetic -> minilm-sts is a cycle" in message
    )


def test_the_2017_protocol_refuses_training_on_the_sts_benchmark():
    """STS 2017 track 5's pairs are in the STS Benchmark's dev and test sets: with track 5 as a test set,
    an STS Benchmark set may only be a test set too."""
    from stsynth.pipeline.config_checks_2017 import sts2017_leak_problems

    track5 = {"year": 2017, "name": "track5", "role": "test", "input": "STS2017-test/STS.input.track5.en-en.txt"}
    sts_dev = {"year": 2017, "name": "sts-dev", "role": "train", "format": "stsb", "input": "stsbenchmark/sts-dev.csv"}
    [problem] = sts2017_leak_problems([track5, sts_dev])
    assert (
        problem.startswith(
            "datasets[1]: 2017/sts-dev is STS Benchmark data with role train, and datasets[0] tests on STS 2017 track 5"
        )
        and "make it role: test" in problem
    )
    assert sts2017_leak_problems([track5, {**sts_dev, "role": "test"}]) == []  # scored only: nothing learns from it
    assert sts2017_leak_problems([sts_dev]) == []  # the STS Benchmark protocol (config/stsb.yaml)


def test_encode_needs_the_vectors_whose_words_it_can_encode():
    def edit(config):
        config["paragram"]["defaults"]["unknown"] = "encode"
        config["paragram"]["models"]["raw"]["vectors"] = "glove-6b-50d"

    message = problems(edit)
    assert (
        "paragram.models.raw: unknown: encode gives an unknown word its minilm-static vector, but the model's "
        "vectors are 'glove-6b-50d' (encode needs one of minilm-static, ppdb-paragram-minilm-static"
    ) in message
    assert message.count("unknown: encode") == 1  # the other models keep minilm-static

    def fine(config):
        config["paragram"]["defaults"]["unknown"] = "encode"
        config["paragram"]["models"]["raw"]["vectors"] = "ppdb-paragram-minilm-static"

    config = copy.deepcopy(CONFIG)
    fine(config)
    assert check_config(config, MANIFEST, KNOWN_FEATURES) == []


def test_a_problem_names_where_its_key_got_its_value(tmp_path):
    """The last file that gives the very key (not its section), files that append to its list after it, or
    --config; nothing for a default."""
    from stsynth.pipeline.overlays import ConfigOrigins

    base, mine = tmp_path / "config.yaml", tmp_path / "mine.yaml"
    base.write_text(
        yaml.safe_dump(
            {"fusion": {"seed": 1, "folds": 2}, "datasets": [{"name": "a"}], "runs": {"pe.seed2": {"stage": "head"}}}
        )
    )
    mine.write_text(yaml.safe_dump({"fusion": {"folds": 0}, "extra_datasets": [{"name": "b"}]}))
    origins = ConfigOrigins([base, mine, base], {"kernels": "bogus"})
    assert origins("fusion.folds") == f" (set in {mine})"  # the overlay overrides config.yaml
    assert origins("fusion.seed") == f" (set in {base})"  # config.yaml alone sets it
    assert origins("datasets[1].name") == f" (set in {mine})"  # the item the overlay appended: its file alone
    assert origins("datasets[0].name") == f" (set in {base})"
    assert origins("runs.pe.seed2.stage") == f" (set in {base})"  # a name with a dot is one key
    assert origins("kernels") == " (set with --config)"
    assert origins("fusion.encoder_folds") == ""  # the schema's default


def test_a_problem_of_an_added_dataset_names_the_overlay_that_added_it_alone(tmp_path):
    """datasets[i] of an overlay's extra_datasets: its origin is that overlay, not config.yaml too; an entry of
    config/datasets.yaml is that file's."""
    from stsynth.pipeline.overlays import ConfigOrigins

    mine = tmp_path / "mine.yaml"
    mine.write_text(yaml.safe_dump({"extra_datasets": [{"name": "a", "track": "en", "path": "a.tsv"}]}))
    origins = ConfigOrigins([REPO / "config.yaml", mine])
    declared = len(yaml.safe_load((REPO / "config/datasets.yaml").read_text()))
    assert origins(f"datasets[{declared}].fields") == f" (set in {mine})"
    assert origins("datasets[0].fields") == f" (set in {REPO / 'config/datasets.yaml'})"
