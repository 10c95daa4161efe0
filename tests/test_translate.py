"""Translation backends (real Apertium, a real tiny Marian model built here offline) and the cache."""
from __future__ import annotations

import json
import shutil
from contextlib import closing

import pandas as pd
import pytest

from stsynth.translate import (Apertium, Marian, TranslationCache, TranslationEngineError, make_translator,
                               restore_final_period, strip_apertium_marks, translate_cached, translate_pairs)

MODES = {"en-es": "eng-spa", "es-en": "spa-eng"}


@pytest.fixture(scope="module")
def apertium():
    if shutil.which("apertium") is None:
        message = "apertium is not installed (apt-get install apertium apertium-eng-spa)"
        print(message)
        pytest.skip(message)
    return Apertium(MODES)


class CountingTranslator:
    """Upper-cases; records every sentence it is asked for; can fail after a number of calls."""
    name = "counting"
    version = "1"

    def __init__(self, fail_after_calls: int | None = None):
        self.asked: list[str] = []
        self.calls = 0
        self.fail_after_calls = fail_after_calls

    def translate(self, sentences, direction):
        if self.fail_after_calls is not None and self.calls >= self.fail_after_calls:
            raise KeyboardInterrupt("killed")
        self.calls += 1
        self.asked.extend(sentences)
        return [f"{direction}:{s.upper()}" for s in sentences]


# --- Apertium ----------------------------------------------------------------------------------

def test_marks_are_stripped_but_source_hashtags_kept():
    assert strip_apertium_marks("El *zzyzx #estar @casa", "The zzyzx is home") == "El zzyzx estar casa"
    assert strip_apertium_marks("#Etiqueta y @usuario", "#tag and @user") == "#Etiqueta y @usuario"
    assert strip_apertium_marks("3 * 4 = 12", "3 * 4 = 12") == "3 * 4 = 12"


def test_final_period_swallowed_by_the_line_format_comes_back():
    assert restore_final_period("Dejó", "He left.") == "Dejó."
    assert restore_final_period("Dejó..", "He left...") == "Dejó..."
    assert restore_final_period("Dejó!", "He left!") == "Dejó!"
    assert restore_final_period("EE.UU.", "U.S.") == "EE.UU."
    assert restore_final_period("Dejó", "He left") == "Dejó"


def test_apertium_translates_line_by_line(apertium):
    english = ["The cat sleeps on the bed.", "", "A man is playing a zzyzxq guitar.", "Two\tdogs\nrun."]
    spanish = apertium.translate(english, "en-es")
    assert len(spanish) == 4
    assert "gato" in spanish[0].lower() and spanish[1] == ""
    assert "zzyzxq" in spanish[2] and "*" not in spanish[2]  # unknown word passed through, mark removed
    assert "perros" in spanish[3].lower() and spanish[0].endswith(".")
    back = apertium.translate(spanish, "es-en")
    assert "cat" in back[0].lower() and "dogs" in back[3].lower()
    # Batched output equals one call per sentence: lines never leak into each other.
    assert [apertium.translate([s], "en-es")[0] for s in english] == spanish


def test_apertium_version_names_engine_and_data(apertium):
    assert apertium.version.startswith("Apertium ") and "eng-spa:" in apertium.version


def test_missing_apertium_says_how_to_install(tmp_path):
    with pytest.raises(TranslationEngineError, match="apt-get install apertium"):
        Apertium(MODES, executable="no-such-apertium-binary")
    with pytest.raises(TranslationEngineError, match="apertium-eng-spa"):
        Apertium(MODES, data_dir=str(tmp_path)) if shutil.which("apertium") else Apertium(MODES, executable="sh")


def test_unknown_backend_is_an_error():
    with pytest.raises(ValueError, match="translate.backend"):
        make_translator({"backend": "babelfish"})


# --- cache ---------------------------------------------------------------------------------------

def test_second_run_translates_nothing(tmp_path):
    sentences = ["one", "two", "one", "", "three"]
    cache = TranslationCache(tmp_path / "cache.sqlite")
    first = CountingTranslator()
    out, counts = translate_cached(sentences, "en-es", first, cache, chunk_size=2)
    assert out == ["en-es:ONE", "en-es:TWO", "en-es:ONE", "", "en-es:THREE"]
    assert sorted(first.asked) == ["one", "three", "two"]  # each unique sentence once, never the empty one
    assert counts["translated"] == 3
    cache.close()

    again = CountingTranslator()
    cache = TranslationCache(tmp_path / "cache.sqlite")  # a new process opening the same file
    out2, counts2 = translate_cached(sentences, "en-es", again, cache, chunk_size=2)
    assert out2 == out and again.asked == [] and counts2["translated"] == 0
    # The key includes direction and version: another direction or engine version is not a hit.
    translate_cached(["one"], "es-en", again, cache)
    again.version = "2"
    translate_cached(["two"], "en-es", again, cache)
    assert again.asked == ["one", "two"]


def test_interrupted_run_resumes(tmp_path):
    sentences = [f"sentence {i}" for i in range(10)]
    cache = TranslationCache(tmp_path / "cache.sqlite")
    killed = CountingTranslator(fail_after_calls=2)
    with pytest.raises(KeyboardInterrupt):
        translate_cached(sentences, "en-es", killed, cache, chunk_size=3)
    assert len(killed.asked) == 6  # two chunks done and committed before the kill
    resumed = CountingTranslator()
    out, counts = translate_cached(sentences, "en-es", resumed, TranslationCache(tmp_path / "cache.sqlite"),
                                   chunk_size=3)
    assert resumed.asked == sentences[6:] and counts["cached"] == 6
    assert out == [f"en-es:SENTENCE {i}" for i in range(10)]


