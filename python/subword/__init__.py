"""subword: Byte Pair Encoding tokenizers with a Rust core."""

from subword._core import __version__

__all__ = ["__version__"]
