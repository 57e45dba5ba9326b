"""subword-nmt 0.3.8's `learn-bpe`, `apply-bpe` and `get-vocab` as library functions, with
output byte-identical to subword-nmt's (codes files, segmented text, vocabulary files).

    from subword import nmt
    codes = nmt.learn_codes("train.txt", "train.codes", symbols=10000)
    bpe = nmt.load_codes("train.codes")          # also `subword.load_codes`
    bpe.segment("the lowest newer\\n")           # 'the low@@ est new@@ er\\n'
    nmt.apply_codes("train.codes", "test.txt", "test.bpe")
    vocab = nmt.get_vocab("test.bpe", "test.vocab")

Modules: `codes` (codes and vocabulary files), `learn` (learn_codes, get_vocab), `apply`
(load_codes, Segmenter, apply_codes). The counting, learning and segmenting run in the
Rust core (`src/nmt/`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from subword._lazy import lazy_exports

if TYPE_CHECKING:
    from subword.nmt.apply import Segmenter, apply_codes, load_codes
    from subword.nmt.codes import Codes, format_codes, read_codes, read_vocabulary, write_codes
    from subword.nmt.learn import get_vocab, learn_codes

# Each name and its module, imported on first use (a command loads only what it runs).
_EXPORTS = {
    "Segmenter": "subword.nmt.apply",
    "apply_codes": "subword.nmt.apply",
    "load_codes": "subword.nmt.apply",
    "Codes": "subword.nmt.codes",
    "format_codes": "subword.nmt.codes",
    "read_codes": "subword.nmt.codes",
    "read_vocabulary": "subword.nmt.codes",
    "write_codes": "subword.nmt.codes",
    "get_vocab": "subword.nmt.learn",
    "learn_codes": "subword.nmt.learn",
}

__all__ = [
    "Codes",
    "Segmenter",
    "apply_codes",
    "format_codes",
    "get_vocab",
    "learn_codes",
    "load_codes",
    "read_codes",
    "read_vocabulary",
    "write_codes",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