def test_translate_pairs_keeps_the_spanish_original(tmp_path, apertium):
    pairs = pd.DataFrame({"year": [2016, 2016], "dataset": ["news", "news"], "track": ["es-en", "es-en"],
                          "line": [1, 2], "s1": ["El gato duerme.", "Un hombre toca la guitarra."],
                          "s2": ["The cat sleeps.", "A man plays guitar."], "gold": [5.0, None]})
    with closing(TranslationCache(tmp_path / "c.sqlite")) as cache:
        translated = translate_pairs(pairs, apertium, cache)
    assert translated["s1_source"].tolist() == pairs["s1"].tolist()
    assert "cat" in translated["s1"].iat[0].lower() and "guitar" in translated["s1"].iat[1].lower()
    assert translated["s2"].tolist() == pairs["s2"].tolist() and translated["gold"].isna().tolist() == [False, True]


# --- Marian (a tiny model built here, offline) ------------------------------------------------------

MEMORIZED = {"a man plays the guitar .": "un hombre toca la guitarra .",
             "the cat sleeps .": "el gato duerme ."}


def build_tiny_marian(folder, train_steps: int = 0):
    """An opus-mt style folder: SentencePiece models, vocab.json (</s>=0, <unk>=1, <pad> last), tiny weights.

    With train_steps, the model is fitted to translate the MEMORIZED sentences, so a correct decoder
    setup (start token, special tokens, batching) shows in the output.
    """
    import sentencepiece as spm
    import torch
    from transformers import MarianConfig, MarianMTModel, MarianTokenizer

    folder.mkdir(parents=True, exist_ok=True)
    text = folder / "text.txt"
    text.write_text("\n".join([*MEMORIZED, *MEMORIZED.values()] * 4) + "\n")
    spm.SentencePieceTrainer.train(input=str(text), model_prefix=str(folder / "sp"), vocab_size=40,
                                   hard_vocab_limit=False, character_coverage=1.0, minloglevel=2)
    processor = spm.SentencePieceProcessor(model_file=str(folder / "sp.model"))
    vocab = {"</s>": 0, "<unk>": 1}
    for index in range(processor.get_piece_size()):
        vocab.setdefault(processor.id_to_piece(index), len(vocab))
    vocab.pop("<s>", None)
    vocab = {piece: index for index, piece in enumerate(vocab)}
    vocab["<pad>"] = len(vocab)
    (folder / "vocab.json").write_text(json.dumps(vocab))
    for name in ("source.spm", "target.spm"):
        shutil.copy(folder / "sp.model", folder / name)
    for leftover in ("sp.model", "sp.vocab", "text.txt"):
        (folder / leftover).unlink()
    pad = vocab["<pad>"]
    config = MarianConfig(vocab_size=len(vocab), d_model=32, encoder_layers=1, decoder_layers=1,
                          encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64,
                          decoder_ffn_dim=64, max_position_embeddings=64, pad_token_id=pad, eos_token_id=0,
                          decoder_start_token_id=pad, forced_eos_token_id=0)
    torch.set_num_threads(1)  # one thread per job on the shared 2-core machine; also keeps training deterministic
    torch.manual_seed(0)
    model = MarianMTModel(config)
    tokenizer = MarianTokenizer(str(folder / "source.spm"), str(folder / "target.spm"), str(folder / "vocab.json"))
    if train_steps:
        batch = tokenizer(list(MEMORIZED), text_target=list(MEMORIZED.values()), return_tensors="pt", padding=True)
        batch["labels"][batch["labels"] == pad] = -100
        optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
        model.train()
        for _ in range(train_steps):
            optimizer.zero_grad()
            model(**batch).loss.backward()
            optimizer.step()
        model.eval()
    tokenizer.save_pretrained(folder)
    model.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def tiny_marian(tmp_path_factory):
    return build_tiny_marian(tmp_path_factory.mktemp("marian") / "en-es", train_steps=100)


def test_marian_translates_with_a_local_model(tiny_marian):
    marian = Marian({"en-es": str(tiny_marian), "es-en": str(tiny_marian)}, batch_size=1, max_length=32)
    sources = list(MEMORIZED)
    assert marian.translate(sources, "en-es") == list(MEMORIZED.values())
    # Length-sorted batches come back in input order.
    batched = Marian({"en-es": str(tiny_marian), "es-en": str(tiny_marian)}, batch_size=8, max_length=32)
    assert batched.translate(sources[::-1] + sources, "en-es") == [MEMORIZED[s] for s in sources[::-1] + sources]
    assert "beams=1" in marian.version and str(tiny_marian) in marian.version


def test_marian_beam_search_and_int8(tiny_marian):
    models = {"en-es": str(tiny_marian), "es-en": str(tiny_marian)}
    beams = Marian(models, num_beams=3, max_length=32)
    assert beams.translate(list(MEMORIZED), "en-es") == list(MEMORIZED.values())
    quantized = Marian(models, max_length=32, device="cpu", quantize_int8=True)
    assert "int8=True" in quantized.version and quantized.version != beams.version
    assert len(quantized.translate(list(MEMORIZED), "en-es")) == 2
    with pytest.raises(TranslationEngineError, match="CPU only"):
        Marian(models, device="cuda", quantize_int8=True)


def test_marian_model_fingerprint_follows_the_weights(tmp_path):
    first = build_tiny_marian(tmp_path / "one")
    second = build_tiny_marian(tmp_path / "two", train_steps=1)
    version = lambda folder: Marian({"en-es": str(folder), "es-en": str(folder)}).version.split("@")[1]
    assert version(first) != version(second)


def test_missing_marian_model_says_how_to_configure(tmp_path):
    with pytest.raises(TranslationEngineError, match="translate.marian.models.en-es"):
        Marian({"en-es": str(tmp_path / "absent"), "es-en": str(tmp_path / "absent")})
