# Types of the Rust extension `subword._core` (src/bindings/). The extension converts and
# does nothing else; the public API is the Python package around it. Options dicts are
# parsed in one place, src/bindings/options.rs: keys as in `subword.config`.

from collections.abc import Callable, Collection, Iterable
from typing import Any

import numpy as np
import numpy.typing as npt

__version__: str
_build: str
COMPRESS_DEFAULT_BLOCK_SIZE: int
COMPRESS_MAX_BLOCK_SIZE: int

Options = dict[str, Any]

class Normalizer:
    def __init__(self, normalization: str | None = None, lowercase: bool = False) -> None: ...
    def normalize(self, text: str) -> str: ...
    def normalize_batch(self, texts: list[str]) -> list[str]: ...

class WordCounter:
    """A streaming word table (options: normalization, lowercase, pre_tokenizer)."""

    def __init__(self, options: Options | None = None) -> None: ...
    def add_texts(self, texts: list[str]) -> None: ...
    def add_file(self, path: str, errors: str = "strict", show_progress: bool = False) -> None: ...
    def add_words(self, words: list[str]) -> None: ...
    def add_word(self, word: str, count: int) -> None: ...
    def add_counts(self, items: list[tuple[str, int]]) -> None: ...
    def absorb(self, other: WordCounter) -> None: ...
    def total(self) -> int: ...
    def __len__(self) -> int: ...
    def words(self) -> list[tuple[str, int]]: ...

class Specials:
    """A set of special tokens, matched in text with one Aho-Corasick pass."""

    def __init__(self, tokens: list[tuple[str, int]]) -> None: ...
    def tokens(self) -> list[str]: ...
    def refuse_in(self, text: str) -> None: ...

class TokenizerBase:
    """The base of `subword.Tokenizer`: its common encode calls go straight to the core."""

    def __init__(self, *args: Any, **kwargs: Any) -> None: ...
    def _direct(
        self, model: Model, matcher: Specials | None, forbidden: Specials | None
    ) -> None: ...
    def encode(
        self,
        text: str,
        *,
        allowed_special: str | Collection[str] | None = None,
        disallowed_special: str | Collection[str] | None = None,
        dropout: float | None = None,
        seed: int | None = None,
        max_tokens: int | None = None,
    ) -> list[int]: ...
    def encode_ordinary(self, text: str) -> list[int]: ...
    def encode_to_numpy(
        self,
        text: str,
        *,
        allowed_special: str | Collection[str] | None = None,
        disallowed_special: str | Collection[str] | None = None,
    ) -> npt.NDArray[np.uint32]: ...
    def decode(self, ids: Iterable[int], errors: str = "replace", *, join: bool = True) -> str: ...
    def decode_batch(
        self,
        batch: Iterable[Iterable[int]],
        errors: str = "replace",
        *,
        join: bool = True,
        offsets: Any = None,
    ) -> list[str]: ...

class Model:
    """A built tokenizer: vocabulary, merges, special tokens and options (kind,
    end_of_word, end_of_word_symbol, normalization, lowercase, pre_tokenizer, merge_rule,
    ignore_merges, unk_id, algorithm, continuation_prefix, specials_in_pattern)."""

    def __init__(
        self,
        vocab: list[tuple[str, int]],
        merges: list[tuple[str, str]],
        specials: list[tuple[str, int]],
        options: Options | None = None,
    ) -> None: ...
    def is_sentencepiece(self) -> bool: ...
    def leading_space(self) -> str: ...
    @staticmethod
    def from_sentencepiece(data: bytes, path: str) -> Model:
        """A SentencePiece BPE model from its `.model` file's bytes."""
        ...
    @staticmethod
    def from_tiktoken(
        data: bytes, path: str, specials: list[tuple[str, int]], options: Options | None = None
    ) -> Model:
        """A tiktoken model from its file's bytes (`path` names it in errors)."""
    def encode(
        self,
        text: str,
        specials: Specials | None = None,
        forbidden: Specials | None = None,
        dropout: float | None = None,
        seed: int = 0,
    ) -> list[int]: ...
    def encode_to_numpy(
        self, text: str, specials: Specials | None = None, forbidden: Specials | None = None
    ) -> npt.NDArray[np.uint32]: ...
    def encode_batch(
        self,
        texts: Iterable[str],
        specials: Specials | None = None,
        forbidden: Specials | None = None,
        num_threads: int | None = None,
    ) -> list[list[int]]: ...
    def encode_batch_to_numpy(
        self,
        texts: Iterable[str],
        specials: Specials | None = None,
        forbidden: Specials | None = None,
        num_threads: int | None = None,
    ) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint64]]: ...
    def encode_pieces(self, pieces: list[str]) -> list[list[int]]: ...
    def decode_bytes(self, ids: Iterable[int]) -> bytes: ...
    def decode_runs(self, ids: Iterable[int]) -> tuple[bytes, list[int]]: ...
    def vocab_size(self) -> int: ...
    def token_to_id(self, token: object) -> int | None: ...
    def token_of(self, id: int) -> str | None: ...
    def id_to_token(self) -> list[tuple[int, str]]: ...

