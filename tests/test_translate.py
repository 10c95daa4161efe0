"""Translation backends (real Apertium, a real tiny Marian model built here offline) and the cache."""

from __future__ import annotations

import json
import shutil
import subprocess
from contextlib import closing
from pathlib import Path

import pandas as pd
import pytest

from stsynth.translation.apertium import Apertium, apertium_stream, strip_apertium_marks
from stsynth.translation.cache import TranslationCache
from stsynth.translation.engine import TranslationEngineError
from stsynth.translation.marian import Marian
from stsynth.translation.translate import make_translator, translate_cached, translate_pairs

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


@pytest.mark.subprocess
def test_marks_are_stripped_but_source_hashtags_kept():
    assert strip_apertium_marks("El *zzyzx #estar @casa", "The zzyzx is home") == "El zzyzx estar casa"
    assert strip_apertium_marks("#Etiqueta y @usuario", "#tag and @user") == "#Etiqueta y @usuario"
    assert strip_apertium_marks("3 * 4 = 12", "3 * 4 = 12") == "3 * 4 = 12"


@pytest.mark.subprocess
def test_stream_format_is_what_apertium_destxt_writes():
    sentences = ["He left.", "What?", "I paid $5 for a/b <ok> [x] \\y ^z {w} @me", "a~b", "~x"]
    if shutil.which("apertium-destxt"):
        for sentence in sentences:
            destxt = subprocess.run(["apertium-destxt"], input=sentence + "\n", capture_output=True, text=True).stdout
            assert apertium_stream(sentence) == destxt
    assert apertium_stream("He  left\tnow") == "He left now.[][\n]"  # white space folded first


@pytest.mark.subprocess
def test_apertium_translates_each_sentence(apertium):
    english = ["The cat sleeps on the bed.", "", "A man is playing a zzyzxq guitar.", "Two\tdogs\nrun."]
    spanish = apertium.translate(english, "en-es")
    assert len(spanish) == 4
    assert "gato" in spanish[0].lower() and spanish[1] == ""
    assert "zzyzxq" in spanish[2] and "*" not in spanish[2]  # unknown word passed through, mark removed
    assert "perros" in spanish[3].lower() and spanish[0].endswith(".")
    back = apertium.translate(spanish, "es-en")
    assert "cat" in back[0].lower() and "dogs" in back[3].lower()
    assert [apertium.translate([s], "en-es")[0] for s in english] == spanish


def distinct_field(path, field, count):
    sentences = [line.rstrip("\r\n").split("\t")[field] for line in path.open(encoding="utf-8")]
    return list(dict.fromkeys(s for s in sentences if s.strip()))[:count]


@pytest.fixture
def corpus_sentences(shared_corpus):
    """A few hundred real sentences per direction, among them pairs seen to leak into each other."""
    english = (
        distinct_field(shared_corpus / "STS2016-test/STS2016.input.headlines.txt", 0, 150)
        + distinct_field(shared_corpus / "STS2016-test/STS2016.input.postediting.txt", 0, 150)
        # apertium-tagger carries state across a null flush: after the first, the second is tagged
        # differently ("based" as a participle) unless the tagger starts afresh for it.
        + ["the most well-known jerseys have on the neck.", "Gebrselassie based, goes beyond his world record."]
    )
    spanish = distinct_field(shared_corpus / "STS2016-crosslingual-test/SemEval2016_test_news_es-en_4c.txt", 0, 150)
    spanish += distinct_field(
        shared_corpus / "STS2016-crosslingual-test/SemEval2016_test_multisource_es-en_4c.txt", 0, 150
    )
    return {"en-es": english, "es-en": spanish}


