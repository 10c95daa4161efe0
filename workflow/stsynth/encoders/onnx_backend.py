"""An ONNX Runtime backend for encoding (config ``encoder.backend``), without optimum.

sentence-transformers' own ``onnx`` backend needs optimum-onnx, which cannot be installed beside the
pinned transformers 5; ``onnxruntime`` and ``onnx`` can. So the encoder's transformer (the first
module of a sentence-transformers model) is exported once per model with ``torch.onnx.export``
(rule ``encoder_onnx``, keyed by the model's bytes like every job that opens it), and at encoding time
an ``onnxruntime.InferenceSession`` stands in for that module's transformers model
(:class:`OnnxTransformerModel`): tokenising, pooling, normalisation, prompts and the token states the
token-level F1 reads stay sentence-transformers' own. Fine-tuning stays torch.

Backends (stsynth.encoders.encoder.BACKENDS): ``torch`` (the default), ``onnx`` (float32; ORT's BERT fusions from
``onnxruntime.transformers.optimizer`` where the model is a BERT; checked at export against torch on
probe sentences, :data:`FP32_TOLERANCE`) and ``onnx-int8`` (dynamic int8 weights,
``onnxruntime.quantization.quantize_dynamic`` per channel, 7-bit range: 1.5-1.7x faster, approximate by
design).

Why ``torch`` stays the default (measured, docs/benchmarks.md, "Encoding"): float32 ONNX was no
faster on this project's 2-core CPU at one thread per job (0.98-1.11x), and ORT picks its kernels by
CPU with no cap like the one that makes torch's floats the same on every x86-64 machine
(stsynth.core.threads), so a default ORT backend would lose that guarantee.
"""

from __future__ import annotations

import copy
import logging
import os
import tempfile
from pathlib import Path

import numpy as np
import torch

log = logging.getLogger(__name__)

FP32_TOLERANCE = 1e-4  # largest |difference| of a token state, float32 ONNX against torch, on the probes
PROBES = ["A man is playing a guitar.", "Two dogs run in the snow while a child watches them.", "ok"]
OPTIMIZED_TYPES = ("bert",)  # transformers model types whose fusions ORT's optimizer knows as "bert"
INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def transformer_module(model):
    """The model's first module, if it is a transformer ONNX can stand in for; a clear error otherwise
    (a word-embedding folder such as the paragram exports has no transformer)."""
    from sentence_transformers.base.modules.transformer import Transformer

    first = model[0]
    if not isinstance(first, Transformer):
        raise ValueError(
            f"encoder.backend onnx: the model's first module is {type(first).__name__}, not a "
            f"transformer; use encoder.backend torch for it"
        )
    return first


def export(model, path: str | Path, int8: bool = False) -> None:
    """Write the model's transformer as ONNX to ``path``: float32 (BERT fusions where they apply, checked
    against torch within :data:`FP32_TOLERANCE`) or, with ``int8``, dynamically quantised weights."""
    transformer = transformer_module(model)
    # eager attention: the exported graph then has the pattern ORT's attention fusion recognises
    source = copy.deepcopy(transformer.model).float().eval()
    source.set_attn_implementation("eager")
    probe = transformer.preprocess(PROBES)
    names = [name for name in INPUTS if name in probe]

    class Positional(torch.nn.Module):  # torch.onnx.export passes inputs by position
        def __init__(self):
            super().__init__()
            self.model = source

        def forward(self, *inputs):
            return self.model(**dict(zip(names, inputs)), return_dict=True).last_hidden_state

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=path.parent) as scratch:
        plain = Path(scratch) / "plain.onnx"
        axes = {name: {0: "batch", 1: "tokens"} for name in [*names, "last_hidden_state"]}
        with torch.no_grad():
            torch.onnx.export(
                Positional().eval(),
                tuple(probe[name] for name in names),
                str(plain),
                input_names=names,
                output_names=["last_hidden_state"],
                dynamic_axes=axes,
                opset_version=17,
                dynamo=False,
            )
        if int8:
            import onnx
            from onnxruntime.quantization import QuantType, quantize_dynamic

            # per channel (measured against per tensor); reduce_range: 7-bit weights, as
            # ORT advises on CPUs without VNNI, where u8 x s8 products saturate (all-mpnet-base-v2's int8
            # cosines kept a correlation of 0.008 with torch's without it, 0.96 with it, on this AVX2 CPU)
            quantize_dynamic(
                str(plain),
                str(path),
                weight_type=QuantType.QInt8,
                per_channel=True,
                reduce_range=True,
                extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
            )
        elif source.config.model_type in OPTIMIZED_TYPES:
            from onnxruntime.transformers.optimizer import optimize_model

            optimized = optimize_model(
                str(plain),
                model_type="bert",
                num_heads=source.config.num_attention_heads,
                hidden_size=source.config.hidden_size,
                opt_level=1,
            )
            log.info("ORT fusions: %s", {k: v for k, v in optimized.get_fused_operator_statistics().items() if v})
            optimized.save_model_to_file(str(path))
        else:
            os.replace(plain, path)
    with torch.no_grad():
        expected = source(**{name: probe[name] for name in names}, return_dict=True).last_hidden_state.numpy()
    got = OnnxTransformerModel(path, transformer.model.config, threads=1)(**{name: probe[name] for name in names})
    difference = float(np.abs(got["last_hidden_state"].numpy() - expected).max())
    log.info(
        "%s: %s ONNX, largest token-state difference to torch on %d probe sentences %.2e",
        path,
        "int8" if int8 else "float32",
        len(PROBES),
        difference,
    )
    if not int8 and difference > FP32_TOLERANCE:
        raise RuntimeError(
            f"{path}: the float32 ONNX graph differs from torch by {difference:.2e} "
            f"(> {FP32_TOLERANCE}); use encoder.backend torch for this model"
        )


class OnnxTransformerModel(torch.nn.Module):
    """Stands in for a sentence-transformers Transformer module's transformers model: runs the exported
    graph (:func:`export`) through an ORT session with ``threads`` threads, and answers as the model would
    (``last_hidden_state``). It holds no torch weights: the session has them."""

    def __init__(self, path: str | Path, config, threads: int = 1):
        import onnxruntime

        super().__init__()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads, options.inter_op_num_threads = threads, 1
        self.session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.inputs = [i.name for i in self.session.get_inputs()]
        self.config = config  # sentence-transformers reads the model's config (model type, ...)

    def forward(self, input_ids, attention_mask, token_type_ids=None, **_):
        given = {
            "input_ids": input_ids,
            "attention_mask": attention_mask,
            "token_type_ids": token_type_ids if token_type_ids is not None else torch.zeros_like(input_ids),
        }
        feed = {name: given[name].cpu().numpy() for name in self.inputs}
        # back where the pooling runs (the session runs on the CPU whatever config `device` says)
        return {"last_hidden_state": torch.from_numpy(self.session.run(None, feed)[0]).to(input_ids.device)}


def use_onnx(model, path: str | Path, threads: int = 1):
    """``model`` (a SentenceTransformer) with its transformer's forward pass run by ORT from ``path``."""
    transformer = transformer_module(model)
    transformer.model = OnnxTransformerModel(path, transformer.model.config, threads)
    transformer.model_forward_params = set(INPUTS)
    log.info("encoding through ONNX Runtime: %s (%d thread%s)", path, threads, "" if threads == 1 else "s")
    return model