def read_sentencepiece(
    data: bytes, path: str
) -> tuple[list[tuple[str, float, str]], dict[str, Any]]:
    """A SentencePiece `.model` file's pieces (text, score, type) by id and its settings."""
    ...

def read_tiktoken_ranks(
    data: bytes, path: str, specials: list[tuple[str, int]]
) -> list[tuple[bytes, int]]:
    """A `.tiktoken` file's (token bytes, rank) pairs in file order; a malformed line, a
    duplicate, a missing byte or a special token on a rank's id is a FormatError."""

# --- everyday calls on a Model (src/bindings/calls.rs) ------------------------------------
def encode_with_offsets(
    model: Model, text: str, specials: Specials | None = None, forbidden: Specials | None = None
) -> tuple[list[int], list[tuple[int, int]]]:
    """`Model.encode`'s ids and each token's (start, end) character span of `text`."""

def count(
    model: Model, text: str, specials: Specials | None = None, forbidden: Specials | None = None
) -> int: ...
def count_batch(
    model: Model,
    texts: Iterable[str],
    specials: Specials | None = None,
    forbidden: Specials | None = None,
    num_threads: int | None = None,
) -> list[int]: ...
def token_part(model: Model, id: int) -> tuple[bytes, bool]:
    """One id's bytes (end-of-word space kept) and whether it starts a word (greedy)."""

def prepare_numpy() -> None:
    """Readies NumPy's C API if `numpy` is already imported (else nothing), so that the
    first array call does not pay for it."""

def train(
    counter: WordCounter, options: Options | None = None
) -> tuple[list[str], list[tuple[str, str]]]:
    """Learns merges (options: kind, end_of_word, end_of_word_symbol, num_merges,
    vocab_size, min_frequency, tie_break, reserved, show_progress); returns the alphabet
    and the merges."""

def recover_merge_cuts(tokens: list[tuple[bytes, int]]) -> list[int]: ...
def compress(
    data: bytes,
    block_size: int = ...,
    on_step: Callable[[int, int, int, int, int, bytes], object] | None = None,
) -> bytes: ...
def decompress(data: bytes) -> bytes: ...

# --- subword-nmt ---------------------------------------------------------------------------
class TextBlocks:
    def __init__(self, name: str) -> None: ...
    def text(self, block: bytes) -> str | None: ...

def count_nmt_block(counter: WordCounter, reader: TextBlocks, block: bytes) -> None: ...
def learn_codes(
    counter: WordCounter,
    *,
    num_merges: int,
    min_frequency: int,
    textbook: bool,
    show_progress: bool,
) -> list[tuple[str, str, int]]: ...

class Segmenter:
    def __init__(
        self,
        merges: list[tuple[str, str]],
        *,
        version: str,
        separator: str,
        vocabulary: list[str] | None,
        glossaries: bool,
        seed: int,
    ) -> None: ...
    def merges_one_at_a_time(self) -> bool: ...
    def process_text(self, text: str, dropout: float = 0.0) -> str: ...
    def segment_block(self, reader: TextBlocks, block: bytes, dropout: float = 0.0) -> bytes: ...
    def process_line(self, line: str, dropout: float = 0.0) -> str: ...
    def segment_tokens(self, words: list[str], dropout: float = 0.0) -> list[str]: ...
    def unanalysed_words(self, text: str, as_lines: bool) -> list[str]: ...
    def add_isolations(self, words: list[tuple[str, list[tuple[str, bool]] | None]]) -> None: ...

# Hooks for the tests only (`subword._core._testing`).
class _TestingModule:
    FAST_PATTERNS: dict[str, str]
    def pretokenize(self, pre_tokenizer: str, text: str, use_fast: bool = True) -> list[str]: ...
    def pretokenize_first_difference(
        self, pre_tokenizer: str, texts: list[str]
    ) -> tuple[int, int] | None: ...
    def lists_written_directly(self) -> bool: ...

_testing: _TestingModule
