"""`subword.load`: read a model file into a `Tokenizer`."""

from __future__ import annotations

import os

from subword.formats.native import read_native
from subword.tokenizer import Tokenizer


def load(path: str | os.PathLike[str]) -> Tokenizer:
    """Loads a model saved by `Tokenizer.save`."""
    spec, training = read_native(path)
    return Tokenizer(spec, training=training)