@pytest.mark.subprocess
@pytest.mark.parametrize("direction", ["en-es", "es-en"])
def test_a_translation_depends_on_its_sentence_only(apertium, corpus_sentences, direction):
    """Batch, reverse order, other chunk sizes, one by one: the same translation of every sentence."""
    sentences = corpus_sentences[direction]
    assert len(sentences) >= 300
    batch = apertium.translate(sentences, direction)
    assert apertium.translate(sentences[::-1], direction)[::-1] == batch
    for chunk_size in (7, 64):
        chunked = [
            t
            for start in range(0, len(sentences), chunk_size)
            for t in apertium.translate(sentences[start : start + chunk_size], direction)
        ]
        assert chunked == batch, f"chunks of {chunk_size}"
    one_by_one = range(0, len(sentences), 6) if direction == "en-es" else range(0, len(sentences), 10)
    picked = sorted({*one_by_one, len(sentences) - 1})  # every 6th/10th, and the last (the tagger case)
    assert [apertium.translate([sentences[i]], direction)[0] for i in picked] == [batch[i] for i in picked]
    # And it is what the apertium wrapper gives for the sentence alone in its plain-text format.
    mode = MODES[direction]
    for i in picked[:10]:
        alone = subprocess.run(
            ["apertium", "-u", "-f", "txt", mode], input=sentences[i] + "\n", capture_output=True, text=True, check=True
        ).stdout
        assert batch[i] == " ".join(alone.split())


@pytest.mark.subprocess
def test_apertium_version_names_engine_data_and_method(apertium):
    assert apertium.version.startswith("Apertium ") and "eng-spa:" in apertium.version
    assert apertium.version.endswith(Apertium.method)


@pytest.mark.subprocess
def test_translations_made_by_the_old_line_batching_are_not_reused(apertium, tmp_path):
    """The cache key says how a translation was made: a row stored by the line-format code is ignored."""
    old_version = apertium.version.replace(Apertium.method, "cleanup 2")  # what the line-format code wrote
    cache = TranslationCache(tmp_path / "cache.sqlite")
    cache.db.execute(
        "INSERT INTO translations VALUES (?, ?, ?, ?, ?)",
        (
            "apertium",
            old_version,
            "en-es",
            "Toronto rapper Drake gets 4 Grammy nominations",
            "Ucrania oriental rapper Drake coge 4 Grammy Israel",
        ),
    )
    cache.db.commit()
    (translation,), counts = translate_cached(
        ["Toronto rapper Drake gets 4 Grammy nominations"], "en-es", apertium, cache
    )
    assert counts["translated"] == 1 and "Toronto" in translation and "Israel" not in translation


@pytest.mark.subprocess
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
    out, counts = translate_cached(
        sentences, "en-es", resumed, TranslationCache(tmp_path / "cache.sqlite"), chunk_size=3
    )
    assert resumed.asked == sentences[6:] and counts["cached"] == 6
    assert out == [f"en-es:SENTENCE {i}" for i in range(10)]


@pytest.mark.subprocess
def test_translate_pairs_keeps_the_spanish_original(tmp_path, apertium):
    pairs = pd.DataFrame(
        {
            "year": [2016, 2016],
            "dataset": ["news", "news"],
            "track": ["es-en", "es-en"],
            "line": [1, 2],
            "s1": ["El gato duerme.", "Un hombre toca la guitarra."],
            "s2": ["The cat sleeps.", "A man plays guitar."],
            "gold": [5.0, None],
        }
    )
    with closing(TranslationCache(tmp_path / "c.sqlite")) as cache:
        translated = translate_pairs(pairs, apertium, cache)
    assert translated["s1_source"].tolist() == pairs["s1"].tolist()
    assert "cat" in translated["s1"].iat[0].lower() and "guitar" in translated["s1"].iat[1].lower()
    assert translated["s2"].tolist() == pairs["s2"].tolist() and translated["gold"].isna().tolist() == [False, True]
    assert translated["translated1"].all() and not translated["translated2"].any()  # the declared side


SPANISH = ["El gato duerme en la cama.", "Un hombre toca la guitarra en la calle.", "Los precios subieron en mayo."]
ENGLISH = ["The cat is sleeping on the bed.", "A man plays the guitar in the street.", "Prices rose in May."]


