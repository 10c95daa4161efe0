"""The MT-quality diagnostic: reading a released file's extra field, and scoring one model with two
translations of s1 (stsynth.translation.mt_quality)."""

import numpy as np
import pytest

from stsynth.core.datasets import InputFormatError
from stsynth.dcu2016.sentence_model import build_model
from stsynth.translation.mt_quality import comparison, comparison_markdown, read_field
from test_paragram import SETTINGS, toy_pairs, toy_vectors


def test_read_field_reads_the_asked_field_and_names_a_bad_line(tmp_path):
    path = tmp_path / "es-en_4c.txt"
    path.write_bytes("uno\tone\tone (MT)\tuno (MT)\r\ndos\ttwo\ttwo (MT)\tdos (MT)\r\n".encode())
    assert read_field(path, 4, 3) == ["one (MT)", "two (MT)"]
    with pytest.raises(ValueError, match="field 5 does not exist"):
        read_field(path, 4, 5)
    path.write_bytes("uno\tone\tone (MT)\tuno (MT)\ndos\ttwo\n".encode())
    with pytest.raises(InputFormatError, match=r"es-en_4c.txt:2: expected 4 tab-separated fields, found 2"):
        read_field(path, 4, 3)


@pytest.mark.subprocess
def test_comparison_scores_each_translation_with_the_same_model():
    pairs, tokens = toy_pairs()
    model = build_model(toy_vectors(), SETTINGS)
    # The reference translation of s1 is s2 itself on the first lines: those pairs become identical.
    reference = list(pairs["s2"][:3]) + list(pairs["s1"][3:])
    table = comparison(
        {"toy-run": model},
        [{"pairs": pairs, "tokens": tokens, "reference": reference}],
        "apertium",
        3,
        {"lowercase": True, "aggressive_dash_splits": False, "escape": False},
    )
    assert table["translation"].unique().tolist() == ["backend:apertium", "field 3 of the input file"]
    assert table["dataset"].tolist() == ["toy", "ALL", "toy", "ALL"] and (table["pairs"] == 6).all()
    backend = table[(table["translation"] == "backend:apertium") & (table["dataset"] == "toy")]["pearson"].iat[0]
    cosines = model.cosines(list(tokens["tokens1"]), list(tokens["tokens2"]))
    assert backend == pytest.approx(np.corrcoef(cosines, pairs["gold"])[0, 1])
    assert "| toy-run | field 3 of the input file |" in comparison_markdown(table)
    with pytest.raises(ValueError, match="2 reference lines"):
        comparison(
            {"toy-run": model}, [{"pairs": pairs, "tokens": tokens, "reference": reference[:2]}], "apertium", 3, {}
        )
