"""subword: Byte Pair Encoding tokenizers with a Rust core.

import subword
tok = subword.train(["corpus.txt"], vocab_size=8000)
ids = tok.encode("some text"); tok.decode(ids)
"""

from subword._core import __version__
from subword.clip import ClipTokenizer, load_clip
from subword.compression import compress, decompress
from subword.config import ModelSpec, TokenizerConfig, TrainConfig
from subword.formats.codes import load_codes
from subword.loading import load, load_gpt2, load_hf, load_tiktoken
from subword.tokenizer import Tokenizer
from subword.training import train

__all__ = [
    "ClipTokenizer",
    "ModelSpec",
    "Tokenizer",
    "TokenizerConfig",
    "TrainConfig",
    "__version__",
    "compress",
    "decompress",
    "load",
    "load_clip",
    "load_codes",
    "load_gpt2",
    "load_hf",
    "load_tiktoken",
    "train",
]
