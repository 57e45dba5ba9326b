"""HF `tokenizers` files (`tokenizer.json`) holding a BPE model.

What maps onto a ModelSpec, both ways:
- byte-level: pre_tokenizer Sequence[Split(Regex), ByteLevel(use_regex=false)] (or a lone
  ByteLevel with its built-in GPT-2 regex), add_prefix_space false;
- classic: WhitespaceSplit (or Whitespace, or a Split regex) and no ByteLevel;
- words ending in an attached suffix (`end_of_word_suffix`, CLIP's `</w>`), `ignore_merges`,
  `unk_token`, NFC/NFD/NFKC/NFKD and Lowercase normalizers;
- added tokens -> special tokens (kept in the vocab too, as in every format here).
Anything else (WordPiece, Unigram, other normalizers and pre-tokenizers, BPE dropout, byte
fallback) is refused with an error naming the JSON field. The decoder and post-processor are
not read: they do not change which ids a text gets (a post-processor's BOS/EOS template is
HF's `add_special_tokens`, outside the model).

HF regexes are Oniguruma's; `patterns.to_oniguruma` / `from_oniguruma` translate them.
tokenizer.json has no merge rule: a tiktoken model (merge_rule "ranks") is written as its
recovered merges with `ignore_merges`, and is read back with merge_rule "merges".
"""

from __future__ import annotations

from typing import Any

from subword.config import ModelSpec, TokenizerConfig
from subword.errors import InvalidInputError
from subword.formats._files import (
    PathLike,
    add_special_tokens,
    check_vocab,
    field_error,
    read_json,
    write_atomic,
)
from subword.pre_tokenizers.patterns import (
    CLIP_ORIGINAL,
    from_oniguruma,
    pattern_name,
    resolve_pattern,
    to_oniguruma,
)

# HF's `Whitespace` pre-tokenizer is this regex; `WhitespaceSplit` is our "whitespace".
HF_WHITESPACE_REGEX = r"\w+|[^\w\s]+"
# Patterns that match every character: splitting on them ("Isolated") keeps the same pieces as
# keeping only their matches, and HF conversions of tiktoken models use "Isolated".
_COVERING = ("gpt2", "cl100k", "o200k")
_NORMAL_FORMS = {"NFC": "nfc", "NFD": "nfd", "NFKC": "nfkc", "NFKD": "nfkd"}
_CLIP_PATTERNS = ("clip", CLIP_ORIGINAL)


# --- reading ------------------------------------------------------------------------------


def read_hf(path: PathLike) -> ModelSpec:
    """Read a `tokenizer.json` with a BPE model as a ModelSpec."""
    data = read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("model"), dict):
        raise field_error(path, "model", "missing: not a tokenizers tokenizer.json")
    model = data["model"]
    _check_model_options(path, model)
    vocab = check_vocab(model.get("vocab"), path, "model.vocab")
    merges = _read_merges(path, model.get("merges", []), vocab)
    kind, pre_tokenizer = _read_pre_tokenizer(path, data.get("pre_tokenizer"), "pre_tokenizer")
    normalization, lowercase = _read_normalizer(path, data.get("normalizer"), pre_tokenizer)
    suffix = model.get("end_of_word_suffix") or None
    unk_token = model.get("unk_token")
    config = TokenizerConfig(
        kind=kind,
        normalization=normalization,
        lowercase=lowercase,
        pre_tokenizer=pre_tokenizer,
        end_of_word="attached" if suffix else "none",
        end_of_word_symbol=suffix or "</w>",
        unk_token=unk_token,
        # Byte-level models meet no unknown symbols; classic ones without an unk_token raise.
        unknown="unk" if unk_token is not None or kind == "byte" else "error",
        merge_rule="merges",
        ignore_merges=bool(model.get("ignore_merges", False)),
    )
    specials = _read_added_tokens(path, data.get("added_tokens") or [], vocab)
    vocab = add_special_tokens(vocab, specials, str(path))
    return ModelSpec(config, vocab, merges, specials)


