"""Stage 2, pre-tokenize: how text is cut into the pieces ("words") BPE works inside.

Most pre-tokenizers run in the Rust core (`src/pretokenize/`): whitespace splitting and
regexes, with the named regexes (gpt2, cl100k, o200k, clip, ...) in `patterns`. This package
also holds pre-tokenizers that run in Python (Korean morpheme analysis, `korean`), for what
the core's regex and whitespace splitting cannot do. A pre-tokenizer named here is used by
`subword.train` and `Tokenizer.encode` in place of the core's: Python splits each text into
pieces, the core encodes each piece.

A module registers a factory with `register(name, factory)`; the factory receives the
`TokenizerConfig` and returns an object with `pieces(text) -> list[str]` and, optionally,
`join(pieces: list[str]) -> str` to rebuild text from decoded pieces."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Protocol

from subword.config import TokenizerConfig


class PythonPreTokenizer(Protocol):
    def pieces(self, text: str) -> list[str]: ...


Factory = Callable[[TokenizerConfig], PythonPreTokenizer]

_FACTORIES: dict[str, Factory] = {}
# Names whose module registers them on import (imported only when asked for).
_MODULES = {"korean": "subword.pre_tokenizers.korean"}


def register(name: str, factory: Factory) -> None:
    _FACTORIES[name] = factory


def get(config: TokenizerConfig) -> PythonPreTokenizer | None:
    """The Python pre-tokenizer for `config`, or None if the core does its own."""
    name = config.pre_tokenizer
    if name not in _FACTORIES and name in _MODULES:
        importlib.import_module(_MODULES[name])
    factory = _FACTORIES.get(name)
    return factory(config) if factory else None
