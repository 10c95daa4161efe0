"""A protocol (config.yaml, protocols) is resolved into what every stage reads (stsynth.pipeline.protocol): the
datasets' roles, each model's training and dev sets, its dev-protocol twin, the fusion's and the head's splits; a
set added beside a protocol is read by no model and moves no ALL of the protocol's own sets."""

import copy

import pytest
import yaml

from conftest import REPO, declared_project_config, project_config
from stsynth.dcu2016.fusion_plan import fusion_settings, fusion_split_sets
from stsynth.pipeline.plan import datasets_of, paragram_settings, tuned_encoder_settings
from stsynth.pipeline.protocol import (
    Protocol,
    ProtocolError,
    event_corpus_settings,
    gold_tables,
    protocol_problems,
    resolve,
    split_sets,
    sweep_settings,
)
from stsynth.pipeline.runs import runs_of
from stsynth.sts2017.head_plan import pe_settings


def roles(config: dict) -> dict[str, str]:
    return {f"{d['year']}/{d['name']}": d["role"] for d in config["datasets"]}


@pytest.mark.parametrize(
    "protocol, overlays, final, dev_train, dev, tested",
    [
        ("semeval2016", (), [2012, 2013, 2014, 2015], [2012, 2013, 2014], [2015], {"2016"}),
        (
            "semeval2017",
            ("config/sts2017.yaml",),
            [2012, 2013, 2014, 2015, 2016],
            [2012, 2013, 2014, 2015],
            [2016],
            {"2017"},
        ),
        ("stsb", ("config/stsb.yaml",), ["sts-train"], ["sts-train"], ["sts-dev"], {"2017"}),
    ],
)
def test_each_shipped_protocol_gives_every_stage_its_sets(protocol, overlays, final, dev_train, dev, tested):
    from stsynth.pipeline.overlays import resolved_config

    config = project_config(*overlays)
    tuned = config["encoder"]["tuning"]["models"]
    # the paraphrase embeddings are config/sts2017.yaml's: the 2017 system on this protocol
    pe_config = resolved_config([REPO / "config.yaml", REPO / "config/sts2017.yaml"], {"protocol": protocol})
    pe = pe_config["paraphrase_cnn"]["models"]
    assert gold_tables(config) == {"task-internal": {"years": final}, "task-internal-dev": {"years": dev_train}}
    assert config["paraphrase_pairs"]["tables"] == {"task-internal": {}}  # as declared: resolve writes no years
    # each model's sets come from the protocol (model_sets), not from year keys written into its entry
    assert tuned["minilm-sts-dev"] == {"learning_rate": 5.0e-5}
    assert not any({"gold_years", "dev_years"} & set(entry) for entry in [*tuned.values(), *pe.values()])
    assert not any("dev_years" in entry for entry in config["paragram"]["models"].values())
    minilm, minilm_twin = (tuned_encoder_settings(config, m) for m in ("minilm-sts", "minilm-sts-dev"))
    assert (minilm["gold_years"], minilm["dev_years"]) == (final, [])
    assert (minilm_twin["gold_years"], minilm_twin["dev_years"]) == (dev_train, dev)
    assert (pe_settings(pe_config, "pe")["gold_years"], pe_settings(pe_config, "pe")["dev_years"]) == (final, [])
    assert (pe_settings(pe_config, "pe-dev")["gold_years"], pe_settings(pe_config, "pe-dev")["dev_years"]) == (
        dev_train,
        dev,
    )
    models = config["paragram"]["models"]
    assert paragram_settings(config, models, "synthetic-dev")["dev_years"] == dev
    assert paragram_settings(config, models, "synthetic")["dev_years"] == []
    # the fusion's and the head's splits come from the protocol, not from keys written into the config
    assert split_sets(config) == {"dev_train": dev_train, "dev_validate": dev, "final": final}
    assert not {"dev", "train_years"} & (set(config["fusion"]) | set(config["head"]))
    assert "dev_years" not in config["paragram"]["compare_sources"]
    run = runs_of(config)["fusion-tuned"]
    validate, _, _ = fusion_split_sets(config, datasets_of(config))["dev_validate"]
    assert validate and all(isinstance(year, str) for year in dev) or {d.year for d in validate} == set(dev)
    assert fusion_settings(config, run)["dev"] == {"train_years": dev_train, "validate_years": dev}
    assert event_corpus_settings(config)["pair_years"] == sweep_settings(config)["years"] == dev_train
    assert "pair_years" not in config["events"]["corpus"] and "years" not in config["paraphrase_pairs"]["sweep"]
    assert {key.split("/")[0] for key, role in roles(config).items() if role == "test"} == tested


