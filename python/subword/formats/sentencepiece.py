"""SentencePiece BPE `.model` files (Llama 2, Mistral 7B, TinyLlama, Phi-3, Gemma): the
protobuf `ModelProto` is read in the core (`src/formats/sentencepiece.rs`); here it becomes
a `ModelSpec`, and a `tokenizer.json` for HF `tokenizers` (BPE with byte fallback)."""

from __future__ import annotations

import base64
import os
from typing import Any

from subword.config import ModelSpec, SentencePieceSettings, TokenizerConfig
from subword.errors import InvalidInputError

SPACE_SYMBOL = "\u2581"

PathLike = str | os.PathLike[str]


def is_sentencepiece(head: bytes) -> bool:
    """Whether a file starting with `head` looks like a `ModelProto`: its first field is a
    piece (field 1, length-delimited), whose own first field is the piece's text."""
    return len(head) >= 4 and head[0] == 0x0A and 0x0A in head[1:8]


def read_sentencepiece(data: bytes, path: PathLike) -> ModelSpec:
    """The spec of a SentencePiece BPE model file's bytes."""
    from subword import _core

    pieces, settings = _core.read_sentencepiece(data, os.fspath(path))
    return spec_from_pieces(pieces, settings, data)


def spec_from_pieces(
    pieces: list[tuple[str, float, str]], settings: dict[str, Any], data: bytes
) -> ModelSpec:
    """Control pieces (`<s>`, `</s>`, `[INST]`, ...) are the special tokens; every other
    piece is in the vocabulary. The merges are every way to build an entry from two
    entries, the entry with the highest score first: what a merge list can say of
    SentencePiece's rule (merge the pair whose concatenation scores highest)."""
    sp = SentencePieceSettings(
        pieces=tuple(pieces),
        byte_fallback=bool(settings["byte_fallback"]),
        unk_surface=str(settings["unk_surface"]),
        normalizer_name=str(settings["name"]),
        precompiled_charsmap=bytes(settings["precompiled_charsmap"]),
        add_dummy_prefix=bool(settings["add_dummy_prefix"]),
        remove_extra_whitespaces=bool(settings["remove_extra_whitespaces"]),
        escape_whitespaces=bool(settings["escape_whitespaces"]),
        model_file=data,
    )
    vocab = {text: i for i, (text, _, kind) in enumerate(pieces) if kind != "control"}
    specials = {text: i for i, (text, _, kind) in enumerate(pieces) if kind == "control"}
    unk = next(text for text, _, kind in pieces if kind == "unknown")
    config = TokenizerConfig(
        kind="classic",
        end_of_word="none",
        unk_token=unk,
        pre_tokenizer="whitespace",
    )
    return ModelSpec(config, vocab, derive_merges(pieces), specials, sentencepiece=sp)


def derive_merges(pieces: list[tuple[str, float, str]]) -> list[tuple[str, str]]:
    """Each entry that merges can build, split into two such entries in every possible way:
    entries by score (highest first, then by id), the splits of one entry by the ids of
    their parts."""
    mergeable = {
        text: i for i, (text, _, kind) in enumerate(pieces) if kind in ("normal", "unused")
    }
    order = sorted(mergeable.items(), key=lambda item: (-pieces[item[1]][1], item[1]))
    merges: list[tuple[str, str]] = []
    for text, _ in order:
        splits = [
            (text[:i], text[i:])
            for i in range(1, len(text))
            if text[:i] in mergeable and text[i:] in mergeable
        ]
        splits.sort(key=lambda pair: (mergeable[pair[0]], mergeable[pair[1]]))
        merges.extend(splits)
    return merges


def to_hf_json(spec: ModelSpec) -> dict[str, Any]:
    """A `tokenizer.json` for HF `tokenizers` with SentencePiece's behaviour: the normalizer
    (the precompiled map, the whitespace rules, `▁` for spaces), no pre-tokenizer (merges
    may join across spaces, as SentencePiece's `▁▁` entries do), BPE over the derived merges
    with byte fallback, and a decoder that undoes the normalizer's first space."""
    sp = spec.sentencepiece
    if sp is None:
        raise InvalidInputError("not a SentencePiece model")
    unused = [text for text, _, kind in sp.pieces if kind == "unused"]
    if unused:
        raise InvalidInputError(
            f"tokenizer.json cannot express unused SentencePiece entries ({len(unused)}, e.g. "
            f"{unused[0]!r}: merges build them and SentencePiece then splits them again); "
            "keep the .model file"
        )
    normalizers: list[dict[str, Any]] = []
    if sp.precompiled_charsmap:
        normalizers.append(
            {
                "type": "Precompiled",
                "precompiled_charsmap": base64.b64encode(sp.precompiled_charsmap).decode(),
            }
        )
    if sp.remove_extra_whitespaces:
        normalizers += [
            _replace_regex(" {2,}", " "),
            # \A and \z: Oniguruma's ^ and $ also match at line breaks inside the text.
            _replace_regex("\\A +", ""),
            _replace_regex(" +\\z", ""),
        ]
    if sp.add_dummy_prefix:
        normalizers.append({"type": "Prepend", "prepend": SPACE_SYMBOL})
    if sp.escape_whitespaces:
        normalizers.append({"type": "Replace", "pattern": {"String": " "}, "content": SPACE_SYMBOL})
    vocab = {text: i for i, (text, _, _) in enumerate(sp.pieces)}
    unk = next(text for text, _, kind in sp.pieces if kind == "unknown")
    added = [
        {
            "id": i,
            "content": text,
            "single_word": False,
            "lstrip": False,
            "rstrip": False,
            "normalized": False,
            "special": kind == "control",
        }
        for i, (text, _, kind) in enumerate(sp.pieces)
        if kind in ("control", "user_defined", "unknown")
    ]
    decoders: list[dict[str, Any]] = [
        {"type": "Replace", "pattern": {"String": SPACE_SYMBOL}, "content": " "},
    ]
    if sp.byte_fallback:
        decoders.append({"type": "ByteFallback"})
    decoders.append({"type": "Fuse"})
    if sp.add_dummy_prefix or sp.remove_extra_whitespaces:
        decoders.append({"type": "Strip", "content": " ", "start": 1, "stop": 0})
    # After the strip: the space of ` ⁇ ` is not the normalizer's.
    decoders.append({"type": "Replace", "pattern": {"String": unk}, "content": sp.unk_surface})
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": {"type": "Sequence", "normalizers": normalizers},
        "pre_tokenizer": None,
        "post_processor": None,
        "decoder": {"type": "Sequence", "decoders": decoders},
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": unk,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": not sp.byte_fallback,
            "byte_fallback": sp.byte_fallback,
            "ignore_merges": False,
            "vocab": vocab,
            "merges": [[a, b] for a, b in spec.merges],
        },
    }


def _replace_regex(pattern: str, content: str) -> dict[str, Any]:
    return {"type": "Replace", "pattern": {"Regex": pattern}, "content": content}