def _check_model_options(path: PathLike, model: dict[str, Any]) -> None:
    kind = model.get("type", "BPE")
    if kind != "BPE":
        raise field_error(path, "model.type", f"{kind!r} is not supported; only BPE models are")
    unsupported = {
        "dropout": model.get("dropout") not in (None, 0, 0.0),
        "byte_fallback": bool(model.get("byte_fallback")),
        "fuse_unk": bool(model.get("fuse_unk")),
        # A continuation prefix (##) belongs to WordPiece-style greedy matching, not BPE merges.
        "continuing_subword_prefix": model.get("continuing_subword_prefix") not in (None, ""),
    }
    for name, bad in unsupported.items():
        if bad:
            raise field_error(path, f"model.{name}", f"{model[name]!r} is not supported")
    unk = model.get("unk_token")
    if unk is not None and not isinstance(unk, str):
        raise field_error(path, "model.unk_token", f"{unk!r} is not a string")


def _read_merges(path: PathLike, raw: Any, vocab: dict[str, int]) -> list[tuple[str, str]]:
    """Merges as "a b" strings (tokenizers < 0.20) or [a, b] pairs, checked against vocab."""
    if not isinstance(raw, list):
        raise field_error(path, "model.merges", "expected a list")
    merges = []
    for i, item in enumerate(raw):
        field = f"model.merges[{i}]"
        symbols = item.split(" ") if isinstance(item, str) else item
        if not (isinstance(symbols, list) and len(symbols) == 2):
            raise field_error(path, field, f"expected 'a b' or [a, b], got {item!r}")
        a, b = symbols
        if not (isinstance(a, str) and isinstance(b, str) and a and b):
            raise field_error(path, field, f"expected two non-empty symbols, got {item!r}")
        for token in (a, b, a + b):
            if token not in vocab:
                raise field_error(path, field, f"{token!r} is not in model.vocab")
        merges.append((a, b))
    return merges


def _read_pre_tokenizer(path: PathLike, node: Any, field: str) -> tuple[str, str]:
    """(kind, pre_tokenizer) for the supported pre-tokenizer shapes."""
    kind = node.get("type") if isinstance(node, dict) else None
    if kind == "ByteLevel":
        _check_byte_level(path, field, node, use_regex=True)
        return "byte", "gpt2"  # ByteLevel's built-in regex is GPT-2's
    if kind == "WhitespaceSplit":
        return "classic", "whitespace"
    if kind == "Whitespace":
        return "classic", HF_WHITESPACE_REGEX
    if kind == "Split":
        return "classic", _read_split(path, field, node)
    if kind == "Sequence":
        return _read_sequence(path, node.get("pretokenizers"), f"{field}.pretokenizers")
    raise field_error(
        path, field, f"{kind or node!r} is not supported (ByteLevel, Split, WhitespaceSplit)"
    )


def _read_sequence(path: PathLike, items: Any, field: str) -> tuple[str, str]:
    if not isinstance(items, list) or not items:
        raise field_error(path, field, "expected a non-empty list")
    if len(items) == 1:
        return _read_pre_tokenizer(path, items[0], f"{field}[0]")
    last = items[-1]
    if len(items) == 2 and isinstance(last, dict) and last.get("type") == "ByteLevel":
        _check_byte_level(path, f"{field}[1]", last, use_regex=False)
        kind, pattern = _read_pre_tokenizer(path, items[0], f"{field}[0]")
        if kind == "classic":  # a splitting step, not a second ByteLevel
            return "byte", pattern
    raise field_error(
        path, field, "only [Split or WhitespaceSplit, ByteLevel(use_regex=false)] is supported"
    )


def _check_byte_level(path: PathLike, field: str, node: dict, *, use_regex: bool) -> None:
    # HF's defaults: add_prefix_space and use_regex are true when the keys are missing.
    if node.get("add_prefix_space", True):
        raise field_error(
            path, f"{field}.add_prefix_space", "true is not supported (no prefix space)"
        )
    if node.get("use_regex", True) != use_regex:
        where = "after a Split" if not use_regex else "alone"
        raise field_error(path, f"{field}.use_regex", f"must be {use_regex} {where}")