def test_the_2017_protocol_takes_the_english_sets_only_and_track_5_alone():
    test = [key for key, role in roles(project_config("config/sts2017.yaml")).items() if role == "test"]
    assert test == ["2017/track5"]  # not the STS Benchmark's sets, which share its year
    assert "2016/news" not in roles(project_config("config/sts2017.yaml"))  # tracks: [en]
    assert "2016/news" in roles(project_config()) and "2017/track5" not in roles(project_config())


def test_a_model_is_declared_once_and_its_twin_and_grid_cells_are_derived():
    config = project_config()
    paragram, tuned = config["paragram"]["models"], config["encoder"]["tuning"]["models"]
    assert paragram["synthetic-dev"]["pairs"] == ["task-internal-dev", "synthetic-2015-images"]  # dev_round_trips
    assert paragram["task-internal-paper-dev"] == {"pairs": ["task-internal-dev"], "preset": "paper"}
    assert tuned["minilm-sts-cosent-lr5e-5-dev"]["loss"] == "cosent"  # the grid cell: the twin with what it changes
    assert tuned["minilm-sts-cosine-lr2e-5-dev"]["learning_rate"] == 2.0e-5
    assert tuned["minilm-sts-synthetic-dev"]["start"] == "minilm-sts-dev"  # a tuned start's twin
    assert tuned_encoder_settings(config, "minilm-task-internal-dev")["gold_years"] == []  # mnrl: pair tables only
    assert config["encoder"]["tuning"]["dev_check"][:3] == [
        "minilm-sts-dev",
        "minilm-sts-cosine-lr2e-5-dev",
        "minilm-sts-cosent-lr5e-5-dev",
    ]
    assert config["runs"]["fusion-tuned"]["encoder"] == {"final": "minilm-sts", "dev": "minilm-sts-dev"}
    assert config["fusion"]["paragram"]["paraphrase_synthetic"] == {"final": "synthetic", "dev": "synthetic-dev"}
    assert config["runs"]["fusion"]["groups"][0] == "paragram" and len(config["runs"]["fusion"]["groups"]) == 11


def test_a_model_of_another_protocol_learns_from_that_protocols_sets():
    config = project_config("config/sts2017.yaml", "config/cross-encoder.yaml")
    cross, cross_twin, minilm = (
        tuned_encoder_settings(config, m) for m in ("minilm-cross", "minilm-cross-dev", "minilm-sts")
    )
    assert cross["gold_years"] == [2012, 2013, 2014, 2015] and "protocol" not in cross
    assert cross_twin["gold_years"] == [2012, 2013, 2014] and cross_twin["dev_years"] == [2015]
    assert minilm["gold_years"] == [2012, 2013, 2014, 2015, 2016]  # the running protocol's


def test_the_decisions_are_read_from_the_protocols_own_file():
    assert project_config()["runs"]["fusion"]["chosen"]["n_estimators"] == 125
    assert project_config("config/sts2017.yaml")["runs"]["fusion"]["chosen"]["n_estimators"] == 75
    assert "chosen" not in project_config("config/stsb.yaml")["runs"]["fusion"]  # none recorded: searched


def test_the_papers_table_1_stands_beside_ours_on_its_own_test_set_only():
    assert project_config("config/sts2017.yaml")["report"]["paper_table1"]["pe"] == "PE"
    config = declared_project_config("config/sts2017.yaml")
    config["protocol"] = "semeval2016"  # the 2017 system on the 2016 protocol: no track 5 to stand beside
    resolve(config, REPO)
    assert config["report"]["paper_table1"] == {}


def mine(**protocol) -> dict:
    config = declared_project_config()
    config["datasets"] += [
        {
            "name": f"koala-{part}",
            "track": "en",
            "format": "table",
            "path": f"{part}.tsv",
            "columns": {"sentence1": "a", "sentence2": "b", "score": "s"},
        }
        for part in ("train", "dev", "test")
    ]
    config["protocols"]["mine"] = protocol or {"train": ["koala-train"], "dev": ["koala-dev"], "test": ["koala-test"]}
    config["protocol"] = "mine"
    return config


def test_a_benchmark_without_years_is_a_protocol_of_its_own():
    config = mine()
    resolve(config, REPO)
    assert roles(config) == {"0/koala-train": "train", "0/koala-dev": "train", "0/koala-test": "test"}
    assert gold_tables(config)["task-internal"] == {"years": ["koala-train"]}
    assert config["paragram"]["models"]["synthetic-dev"]["pairs"] == ["task-internal-dev", "synthetic-0-koala-dev"]
    assert "chosen" not in config["runs"]["fusion"]  # no decisions of its own: searched on koala-dev when built


