"""What every translation backend is (:class:`Translator`: a ``name``, a ``version`` naming everything that
changes its output, and ``translate(sentences, direction)``), the two directions, and the error a missing,
misconfigured or misbehaving engine raises. The backends: stsynth.translation.apertium and
stsynth.translation.marian; stsynth.translation.translate picks one and caches what it translates.
"""

from __future__ import annotations

from typing import Protocol

DIRECTIONS = ("en-es", "es-en")


class TranslationEngineError(RuntimeError):
    """A translation engine or model that is missing, misconfigured or misbehaving."""


class Translator(Protocol):
    name: str
    version: str

    def translate(self, sentences: list[str], direction: str) -> list[str]: ...


def check_direction(direction: str) -> None:
    if direction not in DIRECTIONS:
        raise ValueError(f"translation direction {direction!r} is not one of {DIRECTIONS}")