def _read_split(path: PathLike, field: str, node: dict) -> str:
    pattern = node.get("pattern")
    if not (isinstance(pattern, dict) and isinstance(pattern.get("Regex"), str)):
        raise field_error(path, f"{field}.pattern", f"{pattern!r}: only Regex patterns")
    behavior, invert = node.get("behavior"), bool(node.get("invert", False))
    # Both keep the regex's matches: "Isolated" also keeps the text between them, which the
    # patterns used with BPE leave empty.
    if (behavior, invert) not in (("Isolated", False), ("Removed", True)):
        raise field_error(
            path,
            f"{field}.behavior",
            f"{behavior!r} with invert={invert} is not supported "
            "(Isolated, or Removed with invert)",
        )
    return pattern_name(from_oniguruma(pattern["Regex"]))


def _read_normalizer(path: PathLike, node: Any, pattern: str) -> tuple[str | None, bool]:
    """(normalization, lowercase) from None, NFx, Lowercase or a Sequence of them."""
    if node is None:
        return None, False
    is_sequence = isinstance(node, dict) and node.get("type") == "Sequence"
    items = node.get("normalizers") if is_sequence else [node]
    if not isinstance(items, list):
        raise field_error(path, "normalizer.normalizers", "expected a list")
    normalization, lowercase = None, False
    for i, item in enumerate(items):
        field = f"normalizer.normalizers[{i}]" if is_sequence else "normalizer"
        kind = item.get("type") if isinstance(item, dict) else None
        if kind in _NORMAL_FORMS and normalization is None:
            normalization = _NORMAL_FORMS[kind]
        elif kind == "Lowercase" and not lowercase:
            lowercase = True
        elif _is_whitespace_collapse(item) and pattern in _CLIP_PATTERNS:
            pass  # HF's CLIP: the clip pattern never matches whitespace, so this changes nothing
        else:
            raise field_error(
                path, field, f"{kind or item!r} is not supported (NFC/NFD/NFKC/NFKD, Lowercase)"
            )
    return normalization, lowercase


def _is_whitespace_collapse(node: Any) -> bool:
    return (
        isinstance(node, dict)
        and node.get("type") == "Replace"
        and node.get("pattern") == {"Regex": r"\s+"}
        and node.get("content") == " "
    )


def _read_added_tokens(path: PathLike, items: Any, vocab: dict[str, int]) -> dict[str, int]:
    if not isinstance(items, list):
        raise field_error(path, "added_tokens", "expected a list")
    token_of_id = {id_: token for token, id_ in vocab.items()}
    specials: dict[str, int] = {}
    for i, item in enumerate(items):
        field = f"added_tokens[{i}]"
        if not isinstance(item, dict):
            raise field_error(path, field, "expected an object")
        for flag in ("single_word", "lstrip", "rstrip"):
            if item.get(flag):
                raise field_error(path, f"{field}.{flag}", "true is not supported")
        content, id_ = item.get("content"), item.get("id")
        if not isinstance(content, str) or not content:
            raise field_error(path, f"{field}.content", f"{content!r} is not a token")
        if isinstance(id_, bool) or not isinstance(id_, int) or id_ < 0:
            raise field_error(path, f"{field}.id", f"{id_!r} is not an integer >= 0")
        if token_of_id.get(id_, content) != content:
            other = token_of_id[id_]
            raise field_error(path, f"{field}.id", f"{id_} is already {other!r}'s id")
        token_of_id[id_] = content
        specials[content] = id_
    return specials


# --- writing ------------------------------------------------------------------------------


def write_hf(spec: ModelSpec, path: PathLike) -> None:
    """Write the spec as a `tokenizer.json` that `tokenizers.Tokenizer.from_file` loads and
    that gives the same ids."""
    import json  # here: loading a model, the common case, writes none

    text = json.dumps(to_hf_json(spec), ensure_ascii=False, indent=2) + "\n"
    write_atomic(path, text.encode("utf-8"))