def test_a_set_added_beside_the_protocol_is_scored_in_its_own_group_and_read_by_no_model():
    config = declared_project_config()
    config["datasets"].append(
        {"year": 2016, "name": "extra", "role": "test", "track": "en", "path": "x.tsv", "fields": 2}
    )
    resolve(config, REPO)
    added = config["datasets"][-1]
    assert added["role"] == "test" and added["group"] == "extra"  # the 2016 ALL rows stay the protocol's
    from stsynth.core.datasets import Dataset
    from stsynth.pipeline.protocol import protocol_test_sets

    datasets = [Dataset.from_config(entry) for entry in config["datasets"]]
    assert "extra" not in {d.name for d in protocol_test_sets(datasets)}  # no round trip of it is read


@pytest.mark.parametrize(
    "change, problem",
    [
        (lambda p: p.update(train=["koala-nope"]), "protocols.mine.train[0]: 'koala-nope' names no dataset"),
        (lambda p: p.update(dev=["koala-train"]), "protocols.mine.dev: 0/koala-train is also in train"),
        (lambda p: p.pop("dev"), "protocols.mine: train without dev"),
        (lambda p: p.update(dev_round_trips=["koala-test"]), "dev_round_trips[0]: 'koala-test' is not a dev set"),
    ],
)
def test_a_bad_protocol_is_refused_naming_its_key(change, problem):
    config = mine()
    change(config["protocols"]["mine"])
    assert any(problem in found for found in protocol_problems(config)), protocol_problems(config)
    with pytest.raises(ProtocolError, match="problem"):
        resolve(copy.deepcopy(config), REPO)


def test_a_twin_is_never_declared_by_hand_and_an_added_set_keeps_out_of_the_protocols_groups():
    config = declared_project_config()
    config["paragram"]["models"]["task-internal-dev"] = {"pairs": ["task-internal-dev"]}
    config["encoder"]["tuning"]["models"]["mine-dev"] = {"start": "minilm"}  # a twin's name: its sets would be dev's
    config["datasets"].append(
        {"year": 2016, "name": "extra", "role": "test", "group": 2016, "track": "en", "path": "x", "fields": 2}
    )
    problems = protocol_problems(config)
    assert any(
        "paragram.models.task-internal-dev: the dev-protocol twin of task-internal is derived" in p for p in problems
    )
    assert any(
        "encoder.tuning.models.mine-dev: a name ending in '-dev' is a dev-protocol twin's, derived" in p
        for p in problems
    )
    assert any("2016/extra, added beside protocol semeval2016, names its group 2016" in p for p in problems)


def test_an_added_set_named_like_another_set_in_play_is_refused_naming_both_entries(tmp_path):
    from stsynth.pipeline.overlays import ConfigOrigins, append_extras, origins_named

    config = declared_project_config()
    overlay = tmp_path / "mine.yaml"
    added = [
        {"name": "headlines", "role": "test", "track": "en", "path": "x.tsv", "fields": 2},  # 2016/headlines is
        {"name": "koala", "role": "test", "track": "en", "path": "k1.tsv", "fields": 2},  # two added sets, one name
        {"name": "koala", "role": "test", "track": "en", "path": "k2.tsv", "fields": 2},
        {"name": "wombat", "role": "test", "track": "en", "path": "w.tsv", "fields": 2},  # a name of its own
    ]
    overlay.write_text(yaml.safe_dump({"extra_datasets": added}))
    config["extra_datasets"] = added
    append_extras(config)
    first = len(config["datasets"]) - 4
    protocol_2016 = [i for i, d in enumerate(config["datasets"]) if d.get("year") == 2016 and d["name"] == "headlines"]
    problems = protocol_problems(config)
    clashes = [p for p in problems if "is also the name of" in p]
    assert len(clashes) == 3, problems
    assert clashes[0].startswith(f"datasets[{first}]: 'headlines', added beside protocol semeval2016, is also the name")
    assert f"datasets[{protocol_2016[0]}] (2016/headlines)" in clashes[0]
    assert (
        f"datasets[{first + 1}]: 'koala'" in clashes[1]
        and f"datasets[{first + 2}] (added with role: test)" in clashes[1]
    )
    assert f"datasets[{first + 2}]: 'koala'" in clashes[2] and f"datasets[{first + 1}] (added" in clashes[2]
    assert not any("wombat" in p for p in problems)
    with pytest.raises(ProtocolError) as refused:
        resolve(copy.deepcopy(config), REPO)
    origins = ConfigOrigins([REPO / "config.yaml", overlay])
    message = origins_named(str(refused.value), origins)
    assert "config: 3 problems:" in message
    assert f"datasets[{first}]: 'headlines'" in message and f"(set in {overlay})" in message


