"""GPT-2's two files: `vocab.json` (token -> id) and `merges.txt` (one "a b" merge a line, in
rank order, after an optional `#version` header). Tokens are byte-level strings; words carry
their leading space (`Ġthe`), so there is no end-of-word symbol."""

from __future__ import annotations

from pathlib import Path

from subword.config import ModelSpec, TokenizerConfig
from subword.errors import FormatError, InvalidInputError
from subword.files import write_all_or_none
from subword.formats._files import (
    PathLike,
    add_special_tokens,
    check_vocab,
    line_error,
    read_json,
)
from subword.formats.bytes_unicode import token_to_bytes
from subword.pre_tokenizers.patterns import pattern_name

MERGES_HEADER = "#version: 0.2"


def read_vocab_json(path: PathLike) -> dict[str, int]:
    """A token -> id JSON object, checked: ids are distinct non-negative integers."""
    return check_vocab(read_json(path), path, "vocab")


def read_merges_txt(path: PathLike, vocab: dict[str, int]) -> list[tuple[str, str]]:
    """The merges of a merges.txt, each checked against the vocab."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise FormatError(f"{path}: not UTF-8 at byte offset {e.start}") from None
    merges = []
    for lineno, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")
        if not line or (lineno == 1 and line.startswith("#version")):
            continue
        symbols = line.split(" ")
        if len(symbols) != 2 or not all(symbols):
            raise line_error(path, lineno, f"expected a merge 'a b', got {line[:80]!r}")
        merges.append((symbols[0], symbols[1]))
        for token in (symbols[0], symbols[1], symbols[0] + symbols[1]):
            if token not in vocab:
                raise line_error(path, lineno, f"{token!r} is not in the vocab")
    return merges


def read_gpt2(
    vocab_json: PathLike,
    merges_txt: PathLike,
    *,
    pre_tokenizer: str = "gpt2",
    special_tokens: dict[str, int] | None = None,
) -> ModelSpec:
    """Read a GPT-2 style byte-level model.

    pre_tokenizer: the pre-tokenizer regex or its name (the files do not record it).
    special_tokens: text -> id; None takes `<|endoftext|>` if the vocab has it (GPT-2's
        convention: the files do not mark special tokens). They are in the vocab too.
    """
    vocab = read_vocab_json(vocab_json)
    merges = read_merges_txt(merges_txt, vocab)
    if special_tokens is None:
        eot = "<|endoftext|>"
        special_tokens = {eot: vocab[eot]} if eot in vocab else {}
    config = TokenizerConfig(
        kind="byte",
        pre_tokenizer=pattern_name(pre_tokenizer),
        end_of_word="none",
        unk_token=None,
        merge_rule="merges",
        ignore_merges=False,
    )
    vocab = add_special_tokens(vocab, special_tokens, str(vocab_json))
    return ModelSpec(config, vocab, merges, dict(special_tokens))


def write_gpt2(spec: ModelSpec, vocab_json: PathLike, merges_txt: PathLike) -> None:
    """Write a byte-level model as vocab.json + merges.txt.

    Special tokens are added to vocab.json. The files record neither the pattern nor the
    merge rule: read back, a tiktoken model's ranks become an ordinary merge list (which gives
    the same tokens when every token has its merge, as in cl100k).
    """
    import json  # here: loading a model, the common case, writes none

    _check_expressible(spec)
    vocab = add_special_tokens(spec.vocab, spec.special_tokens, "spec")
    vocab = dict(sorted(vocab.items(), key=lambda item: item[1]))
    merges = "".join(f"{a} {b}\n" for a, b in spec.merges)
    write_all_or_none(
        (vocab_json, json.dumps(vocab, ensure_ascii=False) + "\n"),
        (merges_txt, f"{MERGES_HEADER}\n{merges}"),
    )


def _check_expressible(spec: ModelSpec) -> None:
    config = spec.config
    why = "GPT-2 files hold byte-level models without end-of-word symbols or normalization"
    for name, bad in (
        ("kind", config.kind != "byte"),
        ("end_of_word", config.end_of_word != "none"),
        ("normalization", config.normalization is not None),
        ("lowercase", config.lowercase),
    ):
        if bad:
            raise InvalidInputError(
                f"cannot write {name}={getattr(config, name)!r} as GPT-2: {why}"
            )
    for token in spec.vocab:
        if token not in spec.special_tokens:
            token_to_bytes(token)  # raises on a token that is not byte-level
