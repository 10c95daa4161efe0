"""Parsing of released STS files: each bad-input case fails loudly with file and line."""

import logging

import pytest

from stsynth.core.datasets import Dataset, InputFormatError
from stsynth.core.pairs import blank_counts, pair_table
from stsynth.core.wording import counted

EN16 = Dataset(2016, "toy", "en", "test", "in.txt", "gs.txt", fields=4)


def write(tmp_path, sentences: bytes, gold: bytes, dataset=EN16):
    (tmp_path / "in.txt").write_bytes(sentences)
    (tmp_path / "gs.txt").write_bytes(gold)
    return pair_table(dataset, tmp_path / "in.txt", tmp_path / "gs.txt")


def test_reads_first_two_fields_and_blank_gold_as_unscored(tmp_path):
    table = write(tmp_path, b"a b\tc d\tsrc1\tsrc2\ne f\tg h\tsrc1\tsrc2\n", b"3.5\n\n")
    assert list(table.columns) == ["year", "dataset", "track", "line", "s1", "s2", "gold"]
    assert table["s1"].tolist() == ["a b", "e f"] and table["s2"].tolist() == ["c d", "g h"]
    assert table["line"].tolist() == [1, 2]
    assert table["gold"].iloc[0] == 3.5 and table["gold"].isna().tolist() == [False, True]
    assert not table.apply(lambda row: row.astype(str).str.contains("src").any(), axis=1).any()


def test_crlf_cross_lingual_file_never_keeps_translation_fields(tmp_path):
    es = Dataset(2016, "news", "es-en", "test", "in.txt", "gs.txt", fields=4)
    table = write(tmp_path, "Un café.\tA coffee.\tMT one\tMT two\r\n".encode(), b"4.0\n", es)
    assert table["s1"].tolist() == ["Un café."] and table["s2"].tolist() == ["A coffee."]


def test_wrong_field_count_names_file_and_line(tmp_path):
    with pytest.raises(InputFormatError, match=r"in\.txt:2: expected 4 tab-separated fields, found 2"):
        write(tmp_path, b"a\tb\tc\td\na\tb\n", b"1\n2\n")


def test_undecodable_bytes_name_file_and_line(tmp_path):
    with pytest.raises(InputFormatError, match=r"in\.txt:2: not valid UTF-8"):
        write(tmp_path, b"a\tb\tc\td\n\xff\tb\tc\td\n", b"1\n2\n")


@pytest.mark.parametrize(
    "bad, message",
    [
        (b"high", "is not a number"),
        (b"5.5", "outside"),
        (b"-0.1", "outside"),
        (b"nan", "is not a number"),
        (b"0_5", "is not a number"),
        (b"1e0", "is not a number"),
    ],
)
def test_bad_gold_names_file_and_line(tmp_path, bad, message):
    with pytest.raises(InputFormatError, match=rf"gs\.txt:2: .*{message}"):
        write(tmp_path, b"a\tb\tc\td\na\tb\tc\td\n", b"1\n" + bad + b"\n")


def test_line_count_mismatch(tmp_path):
    with pytest.raises(InputFormatError, match="has 2 lines but .*gs.txt has 1"):
        write(tmp_path, b"a\tb\tc\td\na\tb\tc\td\n", b"1\n")


def test_scored_count_checked_against_config(tmp_path):
    dataset = Dataset(2016, "toy", "en", "test", "in.txt", "gs.txt", fields=4, scored=2)
    with pytest.raises(InputFormatError, match="1 scored pair, config.yaml expects 2"):
        write(tmp_path, b"a\tb\tc\td\na\tb\tc\td\n", b"1\n\n", dataset)


def test_byte_order_mark_is_removed_and_logged(tmp_path, caplog):
    with caplog.at_level(logging.INFO):
        table = write(tmp_path, b"\xef\xbb\xbfa b\tc d\tx\ty\n", b"\xef\xbb\xbf2.0\n")
    assert table["s1"].iat[0] == "a b" and table["gold"].iat[0] == 2.0
    assert "in.txt starts with a UTF-8 byte-order mark: removed" in caplog.text


def test_blank_sentences_are_kept_counted_and_logged(tmp_path, caplog):
    lines = "a b\t\tx\ty\n \u00a0\tc d\tx\ty\ne f\tg h\tx\ty\n   \t \tx\ty\n".encode()
    with caplog.at_level(logging.WARNING):
        table = write(tmp_path, lines, b"1.0\n\n3.0\n4.0\n")
    assert len(table) == 4  # every released line stays: it must still get a prediction
    assert blank_counts(table) == {"blank_s1": 2, "blank_s2": 2, "blank_scored": 2}
    assert "2 lines whose s1 is empty or only white space" in caplog.text and "lines 2, 4" in caplog.text
    assert "2 lines whose s2 is empty or only white space" in caplog.text and "lines 1, 4" in caplog.text


def test_a_count_agrees_with_its_noun(tmp_path, caplog):
    assert (counted(1, "line"), counted(0, "line"), counted(2, "line")) == ("1 line", "0 lines", "2 lines")
    assert counted(3, "repeated key") == "3 repeated keys" and counted(1, "repeated key") == "1 repeated key"
    with caplog.at_level(logging.INFO):
        write(tmp_path, "a b\t\tx\ty\nc d\te f\tx\ty\n".encode(), b"1.0\n2.0\n")
    assert "1 line whose s1 is empty" not in caplog.text  # s1 is given on both lines
    assert "1 line whose s2 is empty or only white space (kept: each still gets a prediction): line 1" in caplog.text
    assert "read 2 lines, 2 scored" in caplog.text
