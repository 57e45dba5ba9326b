"""subword: Byte Pair Encoding tokenizers with a Rust core.

import subword
tok = subword.train(["corpus.txt"], vocab_size=8000)
ids = tok.encode("some text"); tok.decode(ids)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from subword._core import __version__
from subword._lazy import lazy_exports

if TYPE_CHECKING:
    from subword.clip import ClipTokenizer, load_clip
    from subword.compression import compress, decompress
    from subword.config import ModelSpec, TokenizerConfig, TrainConfig
    from subword.loading import (
        load,
        load_gpt2,
        load_hf,
        load_llama3,
        load_llama4,
        load_sentencepiece,
        load_tekken,
        load_tiktoken,
    )
    from subword.nmt.apply import load_codes

    # scale-out: word counts
    from subword.scale.counts import WordCounts, count, load_counts
    from subword.tokenizer import Tokenizer
    from subword.training import train

# Each public name and its module, imported on first use: the command line (and any
# program that needs one part) does not pay for loading all of them.
_EXPORTS = {
    "ClipTokenizer": "subword.clip",
    "load_clip": "subword.clip",
    "compress": "subword.compression",
    "decompress": "subword.compression",
    "ModelSpec": "subword.config",
    "TokenizerConfig": "subword.config",
    "TrainConfig": "subword.config",
    "load_codes": "subword.nmt.apply",
    "load": "subword.loading",
    "load_gpt2": "subword.loading",
    "load_hf": "subword.loading",
    "load_llama3": "subword.loading",
    "load_llama4": "subword.loading",
    "load_sentencepiece": "subword.loading",
    "load_tekken": "subword.loading",
    "load_tiktoken": "subword.loading",
    "Tokenizer": "subword.tokenizer",
    "train": "subword.training",
    # scale-out: word counts
    "WordCounts": "subword.scale.counts",
    "count": "subword.scale.counts",
    "load_counts": "subword.scale.counts",
}

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
    "load_llama3",
    "load_llama4",
    "load_sentencepiece",
    "load_tekken",
    "load_tiktoken",
    "train",
    # scale-out: word counts
    "WordCounts",
    "count",
    "load_counts",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
