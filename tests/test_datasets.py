"""Datasets in the formats people have (sts, stsb, table), local files, predict sets and groups."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest

from stsynth.core.corpus import sha256_of
from stsynth.core.datasets import Dataset, InputFormatError
from stsynth.core.local_files import check_local_files
from stsynth.core.pairs import pair_table
from stsynth.pipeline.plan import dataset_entry

STSB_LINES = [
    "main-captions\tMSRvid\t2012test\t0001\t5.000\tA plane is taking off.\tAn air plane is taking off.",
    "main-news\theadlines\t2013\t0002\t1.500\tShares fell.\tRain is expected.\tlicense note\tmore",
    'main-forums\tdeft-forum\t2014\t0003\t0.000\t"Quoted" start.\tIt\'s "quoted" too.',
]


def stsb(**keys) -> Dataset:
    return Dataset.from_config(
        {"year": 2017, "name": "stsb-toy", "track": "en", "role": "test", "format": "stsb", "path": "unused", **keys}
    )


def table_dataset(**keys) -> Dataset:
    entry = {
        "year": 2020,
        "name": "own",
        "track": "en",
        "role": "test",
        "format": "table",
        "path": "unused",
        "columns": {"sentence1": "first", "sentence2": "second", "score": "rating"},
    }
    return Dataset.from_config({**entry, **keys})


def test_stsb_reads_score_and_sentences_and_never_the_fields_after_them(tmp_path, caplog):
    path = tmp_path / "sts-toy.csv"
    path.write_text("\n".join(STSB_LINES) + "\n")
    with caplog.at_level("INFO"):
        table = pair_table(stsb(), path)
    assert table["gold"].tolist() == [5.0, 1.5, 0.0]
    assert table["s2"].tolist()[1] == "Rain is expected."  # the license fields are not part of it
    assert table["s1"].iat[2] == '"Quoted" start.'  # quoting is off: quote characters are text
    assert "1 lines carry fields after s2" in caplog.text


@pytest.mark.parametrize(
    "line, message",
    [
        ("main\tMSRvid\t2012\t0001\t5.000\tOnly one sentence.", r"sts-bad.csv:2: expected at least 7 tab-separated"),
        ("main\tMSRvid\t2012\t0001\tfive\tA.\tB.", r"sts-bad.csv:2: score 'five' is not a number"),
        ("main\tMSRvid\t2012\t0001\t5.5\tA.\tB.", r"sts-bad.csv:2: score 5.5 is outside \[0, 5\]"),
    ],
)
def test_stsb_errors_name_file_and_line(tmp_path, line, message):
    path = tmp_path / "sts-bad.csv"
    path.write_text(STSB_LINES[0] + "\n" + line + "\n")
    with pytest.raises(InputFormatError, match=message):
        pair_table(stsb(), path)


def test_stsb_reads_the_real_benchmark_files(shared_corpus):
    sizes = {"sts-train": 5749, "sts-dev": 1500, "sts-test": 1379}  # its readme's breakdown
    for name, size in sizes.items():
        table = pair_table(stsb(name=name), shared_corpus / f"stsbenchmark/{name}.csv")
        assert len(table) == size and table["gold"].notna().all() and table["gold"].between(0, 5).all()
        assert not table["s2"].str.contains("\t").any()


def test_table_maps_columns_quoting_and_the_score_range(tmp_path):
    path = tmp_path / "own.csv"
    path.write_text(
        'id,first,second,rating\n1,"A man, smiling.",A man smiles.,5\n2,A cat.,"A ""big"" dog.",1\n'
        "3,A car.,A red car.,\n4,Rain.,It rains.,3\n"
    )
    table = pair_table(table_dataset(score_range=[1, 5]), path)
    assert table["s1"].tolist()[0] == "A man, smiling." and table["s2"].iat[1] == 'A "big" dog.'
    assert table["gold"].tolist()[:2] == [5.0, 0.0] and np.isnan(table["gold"].iat[2])  # empty cell: unscored
    assert table["gold"].iat[3] == 2.5 and table["line"].tolist() == [1, 2, 3, 4]


def test_table_with_tabs_no_quoting_and_another_encoding(tmp_path):
    path = tmp_path / "own.tsv"
    path.write_bytes('first\tsecond\trating\nCafé "noir".\tA coffee.\t4.0\n'.encode("latin-1"))
    table = pair_table(table_dataset(delimiter="\t", quoting="none", encoding="latin-1"), path)
    assert table["s1"].iat[0] == 'Café "noir".' and table["gold"].iat[0] == 4.0


@pytest.mark.parametrize(
    "content, keys, message",
    [
        (
            "first,second\nA.,B.\n",
            {},
            r"own.csv:1: header \['first', 'second'\] lacks the configured column\(s\) score: 'rating'",
        ),
        ("first,second,rating\nA.,B.,4\nC.,D.\n", {}, r"own.csv:3: expected 3 fields \(as the header\), found 2"),
        ("first,second,rating\nA.,B.,4\nC.,D.,high\n", {}, r"own.csv:3: score 'high' is not a number"),
        (
            "first,second,rating\nA.,B.,4\nC.,D.,0.5\n",
            {"score_range": [1, 5]},
            r"own.csv:3: score 0.5 is outside \[1, 5\]",
        ),
        ("first,second,rating\nA.,B.,4\nC.,D.,\xe9\n", {}, r"own.csv:3: not valid utf-8"),
        # each of these used to give a table without a word
        (
            "first,second,second,rating\nA.,B.,C.,4\n",
            {},
            r"own.csv:1: the header names a column more than once \('second' as columns 2, 3\)",
        ),
        (
            "rating,rating\n1,2\n",
            {"columns": {"sentence1": "rating", "sentence2": "rating"}},
            r"own.csv:1: the header names a column more than once",
        ),
        (
            "first,second\nA.,B.\n",
            {"columns": {"sentence1": "first", "sentence2": "first"}},
            r"own.csv:1: columns sentence1 and sentence2 name the same header column 'first'",
        ),
        (
            "first,second,rating\nA.,B.,4\nC.,D.,0_5\n",
            {},
            r"own.csv:3: score '0_5' is not a number written as a plain decimal",
        ),
        ("first,second,rating\nA.,B.,4\nC.,D.,1e0\n", {}, r"own.csv:3: score '1e0' is not a number"),
        ("first,second,rating\nA.,B.,4\nC.,D.,nan\n", {}, r"own.csv:3: score 'nan' is not a number"),
        ("first,second,rating\nA.,B.,4\nC.,D\0.,3\n", {}, r"own.csv:3: field 2 contains a NUL byte"),
        (
            "first,second,rating\nA.,B.,4\nC.," + "x" * 131073 + ",3\n",
            {},
            r"own.csv:3: field larger than field limit \(131072\)",
        ),
        ("first,second,rating\n", {}, r"own.csv: no pairs; a dataset, a predict set too, needs at least one line"),
    ],
)
def test_table_errors_name_file_and_line(tmp_path, content, keys, message):
    path = tmp_path / "own.csv"
    path.write_bytes(content.encode("latin-1"))
    with pytest.raises(InputFormatError, match=message):
        pair_table(table_dataset(**keys), path)


@pytest.mark.parametrize(
    "fmt, content, message",
    [
        ("sts", "A.\tB.\nC.\t" + "x" * 131073 + "\n", r"in.txt:2: field 2 has 131073 characters, more than the 131072"),
        ("sts", "A.\tB.\nC.\tD\0.\n", r"in.txt:2: field 2 contains a NUL byte \(at character 2\)"),
        (
            "stsb",
            STSB_LINES[0] + "\n" + STSB_LINES[0].replace("A plane", "A\0plane") + "\n",
            r"in.txt:2: field 6 contains a NUL byte",
        ),
        ("stsb", STSB_LINES[0].replace("5.000", "0_5") + "\n", r"in.txt:1: score '0_5' is not a number"),
        ("sts-gold", "0_5\n", r"gs.txt:1: gold score '0_5' is not a number"),
        ("sts-gold", "5.5\n", r"gs.txt:1: gold score 5.5 is outside \[0, 5\]"),
        ("sts-gold", "٣.٥\n", r"gs.txt:1: gold score '٣.٥' is not a number"),  # Arabic-Indic digits
        ("sts-gold", "３.５\n", r"gs.txt:1: gold score '３.５' is not a number"),  # full-width digits
    ],
)
def test_every_format_refuses_nul_overlong_fields_and_odd_numbers(tmp_path, fmt, content, message):
    """One rule for all formats: the sts format used to take a 1 MB sentence and a NUL byte (which
    failed much later in the MT engine), float() read gold "0_5" as 5.0."""
    sentences, gold = tmp_path / "in.txt", tmp_path / "gs.txt"
    if fmt == "sts-gold":
        sentences.write_text("A.\tB.\n")
        gold.write_text(content)
    else:
        sentences.write_text(content)
    dataset = (
        stsb()
        if fmt == "stsb"
        else Dataset.from_config(
            {"year": 2016, "name": "x", "track": "en", "role": "test", "fields": 2, "path": "unused"}
        )
    )
    with pytest.raises(InputFormatError, match=message):
        pair_table(dataset, sentences, gold if fmt == "sts-gold" else None)


def test_a_byte_order_mark_is_removed_and_logged(tmp_path, caplog):
    path = tmp_path / "own.csv"
    path.write_text("\ufefffirst,second,rating\nA.,B.,4\n", encoding="utf-8")
    with caplog.at_level("INFO"):
        table = pair_table(table_dataset(), path)
    assert table["s1"].tolist() == ["A."] and "own.csv starts with a byte-order mark: removed" in caplog.text


def test_a_dataset_without_scores_is_a_predict_set(tmp_path, caplog):
    path = tmp_path / "unlabeled.csv"
    path.write_text("first,second\nA.,B.\nC.,D.\n")
    dataset = table_dataset(columns={"sentence1": "first", "sentence2": "second"})
    assert not dataset.has_gold
    with caplog.at_level("INFO"):
        table = pair_table(dataset, path)
    assert len(table) == 2 and table["gold"].isna().all() and "a predict set" in caplog.text
    sts = Dataset.from_config(
        {"year": 2016, "name": "x", "track": "en", "role": "test", "fields": 2, "input": "in.txt"}
    )
    assert not sts.has_gold
    (tmp_path / "in.txt").write_text("A.\tB.\n")
    assert pair_table(sts, tmp_path / "in.txt")["gold"].isna().all()


def test_a_scored_format_without_any_score_is_an_error(tmp_path):
    path = tmp_path / "own.csv"
    path.write_text("first,second,rating\nA.,B.,\n")
    with pytest.raises(InputFormatError, match="no scored pair"):
        pair_table(table_dataset(), path)


def test_local_files_are_recorded_once_and_a_change_is_refused(tmp_path):
    data, lock = tmp_path / "mine.csv", tmp_path / "results/datasets.lock.tsv"
    data.write_text("first,second\nA.,B.\n")
    first = check_local_files([str(data)], lock, sha256_of, "2026-11-23T00:00:00+00:00")
    assert first.digests == {str(data): hashlib.sha256(data.read_bytes()).hexdigest()}
    assert (
        first.error() is None and "to be recorded" in first.notes()[0] and not lock.exists()
    )  # checking writes nothing
    assert "first read" in first.record()[0]
    assert lock.read_text().splitlines()[1].split("\t")[:2] == [str(data), first.digests[str(data)]]
    lock.write_text(lock.read_text() + "\n\n")  # blank lines (an editor's) are skipped
    again = check_local_files([str(data)], lock, sha256_of, "later")
    assert again.digests == first.digests and again.new == [] and again.error() is None
    data.write_text("first,second\nA.,C.\n")
    changed = check_local_files([str(data)], lock, sha256_of, "later")
    assert "changed since they were first read" in changed.error() and str(data) in changed.error()
    assert "delete their lines" in changed.error()
    with pytest.raises(InputFormatError, match="local file not found"):
        check_local_files([str(tmp_path / "absent.csv")], lock, sha256_of, "later")


def test_dataset_entry_keeps_only_non_default_new_keys():
    sts = Dataset.from_config(
        {
            "year": 2016,
            "name": "x",
            "track": "en",
            "role": "test",
            "fields": 4,
            "input": "in.txt",
            "gold": "gs.txt",
            "format": "sts",
        }
    )
    assert set(dataset_entry(sts)) == {"year", "name", "track", "role", "input", "gold", "fields", "scored"}
    own = dataset_entry(table_dataset(score_range=(1, 5), group="mine"))
    assert own["score_range"] == [1, 5] and own["group"] == "mine" and own["format"] == "table"
    assert table_dataset(group=None).group_name == "2020"


OWN_ROWS = [
    ("first", "second", "rating"),
    ("A boy kicks a ball.", "A boy is kicking a football.", "5"),
    ("A man, smiling, walks.", "A man walks.", "4"),
    ("A cat sleeps.", "The stock market fell.", "1"),
    ("Two dogs play.", "Two dogs are playing outside.", "4.5"),
    ("It rains.", "The sun shines.", "1.5"),
]


def write_csv(path, rows):
    import csv

    with open(path, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)


@pytest.mark.workflow
def test_table_format_local_files_and_a_predict_set_end_to_end(workspace, tmp_path):
    """A researcher's own CSV (header, 1-5 scores, own group) and an unlabeled file, both local:
    the baseline scores the first in its own ALL, writes predictions for the second and scores
    nothing there; the lock file records both, and a later edit of a file is refused."""
    own, unlabeled = tmp_path / "own.csv", tmp_path / "unlabeled.csv"
    write_csv(own, OWN_ROWS)
    write_csv(unlabeled, [("s1", "s2"), ("A dog barks.", "A dog is barking."), ("Hello.", "Goodbye.")])
    workspace.config["datasets"] += [
        {
            "year": 2020,
            "name": "own",
            "role": "test",
            "track": "en",
            "group": "mine",
            "format": "table",
            "path": str(own),
            "score_range": [1, 5],
            "scored": 5,
            "columns": {"sentence1": "first", "sentence2": "second", "score": "rating"},
        },
        {
            "year": 2020,
            "name": "unlabeled",
            "role": "test",
            "track": "en",
            "format": "table",
            "path": str(unlabeled),
            "columns": {"sentence1": "s1", "sentence2": "s2"},
        },
    ]
    workspace.write_config()
    targets = ["results/scores/baseline.md", "results/predictions/baseline/2020/unlabeled.txt"]
    planned = workspace.snakemake("-n", *targets)
    assert (
        f"{own}: first read" in planned.stdout + planned.stderr
        and not (workspace.path / "results/datasets.lock.tsv").exists()
    )
    workspace.snakemake(*targets)
    work = workspace.path
    scores = pd.read_parquet(work / "results/scores/baseline.parquet")
    assert "unlabeled" not in set(scores["dataset"])
    mine = scores[scores["group"] == "mine"].set_index("dataset")
    assert list(mine.index) == ["own", "ALL", "ALL (mean)", "ALL (pooled)"] and mine.loc["own", "pairs"] == 5
    assert mine.loc["ALL", "pearson"] == mine.loc["own", "pearson"] and mine["spearman"].notna().all()
    assert mine.loc["ALL", "pearson_ci_low"] <= mine.loc["ALL", "pearson"] <= mine.loc["ALL", "pearson_ci_high"]
    assert mine.loc["own", "spearman_ci_low"] <= mine.loc["own", "spearman"] <= mine.loc["own", "spearman_ci_high"]
    assert len((work / "results/predictions/baseline/2020/unlabeled.txt").read_text().splitlines()) == 2
    assert "(a predict set: no gold)" in (work / "logs/pairs/2020/unlabeled.log").read_text()
    lock = (work / "results/datasets.lock.tsv").read_text()
    assert str(own) in lock and str(unlabeled) in lock
    assert "Nothing to be done" in workspace.snakemake(*targets).stderr
    write_csv(own, [*OWN_ROWS[:-1], ("It rains.", "The sun shines.", "2")])  # the file changes
    lock_path = work / "results/datasets.lock.tsv"
    recorded = lock_path.read_text()
    planned = workspace.snakemake("-n", *targets, check=False)  # a dry run is refused too, and changes nothing
    assert planned.returncode != 0 and f"{own}: sha256 is" in planned.stdout + planned.stderr
    table = work / "resources/pairs/2020/own.parquet"
    built = table.stat().st_mtime_ns
    for _ in range(2):  # refused on every run, not only the first
        result = workspace.snakemake(*targets, check=False)
        assert result.returncode != 0 and f"{own}: sha256 is" in result.stderr + result.stdout
        assert "InputCheckError" in result.stderr + result.stdout and "NameError" not in result.stderr + result.stdout
    assert lock_path.read_text() == recorded and table.stat().st_mtime_ns == built  # no job ran
    unlocked = workspace.snakemake("--unlock")  # --unlock is not refused
    assert "Unlocked working directory" in unlocked.stdout + unlocked.stderr
    lock_path.write_text(
        "".join(line for line in lock_path.read_text().splitlines(keepends=True) if not line.startswith(str(own)))
    )
    from test_provenance import planned_jobs

    assert planned_jobs(workspace.snakemake("-n", *targets)) == {"pair_table": 1, "predict": 1, "score_run": 1}


@pytest.mark.workflow
def test_the_sts_benchmark_protocol_builds_from_its_config_alone(tmp_path):
    """config/stsb.yaml over config.yaml, in its own working directory: the whole system is planned on
    the benchmark's files (train on sts-train, choose on sts-dev, test on sts-test), nothing else."""
    from conftest import REPO, run_snakemake
    from test_provenance import planned_jobs

    # (the later --configfile replaces the runner's own, which this working directory does not have)
    result = run_snakemake(
        tmp_path, "-n", "all", "--configfile", str(REPO / "config.yaml"), str(REPO / "config/stsb.yaml")
    )
    jobs = planned_jobs(result)
    assert jobs["pair_table"] == 3 and jobs["fetch_corpus_file"] == 3  # the three CSVs (PPDB: studies only)
    assert "translate_pairs" not in jobs and "crosslingual_mt_comparison" not in jobs  # no es-en set
    # raw, task-internal, synthetic, their dev models, 2 fold models of each, the per-set model of sts-test
    assert jobs["fusion_fit"] == 3 and jobs["paragram_train"] == 14 and jobs["round_trips"] == 2
    assert jobs["encoder_tune"] == 2  # the headline tuned encoder and fusion-tuned's dev one (the grid: studies)
    output = result.stdout + result.stderr
    assert "results/predictions/fusion-encoder/2017/sts-test.txt" in output
    assert "resources/round_trips/2017/sts-dev.parquet" in output  # the dev check's round trips


