"""`Tokenizer`: a built model with its configuration. Encoding and decoding run in the Rust
core; this class holds the plain data (`ModelSpec`), checks arguments, and applies
tiktoken's special-token rules."""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Sequence
from typing import Literal

from subword import _core, pretokenizers
from subword.config import ModelSpec, TokenizerConfig

SpecialSet = Collection[str] | Literal["all"]


def resolve_pattern(name: str) -> str | None:
    """The regex for a pre-tokenizer name; None means whitespace splitting."""
    if name == "whitespace":
        return None
    try:
        from subword.formats.patterns import resolve_pattern as resolve
    except ImportError:  # pragma: no cover - the formats module ships with the package
        return name
    return resolve(name)


def _split_specials(text: str, tokens: list[str]) -> list[str]:
    """`text` cut around the special tokens it contains (longest first at each place)."""
    import re

    pattern = "|".join(re.escape(t) for t in sorted(tokens, key=len, reverse=True))
    return [part for part in re.split(f"({pattern})", text) if part]


class Tokenizer:
    """A BPE tokenizer. Build one with `subword.train(...)` or `subword.load(path)`."""

    def __init__(self, spec: ModelSpec, training: dict | None = None) -> None:
        self._spec = spec
        self.training = dict(training or {})
        config = spec.config
        unk_id = spec.vocab.get(config.unk_token) if config.unk_token else None
        if config.kind == "classic" and config.unknown == "unk" and unk_id is None:
            raise ValueError(
                f"unknown='unk' needs the unk_token {config.unk_token!r} in the vocabulary"
            )
        self._core = _core.Model(
            list(spec.vocab.items()),
            list(spec.merges),
            list(spec.special_tokens.items()),
            unit="bytes" if config.kind == "byte" else "chars",
            end_of_word=config.end_of_word,
            end_of_word_symbol=config.end_of_word_symbol,
            normalization=config.normalization,
            lowercase=config.lowercase,
            pattern=resolve_pattern(config.pre_tokenizer),
            merge_rule=config.merge_rule,
            ignore_merges=config.ignore_merges,
            unk_id=unk_id if config.unknown == "unk" else None,
        )
        self._id_to_token = dict(self._core.id_to_token())
        self._python_pre_tokenizer = pretokenizers.get(config)
        if self._python_pre_tokenizer is not None:
            self._normalizer = _core.Normalizer(config.normalization, config.lowercase)
        self._specials_cache: dict[frozenset[str], _core.Specials] = {}

    # --- what the model is -------------------------------------------------------------
    @property
    def spec(self) -> ModelSpec:
        return self._spec

    @property
    def config(self) -> TokenizerConfig:
        return self._spec.config

    @property
    def merges(self) -> list[tuple[str, str]]:
        """The merges in the order they were learned (rank order)."""
        return list(self._spec.merges)

    @property
    def vocab(self) -> dict[str, int]:
        """Every token, special tokens included, mapped to its id."""
        return {**self._spec.vocab, **self._spec.special_tokens}

    @property
    def special_tokens(self) -> dict[str, int]:
        return dict(self._spec.special_tokens)

    @property
    def alphabet(self) -> list[str]:
        """The initial symbols: vocabulary entries that are not made by a merge."""
        made = {a + b for a, b in self._spec.merges}
        unk = self.config.unk_token
        return [t for t in self._spec.vocab if t not in made and t != unk]

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def token_to_id(self, token: str) -> int | None:
        return self.vocab.get(token)

    def id_to_token(self, id_: int) -> str | None:
        return self._id_to_token.get(id_)

    def __repr__(self) -> str:
        c = self.config
        return (
            f"Tokenizer(kind={c.kind!r}, vocab_size={self.vocab_size}, "
            f"merges={len(self._spec.merges)}, pre_tokenizer={c.pre_tokenizer!r})"
        )

    # --- encoding ----------------------------------------------------------------------
    def _specials_for(self, text: str, allowed: SpecialSet, disallowed: SpecialSet):
        specials = self._spec.special_tokens
        if not specials:
            return None
        allowed_set = frozenset(specials) if allowed == "all" else frozenset(allowed)
        unknown = allowed_set - specials.keys()
        if unknown:
            raise ValueError(f"allowed_special names tokens this model lacks: {sorted(unknown)}")
        if disallowed == "all":
            disallowed = specials.keys() - allowed_set
        for token in disallowed:
            if token in text:
                raise ValueError(
                    f"the text contains the special token {token!r}, which is not allowed; "
                    f"pass allowed_special={{{token!r}}} to encode it as a special token, or "
                    "disallowed_special=() to encode it as ordinary text"
                )
        if not allowed_set:
            return None
        matcher = self._specials_cache.get(allowed_set)
        if matcher is None:
            matcher = _core.Specials([(t, specials[t]) for t in sorted(allowed_set)])
            self._specials_cache[allowed_set] = matcher
        return matcher

    def encode(
        self,
        text: str,
        *,
        allowed_special: SpecialSet = frozenset(),
        disallowed_special: SpecialSet = "all",
    ) -> list[int]:
        """Token ids of `text`. Special tokens follow tiktoken's rules: those in
        `allowed_special` are encoded as themselves; finding one of `disallowed_special`
        (by default every special token not allowed) raises ValueError."""
        matcher = self._specials_for(text, allowed_special, disallowed_special)
        if self._python_pre_tokenizer is not None:
            return self._encode_python_pieces(text, matcher)
        return self._core.encode(text, matcher)

    def encode_ordinary(self, text: str) -> list[int]:
        """Token ids of `text`, with special tokens treated as ordinary text."""
        if self._python_pre_tokenizer is not None:
            return self._encode_python_pieces(text, None)
        return self._core.encode(text, None)

    def _encode_python_pieces(self, text: str, matcher) -> list[int]:
        """Encoding when pre-tokenization runs in Python: special tokens are split off
        first, the rest is normalized, split into pieces, and each piece encoded."""
        ids: list[int] = []
        specials = self._spec.special_tokens
        parts = [text] if matcher is None else _split_specials(text, matcher.tokens())
        for part in parts:
            if matcher is not None and part in specials and part in matcher.tokens():
                ids.append(specials[part])
                continue
            pieces = self._python_pre_tokenizer.pieces(self._normalizer.normalize(part))
            for piece_ids in self._core.encode_pieces(pieces):
                ids.extend(piece_ids)
        return ids

    def encode_batch(
        self,
        texts: Sequence[str],
        *,
        num_threads: int | None = None,
        allowed_special: SpecialSet = frozenset(),
        disallowed_special: SpecialSet = "all",
    ) -> list[list[int]]:
        """Encodes many texts in parallel (the GIL is released); results in input order."""
        texts = list(texts)
        matcher = None
        for text in texts:
            matcher = self._specials_for(text, allowed_special, disallowed_special)
        if num_threads is not None and num_threads < 1:
            raise ValueError(f"num_threads must be >= 1, got {num_threads}")
        if self._python_pre_tokenizer is not None:
            batch = getattr(self._python_pre_tokenizer, "pieces_batch", None)
            if batch is None or matcher is not None:
                return [self._encode_python_pieces(t, matcher) for t in texts]
            # One analysis of the whole batch (Kiwi spreads it over its threads), then
            # one call into the core for all pieces.
            per_text = batch(self._normalizer.normalize_batch(texts))
            encoded = iter(self._core.encode_pieces([p for ps in per_text for p in ps]))
            return [[i for _ in ps for i in next(encoded)] for ps in per_text]
        return self._core.encode_batch(texts, matcher, num_threads)

    def tokenize(self, text: str) -> list[str]:
        """The tokens of `text` as strings (what `encode` gives, before ids)."""
        to_token = self._id_to_token
        return [to_token[i] for i in self.encode_ordinary(text)]

    # --- decoding ----------------------------------------------------------------------
    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        return self._core.decode_bytes(list(ids))

    def decode(self, ids: Iterable[int], errors: str = "replace", *, join: bool = True) -> str:
        """The text of `ids`. Byte-level ids that split a UTF-8 sequence follow `errors`
        (as `bytes.decode`). Classic models give the words separated by single spaces.
        A pre-tokenizer that runs in Python may rebuild the text from its pieces (the
        Korean one restores the spacing from its word-start marks); `join=False` gives
        the pieces as the core decodes them instead."""
        text = self._core.decode_bytes(list(ids)).decode("utf-8", errors)
        joiner = getattr(self._python_pre_tokenizer, "join", None) if join else None
        if joiner is None:
            return text
        # Classic pieces end in a space (the end-of-word symbol); with end_of_word="none"
        # nothing separates them and the pre-tokenizer gets the text as one piece.
        return joiner(text.split(" ") if self.config.end_of_word != "none" else [text])

    def decode_batch(
        self, batch: Iterable[Iterable[int]], errors: str = "replace", *, join: bool = True
    ) -> list[str]:
        return [self.decode(ids, errors, join=join) for ids in batch]

    # --- persistence -------------------------------------------------------------------
    def save(self, path: str | os.PathLike[str], format: str = "native") -> None:
        """Writes the model; see `subword.save_formats` for what each format can hold."""
        from subword.formats.native import write_native

        if format != "native":
            raise ValueError(f"format={format!r} is not supported yet; use 'native'")
        write_native(self._spec, path, self.training or None)