@pytest.mark.subprocess
@pytest.mark.parametrize("layout", ["spanish second", "alternating"])
def test_identification_decides_which_side_is_translated(tmp_path, apertium, layout):
    from stsynth.translation.language import language_table

    if layout == "spanish second":
        s1, s2 = ENGLISH, SPANISH
    else:
        s1 = [SPANISH[0], ENGLISH[1], SPANISH[2]]
        s2 = [ENGLISH[0], SPANISH[1], ENGLISH[2]]
    pairs = pd.DataFrame(
        {
            "year": 2016,
            "dataset": "mixed",
            "track": "es-en",
            "line": [1, 2, 3],
            "s1": s1,
            "s2": s2,
            "gold": [5.0, 5.0, 5.0],
        }
    )
    languages = language_table(pairs, ["en", "es"])
    with closing(TranslationCache(tmp_path / "c.sqlite")) as cache:
        translated = translate_pairs(pairs, apertium, cache, languages=languages)
    spanish1 = [s in SPANISH for s in s1]
    assert translated["translated1"].tolist() == spanish1
    assert translated["translated2"].tolist() == [not s for s in spanish1]
    for s1_out, s2_out, src1, src2 in zip(translated["s1"], translated["s2"], s1, s2):
        english_out = [s1_out, s2_out]
        assert src1 in ENGLISH and s1_out == src1 or src2 in ENGLISH and s2_out == src2
        assert not any(word in " ".join(english_out).lower() for word in ("gato", "hombre", "precios"))
    assert translated["s1_source"].tolist() == s1 and translated["s2_source"].tolist() == s2


# --- Marian (a tiny model built here, offline) ------------------------------------------------------

MEMORIZED = {"a man plays the guitar .": "un hombre toca la guitarra .", "the cat sleeps .": "el gato duerme ."}


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
    spm.SentencePieceTrainer.train(
        input=str(text),
        model_prefix=str(folder / "sp"),
        vocab_size=40,
        hard_vocab_limit=False,
        character_coverage=1.0,
        minloglevel=2,
    )
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
    config = MarianConfig(
        vocab_size=len(vocab),
        d_model=32,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=64,
        decoder_ffn_dim=64,
        max_position_embeddings=64,
        pad_token_id=pad,
        eos_token_id=0,
        decoder_start_token_id=pad,
        forced_eos_token_id=0,
    )
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


def test_marian_translation_does_not_depend_on_its_batch(tiny_marian):
    """Sentences of many lengths: batch, reverse, other batch sizes and one by one agree exactly."""
    models = {"en-es": str(tiny_marian), "es-en": str(tiny_marian)}
    words = "a man plays the guitar the cat sleeps".split()
    sentences = [" ".join(words[i % 7 : i % 7 + 1 + i % 5]) + " ." for i in range(40)] + list(MEMORIZED)
    batch = Marian(models, batch_size=16, max_length=32).translate(sentences, "en-es")
    assert Marian(models, batch_size=16, max_length=32).translate(sentences[::-1], "en-es")[::-1] == batch
    assert Marian(models, batch_size=3, max_length=32).translate(sentences, "en-es") == batch
    single = Marian(models, batch_size=1, max_length=32)
    assert [single.translate([s], "en-es")[0] for s in sentences] == batch
    assert batch[-2:] == list(MEMORIZED.values())


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


KILLED_TRANSLATION = """
import sys, time
from stsynth.translation.translate import translate_cached
from stsynth.translation.cache import TranslationCache

class Slow:
    name, version = "slow", "1"
    def translate(self, sentences, direction):
        time.sleep(0.3)
        return [s.upper() for s in sentences]

translate_cached([f"sentence {{i}}" for i in range(40)], "en-es", Slow(), TranslationCache({cache!r}), chunk_size=4)
"""