def to_hf_json(spec: ModelSpec) -> dict[str, Any]:
    """The tokenizer.json object for a spec (see write_hf)."""
    config = spec.config
    if config.end_of_word == "separate":
        raise InvalidInputError(
            "cannot write end_of_word='separate' to tokenizer.json: HF BPE can only attach "
            f"{config.end_of_word_symbol!r} to the last symbol (end_of_word='attached')"
        )
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [_added_token(text, id_) for text, id_ in _by_id(spec.special_tokens)],
        "normalizer": _normalizer_json(config),
        "pre_tokenizer": _pre_tokenizer_json(config),
        "post_processor": None,
        "decoder": _decoder_json(config),
        "model": _model_json(spec),
    }


def _by_id(tokens: dict[str, int]) -> list[tuple[str, int]]:
    return sorted(tokens.items(), key=lambda item: item[1])


def _added_token(text: str, id_: int) -> dict[str, Any]:
    return {
        "id": id_,
        "content": text,
        "single_word": False,
        "lstrip": False,
        "rstrip": False,
        "normalized": False,
        "special": True,
    }


def _normalizer_json(config: TokenizerConfig) -> dict[str, Any] | None:
    steps = []
    if config.normalization is not None:
        steps.append({"type": config.normalization.upper()})
    if config.lowercase:
        steps.append({"type": "Lowercase"})
    if len(steps) > 1:
        return {"type": "Sequence", "normalizers": steps}
    return steps[0] if steps else None


def _pre_tokenizer_json(config: TokenizerConfig) -> dict[str, Any]:
    if config.pre_tokenizer == "whitespace":
        split: dict[str, Any] = {"type": "WhitespaceSplit"}
    else:
        name = pattern_name(config.pre_tokenizer)
        regex = to_oniguruma(resolve_pattern(name))
        # Our pre-tokenizer keeps a regex's matches; "Removed" with invert does exactly that.
        isolated = name in _COVERING
        split = {
            "type": "Split",
            "pattern": {"Regex": regex},
            "behavior": "Isolated" if isolated else "Removed",
            "invert": not isolated,
        }
    if config.kind == "classic":
        return split
    byte_level = {
        "type": "ByteLevel",
        "add_prefix_space": False,
        "trim_offsets": True,
        "use_regex": False,
    }
    return {"type": "Sequence", "pretokenizers": [split, byte_level]}


def _decoder_json(config: TokenizerConfig) -> dict[str, Any] | None:
    suffix = config.end_of_word_symbol if config.end_of_word == "attached" else None
    if config.kind == "classic":
        return {"type": "BPEDecoder", "suffix": suffix} if suffix else None
    byte_level = {
        "type": "ByteLevel",
        "add_prefix_space": True,
        "trim_offsets": True,
        "use_regex": True,
    }
    if not suffix:
        return byte_level
    # ByteLevel turns the symbols back into bytes (the suffix's characters are printable ASCII,
    # which the table keeps), then the suffix becomes a space, as CLIP's decode does.
    replace = {"type": "Replace", "pattern": {"String": suffix}, "content": " "}
    return {"type": "Sequence", "decoders": [byte_level, replace]}


def _model_json(spec: ModelSpec) -> dict[str, Any]:
    config = spec.config
    return {
        "type": "BPE",
        "dropout": None,
        # Without an unk_token HF drops unknown characters where we raise; the ids of text
        # with no unknown characters are the same.
        "unk_token": config.unk_token if config.unknown == "unk" else None,
        "continuing_subword_prefix": None,
        "end_of_word_suffix": (
            config.end_of_word_symbol if config.end_of_word == "attached" else None
        ),
        "fuse_unk": False,
        "byte_fallback": False,
        "ignore_merges": config.ignore_merges,
        # HF gives an added token the id the model's vocab has for it, and otherwise the next
        # free id after the vocab, whatever the file says: cl100k's specials (100257, with no
        # 100256) only keep their ids when the model's vocab lists them.
        "vocab": dict(_by_id(add_special_tokens(spec.vocab, spec.special_tokens, "spec"))),
        "merges": [[a, b] for a, b in spec.merges],
    }