def test_an_unknown_protocol_is_named():
    config = declared_project_config()
    config["protocol"] = "semeval2018"
    assert protocol_problems(config) == [
        "protocol: 'semeval2018' is not one of protocols (semeval2016, semeval2017, stsb)"
    ]


def test_the_final_sets_are_train_and_dev_only_when_the_protocol_refits_on_dev():
    assert Protocol("p", (2012,), (2015,), (2016,), True).final == [2012, 2015]
    assert Protocol("p", (2012,), (2015,), (2016,)).final == [2012]


def test_make_decisions_writes_the_decisions_file_of_the_protocol_the_tree_records(tmp_path, capsys):
    from stsynth.pipeline import decisions

    checkout = tmp_path / "checkout"
    (checkout / "config/decisions").mkdir(parents=True)
    tree = tmp_path / "runs/sts2017"
    (tree / "results/fusion").mkdir(parents=True)
    studied = tree / decisions.STUDY_DECISIONS
    studied.write_text(
        "# What the dev searches of protocol semeval2017 chose (make studies); `make decisions` copies this file over\n"
        "protocol: semeval2017\nruns:\n  fusion: {max_depth: 3}\n"
    )
    written = decisions.record(tree, checkout=checkout)  # make decisions DIR=runs/sts2017: no PROTOCOL= needed
    assert written == checkout / "config/decisions/semeval2017.yaml" and written.read_bytes() == studied.read_bytes()
    assert not (checkout / "config/decisions/semeval2016.yaml").exists()
    assert decisions.record(tree, "semeval2017", checkout) == written  # the protocol it records, named: the same
    with pytest.raises(decisions.DecisionsError, match="PROTOCOL=semeval2016, but .* protocol semeval2017 chose"):
        decisions.record(tree, "semeval2016", checkout)
    studied.write_text(studied.read_text().replace("protocol: semeval2017\n", ""))  # a file of before the key
    assert decisions.recorded_protocol(studied) == "semeval2017"
    studied.write_text("runs:\n  fusion: {max_depth: 3}\n")  # no record at all: PROTOCOL= says whose it is
    with pytest.raises(decisions.DecisionsError, match="names no protocol: say which with PROTOCOL="):
        decisions.record(tree, checkout=checkout)
    assert decisions.record(tree, "semeval2016", checkout) == checkout / "config/decisions/semeval2016.yaml"
    assert decisions.main(["--tree", str(tmp_path / "nothing")]) == 2
    assert capsys.readouterr().err == (
        f"make decisions: {tmp_path / 'nothing' / decisions.STUDY_DECISIONS} does not exist: `make studies` "
        "(with the same DIR=) writes it\n"
    )


def test_a_paraphrase_embedding_model_is_named_once_and_a_study_model_brings_its_head_run():
    text = (REPO / "config/sts2017.yaml").read_text()
    declared = yaml.safe_load(text)
    studies = declared["paraphrase_cnn"]["studies"]
    assert len(studies) == 7 and all(text.count(f"{name}:") == 1 for name in studies)  # declared once, nowhere else
    assert not any("paraphrase_cnn" in entry for entry in declared["sentence_vectors"].values())
    config = project_config("config/sts2017.yaml")
    assert config["runs"]["pe-width3"] == {"stage": "head", "vectors": ["pe-width3"], "study": True}
    assert config["sentence_vectors"]["pe"] == {"paraphrase_cnn": {"final": "pe", "dev": "pe-dev"}}
    assert pe_settings(config, "pe-width3")["width"] == 3 and "studies" not in config["paraphrase_cnn"]


def test_a_study_model_named_like_a_model_or_a_run_is_refused():
    from snakemake.exceptions import WorkflowError

    from stsynth.pipeline.overlays import declared_config

    overlay = {"paraphrase_cnn": {"studies": {"pe": {"width": 3}, "fusion": {"width": 2}}}}
    with pytest.raises(WorkflowError) as refused:
        declared_config([REPO / "config.yaml", REPO / "config/sts2017.yaml"], overlay)
    assert "paraphrase_cnn.studies.pe: paraphrase_cnn.models has a pe already" in str(refused.value)
    assert "paraphrase_cnn.studies.fusion: runs has a fusion already" in str(refused.value)