@pytest.mark.subprocess
def test_a_killed_translation_resumes_with_only_what_is_missing(tmp_path):
    """SIGKILL mid-way (no clean-up runs): the chunks committed so far are kept, the rest is translated."""
    import signal
    import sqlite3
    import sys
    import time

    cache_path = tmp_path / "cache.sqlite"
    script = KILLED_TRANSLATION.format(cache=str(cache_path))
    child = subprocess.Popen([sys.executable, "-c", script])
    deadline = time.monotonic() + 60
    stored = 0
    while stored < 8 and time.monotonic() < deadline:
        time.sleep(0.05)
        if cache_path.exists():
            with closing(sqlite3.connect(cache_path, timeout=5)) as db:
                # The child creates the file a moment before its table: count only once the table is there.
                if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'translations'").fetchone():
                    stored = db.execute("SELECT count(*) FROM translations").fetchone()[0]
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert 8 <= stored < 40, "the child must be killed part-way"
    resumed = CountingTranslator()
    resumed.name, resumed.version = "slow", "1"
    sentences = [f"sentence {i}" for i in range(40)]
    out, counts = translate_cached(sentences, "en-es", resumed, TranslationCache(cache_path), chunk_size=4)
    from_cache = [s for s, t in zip(sentences, out) if t == s.upper()]  # what the killed process stored
    assert len(from_cache) == counts["cached"] >= 8 and counts["cached"] + counts["translated"] == 40
    assert resumed.asked == [s for s in sentences if s not in from_cache]  # only the missing ones, once each


@pytest.mark.subprocess
def test_a_line_with_no_sentence_identified_as_spanish_translates_its_more_probably_spanish_side(tmp_path, apertium):
    """2016 multisource line 241: py3langid (en, es) calls "Funeral de Margaret Thatcher" English
    (p(es) 0.40); its English partner is less Spanish still, so the pair rule translates it."""
    from stsynth.translation.language import language_table

    pairs = pd.DataFrame(
        {
            "year": 2016,
            "dataset": "multisource",
            "track": "es-en",
            "line": [241, 242],
            "s1": ["Funeral de Margaret Thatcher", ENGLISH[0]],
            "s2": ["Margaret Thatcher's funeral", SPANISH[0]],
            "gold": [5.0, 5.0],
        }
    )
    languages = language_table(pairs, ["en", "es"])
    assert languages.query("line == 241 and side == 1")["language"].item() == "en"
    with closing(TranslationCache(tmp_path / "c.sqlite")) as cache:
        translated = translate_pairs(pairs, apertium, cache, languages=languages)
    assert translated["translated1"].tolist() == [True, False] and translated["translated2"].tolist() == [False, True]
    assert "funeral" in translated["s1"].iat[0].lower() and " de " not in translated["s1"].iat[0]


@pytest.mark.subprocess
def test_mode_stages_run_without_a_shell_and_only_apertium_programs():
    from stsynth.translation.apertium import _split_at_tagger, run_pipeline
    from stsynth.translation.engine import TranslationEngineError

    before, tagger, after = _split_at_tagger(
        "lt-proc -z '/d/a b.bin' | apertium-tagger -z -g $2 '/d/x.prob' | lt-proc -z $1 '/d/gen.bin'", Path("m.mode")
    )
    assert before == [["lt-proc", "-z", "/d/a b.bin"]] and tagger == ["apertium-tagger", "-g", "/d/x.prob"]
    assert after == [["lt-proc", "-z", "-n", "/d/gen.bin"]]
    with pytest.raises(TranslationEngineError, match="m.mode: stage 'rm -rf /tmp/x' does not run an Apertium program"):
        _split_at_tagger("lt-proc -z a.bin | rm -rf /tmp/x | apertium-tagger -z -g x.prob", Path("m.mode"))
    # a shell would have expanded these; as argument lists they are plain text
    assert run_pipeline([["cat"], ["tr", "a", "b"]], "a$(touch nowhere)a;") == "b$(touch nowhere)b;"
    with pytest.raises(TranslationEngineError, match="false failed \\(1\\)"):
        run_pipeline([["cat"], ["false"]], "text")