JSONL_ROWS = [
    '{"sentence1": "A man plays.", "sentence2": "A man is playing.", "score": 4.5}',
    '{"sentence1": "A dog runs.", "sentence2": "A cat sleeps.", "score": "1"}',
    '{"sentence1": "Rain.", "sentence2": "Sun.", "score": null}',
    '{"sentence1": "Hello.", "sentence2": "Hi."}',
]
COLUMNS = {"sentence1": "sentence1", "sentence2": "sentence2", "score": "score"}


def typed_dataset(fmt: str, **keys) -> Dataset:
    return Dataset.from_config(
        {
            "year": 2020,
            "name": "export",
            "track": "en",
            "role": "test",
            "format": fmt,
            "path": "unused",
            "columns": COLUMNS,
            **keys,
        }
    )


def test_jsonl_and_parquet_exports_read_like_a_table(tmp_path):
    """What MTEB and Hugging Face dataset exports hold; a null or absent score is an unscored line."""
    jsonl = tmp_path / "export.jsonl"
    jsonl.write_text("\n".join(JSONL_ROWS) + "\n")
    from_jsonl = pair_table(typed_dataset("jsonl"), jsonl)
    assert from_jsonl["gold"].tolist()[:2] == [4.5, 1.0] and from_jsonl["gold"].isna().tolist() == [
        False,
        False,
        True,
        True,
    ]
    parquet = tmp_path / "export.parquet"
    pd.DataFrame(
        {
            "sentence1": ["A man plays.", "A dog runs."],
            "sentence2": ["A man is playing.", "A cat sleeps."],
            "label": [0.9, None],
            "other": [1, 2],
        }
    ).to_parquet(parquet)
    from_parquet = pair_table(
        typed_dataset("parquet", columns={**COLUMNS, "score": "label"}, score_range=[0, 1]), parquet
    )
    assert from_parquet["line"].tolist() == [1, 2] and from_parquet["gold"].iat[0] == pytest.approx(4.5)
    assert from_parquet["gold"].isna().tolist() == [False, True]
    unscored = pair_table(
        typed_dataset("parquet", columns={"sentence1": "sentence1", "sentence2": "sentence2"}), parquet
    )
    assert unscored["gold"].isna().all()  # no score column: a predict set


