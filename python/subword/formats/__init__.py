"""Model files in and out: each reader returns a `ModelSpec`, each writer takes one.

- tiktoken `.tiktoken` ranks           read_tiktoken / write_tiktoken
- CLIP `bpe_simple_vocab_16e6.txt.gz`  read_clip (and clean_text, CLIP's text cleaning)
- GPT-2 `vocab.json` + `merges.txt`    read_gpt2 / write_gpt2
- HF `tokenizer.json` (BPE)            read_hf / write_hf
`detect_format` tells them apart (and our own "native" JSON, read elsewhere).

Conventions of the specs they give: byte-level tokens are in bytes-to-unicode form; the vocab
holds the special tokens too (as GPT-2's vocab.json and CLIP's vocabulary do), with the same
ids as `special_tokens`; merges are in rank order.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from subword._lazy import lazy_exports
from subword.errors import FormatError

if TYPE_CHECKING:
    from subword.formats._files import PathLike
    from subword.formats.bytes_unicode import (
        BYTE_TO_UNICODE,
        UNICODE_TO_BYTE,
        bytes_to_token,
        token_to_bytes,
    )
    from subword.formats.clip import clean_text, find_clip_vocab, read_clip
    from subword.formats.gpt2 import read_gpt2, write_gpt2
    from subword.formats.hf import read_hf, write_hf
    from subword.formats.tiktoken import (
        default_special_tokens,
        find_tiktoken_file,
        read_tiktoken,
        write_tiktoken,
    )

# Each reader and writer and its module, imported on first use. (subword-nmt's codes and
# vocabulary files are read and written by `subword.nmt.codes`.)
_EXPORTS = {
    "BYTE_TO_UNICODE": "bytes_unicode",
    "UNICODE_TO_BYTE": "bytes_unicode",
    "bytes_to_token": "bytes_unicode",
    "token_to_bytes": "bytes_unicode",
    "clean_text": "clip",
    "find_clip_vocab": "clip",
    "read_clip": "clip",
    "read_gpt2": "gpt2",
    "write_gpt2": "gpt2",
    "read_hf": "hf",
    "write_hf": "hf",
    "default_special_tokens": "tiktoken",
    "find_tiktoken_file": "tiktoken",
    "read_tiktoken": "tiktoken",
    "write_tiktoken": "tiktoken",
}

__all__ = [
    "BYTE_TO_UNICODE",
    "UNICODE_TO_BYTE",
    "bytes_to_token",
    "clean_text",
    "default_special_tokens",
    "detect_format",
    "find_clip_vocab",
    "find_tiktoken_file",
    "read_clip",
    "read_gpt2",
    "read_hf",
    "read_tiktoken",
    "token_to_bytes",
    "write_gpt2",
    "write_hf",
    "write_tiktoken",
]


__getattr__, __dir__ = lazy_exports(
    __name__, {name: f"subword.formats.{module}" for name, module in _EXPORTS.items()}
)


_TIKTOKEN_LINE = re.compile(rb"[A-Za-z0-9+/]+=*\s+\d+\s*")


def detect_format(path: PathLike) -> str:
    """Which format a model file is in: "native", "hf", "tiktoken", "sentencepiece",
    "tekken", "clip" or "gpt2".

    A folder holding tokenizer.json is "hf"; one holding vocab.json and merges.txt is "gpt2".
    Raises FormatError when the file is none of them.
    """
    path = Path(path)
    if path.is_dir():
        return _detect_folder(path)
    with path.open("rb") as f:
        head = f.read(4096)
    if head.startswith(b"\x1f\x8b"):
        return _detect_gzip(path)
    if head.lstrip().startswith(b"{"):
        return _detect_json(path)
    first_line = head.split(b"\n", 1)[0]
    if path.suffix == ".tiktoken" or _TIKTOKEN_LINE.fullmatch(first_line):
        return "tiktoken"
    from subword.formats.sentencepiece import is_sentencepiece

    if is_sentencepiece(head):
        return "sentencepiece"
    if first_line.startswith(b"#version") and (path.parent / "vocab.json").is_file():
        return "gpt2"
    raise FormatError(f"{path}: cannot tell the model format")


def _detect_folder(path: Path) -> str:
    if (path / "tokenizer.json").is_file():
        return "hf"
    if (path / "vocab.json").is_file() and (path / "merges.txt").is_file():
        return "gpt2"
    raise FormatError(f"{path}: folder has no tokenizer.json, nor vocab.json with merges.txt")


def _detect_gzip(path: Path) -> str:
    import gzip

    try:
        with gzip.open(path, "rb") as f:
            first_line = f.readline(4096)
    except (OSError, EOFError) as e:
        raise FormatError(f"{path}: unreadable gzip data ({e})") from None
    # CLIP's header line reads '"bpe_simple_vocab_16e6.txt#version: 0.2'.
    if b"#version" in first_line:
        return "clip"
    raise FormatError(f"{path}: a gzip file without a '#version' header line is no CLIP vocab")


def _detect_json(path: Path) -> str:
    from subword.files import read_json

    data = read_json(path)
    if not isinstance(data, dict):
        raise FormatError(f"{path}: a JSON model file must hold an object")
    if data.get("format") == "subword":
        return "native"
    if "model" in data:
        return "hf"
    if isinstance(data.get("config"), dict) and "vocab" in data:
        return "tekken"
    if data and all(isinstance(v, int) for v in data.values()):
        if (path.parent / "merges.txt").is_file():
            return "gpt2"
        raise FormatError(f"{path}: a token -> id vocab without a merges.txt beside it")
    raise FormatError(f"{path}: JSON that is neither a subword, HF, Tekken nor GPT-2 model")
