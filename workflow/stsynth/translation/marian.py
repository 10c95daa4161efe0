"""Marian: transformers' ``MarianMTModel`` (opus-mt models by hub name or local folder), in batches of
sentences of one token length, so no sentence is ever padded and a translation never depends on its batch.
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

from ..core.device import resolve_device
from .engine import DIRECTIONS, TranslationEngineError, check_direction

log = logging.getLogger(__name__)


class Marian:
    name = "marian"
    # Part of the version (see Apertium.method): batches of equal token length, never padded.
    method = "unpadded batches"

    def __init__(
        self,
        models: dict[str, str],
        batch_size: int = 16,
        num_beams: int = 1,
        max_length: int = 256,
        device: str = "auto",
        quantize_int8: bool = False,
        threads: int | None = None,
    ):
        import torch
        from transformers import MarianMTModel, MarianTokenizer

        if threads:
            torch.set_num_threads(threads)
        self.torch = torch
        self.batch_size, self.num_beams, self.max_length = batch_size, num_beams, max_length
        if not (quantize_int8 and device.startswith("cuda")):  # that combination is refused below, GPU or not
            device = resolve_device(device)
        if quantize_int8 and device != "cpu":
            raise TranslationEngineError("translate.marian.quantize_int8 works on CPU only; set device: cpu")
        self.device = device
        self.tokenizers, self.models, versions = {}, {}, []
        for direction in DIRECTIONS:
            name = models[direction]
            try:
                tokenizer = MarianTokenizer.from_pretrained(name)
                model = MarianMTModel.from_pretrained(name)
            except (OSError, ValueError) as err:
                raise TranslationEngineError(
                    f"cannot load the Marian model {name!r} for {direction}: {err}\n"
                    "It must be a local folder (config.json, model weights, source.spm, target.spm, vocab.json) "
                    "or a hub name reachable from this machine. Without internet, download it elsewhere "
                    f"(`hf download {name} --local-dir models/{name.split('/')[-1]}`), copy the folder here and "
                    f"set translate.marian.models.{direction} in config.yaml to it."
                ) from err
            except ImportError as err:
                raise TranslationEngineError(
                    f"the Marian tokenizer needs sentencepiece: pip install sentencepiece ({err})"
                ) from err
            model.eval()
            if quantize_int8:
                model = torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
            self.tokenizers[direction], self.models[direction] = tokenizer, model.to(device)
            versions.append(f"{direction}={name}@{_model_fingerprint(name, model)}")
        self.version = (
            f"{'; '.join(versions)}; beams={num_beams}; max_length={max_length}; "
            f"int8={bool(quantize_int8)}; {self.method}"
        )

    def translate(self, sentences: list[str], direction: str) -> list[str]:
        check_direction(direction)
        if not sentences:
            return []
        tokenizer, model = self.tokenizers[direction], self.models[direction]
        translations: list[str] = [""] * len(sentences)
        # A batch holds sentences of one token length only, so no sentence is ever padded and its
        # translation cannot depend on the batch it lands in (padding changes the encoder's sums).
        ids = tokenizer(sentences, truncation=True, max_length=self.max_length)["input_ids"]
        for batch in _same_length_batches([len(i) for i in ids], self.batch_size):
            input_ids = self.torch.tensor([ids[i] for i in batch], device=self.device)
            with self.torch.inference_mode():
                generated = model.generate(
                    input_ids=input_ids,
                    attention_mask=self.torch.ones_like(input_ids),
                    num_beams=self.num_beams,
                    do_sample=False,
                    max_new_tokens=self.max_length,
                    decoder_start_token_id=model.config.pad_token_id,
                )
            for i, text in zip(batch, tokenizer.batch_decode(generated, skip_special_tokens=True)):
                translations[i] = text.strip()
        return translations


def _same_length_batches(lengths: list[int], batch_size: int) -> list[list[int]]:
    """Indices in batches of at most batch_size whose token sequences are equally long."""
    by_length: dict[int, list[int]] = {}
    for index in sorted(range(len(lengths)), key=lambda i: lengths[i]):
        by_length.setdefault(lengths[index], []).append(index)
    return [
        group[start : start + batch_size] for group in by_length.values() for start in range(0, len(group), batch_size)
    ]


def _model_fingerprint(name: str, model) -> str:
    """The hub commit when loaded from the hub, else a hash of the local folder's files."""
    commit = getattr(model.config, "_commit_hash", None)
    if commit:
        return commit
    folder = Path(name)
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.iterdir() if p.is_file()):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