def test_a_parquet_nan_score_is_refused_and_a_null_is_unscored(tmp_path):
    """pandas writes NaN as null; a file written otherwise can hold a real NaN float: refused, as NaN is in
    every format, where a null stays an unscored pair."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "export.parquet"
    table = {"sentence1": pa.array(["A.", "C.", "E."]), "sentence2": pa.array(["B.", "D.", "F."])}
    pq.write_table(pa.table({**table, "score": pa.array([1.0, None, 2.0], type=pa.float64())}), path)
    assert pair_table(typed_dataset("parquet"), path)["gold"].isna().tolist() == [False, True, False]
    pq.write_table(pa.table({**table, "score": pa.array([1.0, float("nan"), 2.0], from_pandas=False)}), path)
    with pytest.raises(InputFormatError, match=r"export.parquet: row 2: score NaN is not a number \(an unscored pair"):
        pair_table(typed_dataset("parquet"), path)


@pytest.mark.parametrize(
    "fmt, content, message",
    [
        (
            "jsonl",
            JSONL_ROWS[0] + "\n" + '{"sentence1": "A.", "sentence2": "B.", "score": "0_5"}',
            r"export.jsonl:2: score '0_5' is not a number",
        ),
        (
            "jsonl",
            JSONL_ROWS[0] + "\n" + '{"sentence1": "A.", "sentence2": "B.", "score": true}',
            r"export.jsonl:2: score True is not a number",
        ),
        (
            "jsonl",
            JSONL_ROWS[0] + "\n" + '{"sentence1": "A.", "sentence2": "B.", "score": 5.5}',
            r"export.jsonl:2: score 5.5 is outside \[0, 5\]",
        ),
        ("jsonl", JSONL_ROWS[0] + "\n" + '["A.", "B."]', r"export.jsonl:2: a JSON list, not an object"),
        ("jsonl", JSONL_ROWS[0] + "\n" + '{"sentence1": "A.",', r"export.jsonl:2: not a JSON object"),
        ("jsonl", '{"sentence1": "A.", "score": 1}', r"export.jsonl:1: no 'sentence2' \(sentence2\)"),
        (
            "jsonl",
            '{"sentence1": "A.", "sentence2": 7, "score": 1}',
            r"export.jsonl:1: 'sentence2' \(sentence2\) is 7, not a string",
        ),
        (
            "jsonl",
            '{"sentence1": "A.", "sentence2": "B\\u0000", "score": 1}',
            r"export.jsonl:1: field 2 contains a NUL byte",
        ),
        ("jsonl", "", r"export.jsonl: no pairs"),
        (
            "parquet",
            {"sentence1": ["A.", "C."], "sentence2": ["B.", None], "score": [1.0, 2.0]},
            r"export.parquet: row 2: 'sentence2' \(sentence2\) is None",
        ),
        (
            "parquet",
            {"sentence1": ["A.", "C."], "sentence2": ["B.", "D."], "score": [1.0, float("inf")]},
            r"export.parquet: row 2: score inf is outside",
        ),
        (
            "parquet",
            {"s1": ["A."], "sentence2": ["B."], "score": [1.0]},
            r"export.parquet: columns \['s1', 'sentence2', 'score'\] lack the configured column\(s\) sentence1",
        ),
        ("parquet", "not parquet", r"export.parquet: not a readable Parquet file"),
        # NaN is no score in any format (a null is: an unscored pair); one object, one value per key
        (
            "jsonl",
            JSONL_ROWS[0] + "\n" + '{"sentence1": "A.", "sentence2": "B.", "score": NaN}',
            r"export.jsonl:2: NaN is not JSON",
        ),
        ("jsonl", '{"sentence1": "A.", "sentence2": "B.", "score": Infinity}', r"export.jsonl:1: Infinity is not JSON"),
        (
            "jsonl",
            '{"sentence1": "A.", "sentence2": "B.", "score": 1, "score": 4}',
            r"export.jsonl:1: key 'score' is given twice",
        ),
        (
            "jsonl",
            '{"sentence1": "A.", "sentence2": "B.", "score": "٣.٥"}',
            r"export.jsonl:1: score '٣.٥' is not a number",
        ),
    ],
)
def test_typed_formats_name_the_file_and_row(tmp_path, fmt, content, message):
    path = tmp_path / f"export.{fmt}"
    if isinstance(content, dict):
        pd.DataFrame(content).to_parquet(path)
    else:
        path.write_text(content)
    with pytest.raises(InputFormatError, match=message):
        pair_table(typed_dataset(fmt), path)


@pytest.mark.workflow
def test_jsonl_and_parquet_datasets_in_the_workflow(workspace, tmp_path):
    """Declared in config.yaml like any dataset: the schema takes the formats, the pair tables build."""
    jsonl, parquet = tmp_path / "export.jsonl", tmp_path / "export.parquet"
    jsonl.write_text("\n".join(JSONL_ROWS) + "\n")
    pd.DataFrame({"sentence1": ["A man plays."], "sentence2": ["A man is playing."]}).to_parquet(parquet)
    workspace.config["datasets"] += [
        {
            "year": 2020,
            "name": "from-jsonl",
            "role": "test",
            "track": "en",
            "format": "jsonl",
            "path": str(jsonl),
            "columns": COLUMNS,
            "scored": 2,
        },
        {
            "year": 2020,
            "name": "from-parquet",
            "role": "test",
            "track": "en",
            "format": "parquet",
            "path": str(parquet),
            "columns": {"sentence1": "sentence1", "sentence2": "sentence2"},
        },
    ]
    workspace.write_config()
    workspace.snakemake("resources/pairs/2020/from-jsonl.parquet", "resources/pairs/2020/from-parquet.parquet")
    assert len(pd.read_parquet(workspace.path / "resources/pairs/2020/from-jsonl.parquet")) == 4
    assert "(a predict set: no gold)" in (workspace.path / "logs/pairs/2020/from-parquet.log").read_text()


def test_the_same_pair_twice_with_other_gold_is_kept_and_warned_of_naming_both_lines(tmp_path, caplog):
    """The STS Benchmark's training set has four such pairs: the release's lines are kept, each warned of."""
    import logging

    data = tmp_path / "twice.tsv"
    data.write_text(
        "a\tb\tscore\nA dog runs.\tA dog is running.\t4.8\nA cat.\tA hat.\t1\nA dog runs.\tA dog is running.\t0.5\n"
    )
    entry = {"year": 2020, "name": "twice", "role": "test", "track": "en", "format": "table", "path": str(data)}
    entry |= {"delimiter": "\t", "columns": {"sentence1": "a", "sentence2": "b", "score": "score"}}
    with caplog.at_level(logging.WARNING, logger="stsynth.core.pairs"):
        table = pair_table(Dataset.from_config(entry), data)
    assert len(table) == 3 and table["gold"].notna().all()
    assert f"{data}: lines 1 and 3 are the same pair with gold 4.8 and 0.5" in caplog.text


def test_a_semeval_file_on_another_scale_says_its_score_range():
    """score_range is every format's but the STS Benchmark's: a 1-5 SemEval file is mapped onto 0-5 (it was refused
    for format sts, and such a file was read as 0-5)."""
    from snakemake.utils import validate

    from conftest import REPO, declared_project_config

    config = declared_project_config()
    config["datasets"].append(
        {"year": 2020, "name": "x", "track": "en", "fields": 2, "path": "x", "score_range": [1, 5]}
    )
    validate(config, str(REPO / "workflow/schemas/config.schema.yaml"))


def test_a_gold_file_on_its_score_range_is_mapped_onto_0_to_5(tmp_path):
    from stsynth.core.pairs import read_gold

    gold = tmp_path / "gs.txt"
    gold.write_text("1\n5\n\n3\n")
    assert read_gold(gold, (1, 5)) == [0.0, 5.0, None, 2.5]
    with pytest.raises(InputFormatError, match=r"gs.txt:1: gold score 0.5 is outside \[1, 5\]"):
        gold.write_text("0.5\n")
        read_gold(gold, (1, 5))
