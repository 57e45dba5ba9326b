"""subword: Byte Pair Encoding tokenizers with a Rust core.

import subword
tok = subword.train(["corpus.txt"], vocab_size=8000)
ids = tok.encode("some text"); tok.decode(ids)
"""

from subword._core import __version__
from subword.config import ModelSpec, TokenizerConfig, TrainConfig
from subword.formats.codes import load_codes
from subword.loading import load
from subword.tokenizer import Tokenizer
from subword.training import train

__all__ = [
    "ModelSpec",
    "Tokenizer",
    "TokenizerConfig",
    "TrainConfig",
    "__version__",
    "load",
    "load_codes",
    "train",
]
