"""`Tokenizer`: a built model with its configuration. Encoding and decoding run in the Rust
core; this class holds the plain data (`ModelSpec`), checks arguments, and applies
tiktoken's special-token rules. Its base, `_core.TokenizerBase`, takes the common encode
call to the core without running Python code."""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any, Literal

from subword import _core
from subword import pre_tokenizers as pretokenizers
from subword.config import ModelSpec, TokenizerConfig, check_ids
from subword.errors import InvalidInputError
from subword.text import register_bytewise_replace, utf8_safe, without_surrogates

SpecialSet = Collection[str] | Literal["all"]
# (special tokens encoded as themselves, special tokens whose presence is an error)
_SpecialPlan = tuple["_core.Specials | None", "_core.Specials | None"]
# The default `allowed_special`; recognised by identity, so the default costs no lookup.
_NO_SPECIALS: frozenset[str] = frozenset()


def resolve_pattern(name: str) -> str | None:
    """The regex for a pre-tokenizer name or user regex; None means whitespace splitting."""
    if name == "whitespace":
        return None
    from subword.pre_tokenizers.patterns import resolve_pattern as resolve

    return resolve(name)


def _cleaner(name: str | None) -> Callable[[str], str] | None:
    if name == "clip":
        from subword.formats.clip import clean_text

        return clean_text
    return None


def _core_options(config: TokenizerConfig, unk_id: int | None) -> dict:
    """The options dict of `_core.Model` (its keys are the configuration's names)."""
    return {
        "kind": config.kind,
        "end_of_word": config.end_of_word,
        "end_of_word_symbol": config.end_of_word_symbol,
        "normalization": config.normalization,
        # A cleaner lower-cases as its reference does (CLIP: Python's str.lower).
        "lowercase": config.lowercase and _cleaner(config.clean) is None,
        "pre_tokenizer": resolve_pattern(config.pre_tokenizer),
        "merge_rule": config.merge_rule,
        "ignore_merges": config.ignore_merges,
        "unk_id": unk_id if config.unknown == "unk" else None,
        "algorithm": config.algorithm,
        "continuation_prefix": config.continuation_prefix,
        "specials_in_pattern": config.specials_in_pattern,
    }


def with_continuations(spec: ModelSpec) -> ModelSpec:
    """A greedy model's vocabulary holds every token twice: as it starts a word, and in its
    continuation form (`##est`), which gets a new id after all others. The unknown token
    too (`##<unk>`): an unknown character inside a word must not decode as a word start."""
    prefix = spec.config.continuation_prefix
    vocab = dict(spec.vocab)
    next_id = max([*vocab.values(), *spec.special_tokens.values()], default=-1) + 1
    plain = [t for t in vocab if not (t.startswith(prefix) and t[len(prefix) :] in vocab)]
    for token in plain:
        if prefix + token not in vocab:
            vocab[prefix + token] = next_id
            next_id += 1
    return ModelSpec(spec.config, vocab, list(spec.merges), dict(spec.special_tokens))


def _unpickle(cls: type[Tokenizer], payload: bytes) -> Tokenizer:
    import json
    import zlib

    from subword.formats.native import spec_from_document

    doc = json.loads(zlib.decompress(payload))
    return cls(spec_from_document(doc, "<pickled tokenizer>"), training=doc.get("training"))


def _split_specials(text: str, tokens: list[str]) -> list[str]:
    """`text` cut around the special tokens it contains (longest first at each place)."""
    import re

    pattern = "|".join(re.escape(t) for t in sorted(tokens, key=len, reverse=True))
    return [part for part in re.split(f"({pattern})", text) if part]


class Tokenizer(_core.TokenizerBase):
    """A BPE tokenizer. Build one with `subword.train(...)` or `subword.load(path)`."""

    def __init__(self, spec: ModelSpec, training: dict | None = None) -> None:
        if spec.sentencepiece is not None:
            # Built from the model file itself: its normalizer and scores are not options.
            core = _core.Model.from_sentencepiece(spec.sentencepiece.model_file, "<spec>")
            self._attach(core, spec.config, dict(spec.special_tokens), training)
            self._spec_value: ModelSpec | None = spec
            self._make_spec: Callable[[], ModelSpec] | None = None
            self._rebuild: Callable[[], tuple[Any, ...]] | None = None
            return
        check_ids(spec)
        if spec.config.algorithm == "greedy":
            spec = with_continuations(spec)
        config = spec.config
        unk_id = spec.vocab.get(config.unk_token) if config.unk_token else None
        if config.kind == "classic" and config.unknown == "unk" and unk_id is None:
            raise InvalidInputError(
                f"unknown='unk' needs the unk_token {config.unk_token!r} in the vocabulary"
            )
        specials = spec.special_tokens
        # Special tokens are matched as whole texts, never built from merges or bytes.
        ordinary = [(t, i) for t, i in spec.vocab.items() if t not in specials]
        core = _core.Model(
            ordinary, list(spec.merges), list(specials.items()), _core_options(config, unk_id)
        )
        self._attach(core, config, dict(specials), training)
        self._spec_value = spec
        self._make_spec = None
        self._rebuild = None

    @classmethod
    def _from_core(
        cls,
        core: _core.Model,
        config: TokenizerConfig,
        special_tokens: dict[str, int],
        make_spec: Callable[[], ModelSpec],
        rebuild: Callable[[], tuple[Any, ...]],
    ) -> Tokenizer:
        """A tokenizer whose core was built straight from a file (tiktoken's 100k–200k
        tokens, read in Rust): the plain data (`spec`) is made by `make_spec` when first
        asked for, so loading costs no Python object per token. `rebuild()` gives what it
        pickles as (`__reduce__`'s value): the file's own compact form."""
        self = cls.__new__(cls)
        self._attach(core, config, special_tokens, None)
        self._spec_value = None
        self._make_spec = make_spec
        self._rebuild = rebuild
        return self

    def _attach(
        self,
        core: _core.Model,
        config: TokenizerConfig,
        special_tokens: dict[str, int],
        training: dict | None,
    ) -> None:
        self._core = core
        self._config = config
        self._special_tokens = special_tokens
        self.training = dict(training or {})
        self._clean = _cleaner(config.clean)
        self._id_to_token_map: dict[int, str] | None = None
        self._python_pre_tokenizer = pretokenizers.get(config)
        # Encoded by the core alone: no cleaning or pre-tokenizing in Python.
        self._plain = self._clean is None and self._python_pre_tokenizer is None
        if self._python_pre_tokenizer is not None:
            self._normalizer = _core.Normalizer(config.normalization, config.lowercase)
        self._special_plans: dict[tuple[SpecialSet, SpecialSet], _SpecialPlan] = {}
        self._default_plan = self._make_special_plan(_NO_SPECIALS, "all")
        if self._plain:
            self._direct(core, *self._default_plan)
        _core.prepare_numpy()

    @property
    def _spec(self) -> ModelSpec:
        if self._spec_value is None:
            assert self._make_spec is not None
            self._spec_value = self._make_spec()
            self._make_spec = None
        return self._spec_value

    @property
    def _id_to_token(self) -> dict[int, str]:
        if self._id_to_token_map is None:
            self._id_to_token_map = dict(self._core.id_to_token())
        return self._id_to_token_map

    def _spec_is_sentencepiece(self) -> bool:
        return self._core.is_sentencepiece()

    # --- pickling ----------------------------------------------------------------------
    def __reduce__(self) -> tuple[Any, ...]:
        """A tokenizer pickles as its model file's text, compressed, and is rebuilt from it:
        small, independent of the core's memory layout, and safe to send to worker
        processes (multiprocessing, Ray, Spark). A tokenizer loaded from a tiktoken file
        pickles as that file, compressed, and is rebuilt by the same fast reader."""
        import zlib

        if self._rebuild is not None:
            return self._rebuild()

        from subword.formats.native import native_text

        payload = zlib.compress(native_text(self._spec, self.training or None).encode(), 6)
        return (_unpickle, (type(self), payload))

    # --- what the model is -------------------------------------------------------------
    @property
    def spec(self) -> ModelSpec:
        return self._spec

    @property
    def config(self) -> TokenizerConfig:
        return self._config

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
        return dict(self._special_tokens)

    @property
    def alphabet(self) -> list[str]:
        """The initial symbols: vocabulary entries that are not made by a merge."""
        made = {a + b for a, b in self._spec.merges}
        config = self.config
        unk = {config.unk_token} if config.unk_token else set()
        if config.unk_token and config.end_of_word == "attached":
            unk.add(config.unk_token + config.end_of_word_symbol)
        if config.unk_token and config.algorithm == "greedy":
            unk.add(config.continuation_prefix + config.unk_token)
        return [t for t in self._spec.vocab if t not in made and t not in unk]

    @property
    def vocab_size(self) -> int:
        return self._core.vocab_size()

    def token_to_id(self, token: str) -> int | None:
        # The core's table, not `vocab` (a dict of every token, made at each call).
        special = self._special_tokens.get(token)
        return special if special is not None else self._core.token_to_id(token)

    def id_to_token(self, id_: int) -> str | None:
        if type(id_) is int and 0 <= id_ < 2**32:
            # The core's table: the dict of every id is made only for calls that need it.
            return self._core.token_of(id_)
        return self._id_to_token.get(id_)

    def __repr__(self) -> str:
        c = self.config
        if self._spec_is_sentencepiece():
            settings = self._spec.sentencepiece
            assert settings is not None
            return (
                f"{type(self).__name__}(sentencepiece BPE, vocab_size={self.vocab_size}, "
                f"normalizer={settings.normalizer_name!r}, "
                f"byte_fallback={settings.byte_fallback})"
            )
        return (
            f"{type(self).__name__}(kind={c.kind!r}, vocab_size={self.vocab_size}, "
            f"pre_tokenizer={c.pre_tokenizer!r})"
        )

    # --- encoding ----------------------------------------------------------------------
    def _special_plan(self, allowed: SpecialSet, disallowed: SpecialSet) -> _SpecialPlan:
        """The special tokens to encode as themselves and those whose presence is an
        error, for tiktoken's `allowed_special` / `disallowed_special`. Kept per argument
        pair: this runs once per call, and most calls pass the defaults."""
        if allowed is _NO_SPECIALS and disallowed == "all":
            return self._default_plan
        try:
            return self._special_plans[allowed, disallowed]
        except KeyError:
            key = (allowed, disallowed)
        except TypeError:  # a set or list: not hashable, so not kept
            key = None
        plan = self._make_special_plan(allowed, disallowed)
        if key is not None:
            if len(self._special_plans) >= 64:
                self._special_plans.clear()
            self._special_plans[key] = plan
        return plan

    def _make_special_plan(self, allowed: SpecialSet, disallowed: SpecialSet) -> _SpecialPlan:
        specials = self._special_tokens
        if not specials or self.config.specials_in_pattern:
            return None, None
        allowed_set = frozenset(specials) if allowed == "all" else frozenset(allowed)
        unknown = allowed_set - specials.keys()
        if unknown:
            raise InvalidInputError(
                f"allowed_special names tokens this model lacks: {sorted(unknown)}"
            )
        # As tiktoken: an explicit disallowed set is searched for as given.
        disallowed_set = (
            specials.keys() - allowed_set if disallowed == "all" else frozenset(disallowed)
        )
        return self._matcher(allowed_set), self._matcher(disallowed_set)

    def _matcher(self, tokens: Collection[str]) -> _core.Specials | None:
        if not tokens:
            return None
        specials = self._special_tokens
        return _core.Specials([(t, specials.get(t, 0)) for t in sorted(tokens)])

    # `encode`, `encode_ordinary` and `encode_to_numpy` are `_core.TokenizerBase`'s: the
    # common call goes straight to the core (a Python method in between cost as much as
    # encoding a short line); every other call comes to the three methods below. A missing
    # argument arrives as None.
    def _encode(
        self,
        text: str,
        allowed_special: SpecialSet | None,
        disallowed_special: SpecialSet | None,
        dropout: float | None,
        seed: int | None,
        max_tokens: int | None,
    ) -> list[int]:
        allowed = _NO_SPECIALS if allowed_special is None else allowed_special
        disallowed = "all" if disallowed_special is None else disallowed_special
        seed = 0 if seed is None else seed
        if max_tokens is not None:
            from subword.offsets import check_max_tokens

            limit = check_max_tokens(max_tokens)
            ids = self._encode(text, allowed, disallowed, dropout, seed, None)
            return ids[:limit]
        matcher, forbidden = self._special_plan(allowed, disallowed)
        if self._clean is not None or self._python_pre_tokenizer is not None or dropout:
            text = utf8_safe(self._clean(text) if self._clean is not None else text)
        if self._python_pre_tokenizer is not None:
            if dropout:
                raise InvalidInputError("dropout is not available with a Python pre-tokenizer")
            if forbidden is not None:
                forbidden.refuse_in(text)
            return self._encode_python_pieces(text, matcher)
        if dropout is not None:
            if not 0.0 <= dropout <= 1.0:
                raise InvalidInputError(f"dropout must be between 0 and 1, got {dropout}")
            if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
                raise InvalidInputError(
                    f"seed must be an integer from 0 to 2**64 - 1, got {seed!r}"
                )
            return self._core.encode(text, matcher, forbidden, float(dropout), seed)
        try:
            return self._core.encode(text, matcher, forbidden)
        except UnicodeEncodeError:  # lone surrogates: as tiktoken
            return self._core.encode(without_surrogates(text), matcher, forbidden)

    def _encode_ordinary(self, text: str) -> list[int]:
        if self._clean is not None:
            text = self._clean(text)
        if self._python_pre_tokenizer is not None:
            return self._encode_python_pieces(utf8_safe(text), None)
        try:
            return self._core.encode(text)
        except UnicodeEncodeError:  # lone surrogates: as tiktoken
            return self._core.encode(without_surrogates(text))

    def _encode_python_pieces(self, text: str, matcher) -> list[int]:
        """Encoding when pre-tokenization runs in Python: special tokens are split off
        first, the rest is normalized, split into pieces, and each piece encoded."""
        ids: list[int] = []
        specials = self._special_tokens
        parts = [text] if matcher is None else _split_specials(text, matcher.tokens())
        for part in parts:
            if matcher is not None and part in specials and part in matcher.tokens():
                ids.append(specials[part])
                continue
            assert self._python_pre_tokenizer is not None
            pieces = self._python_pre_tokenizer.pieces(self._normalizer.normalize(part))
            for piece_ids in self._core.encode_pieces(pieces):
                ids.extend(piece_ids)
        return ids

    def _batch_inputs(
        self,
        texts: Sequence[str],
        allowed: SpecialSet,
        disallowed: SpecialSet,
        num_threads: int | None,
    ) -> tuple[list[str], _core.Specials | None, _core.Specials | None]:
        """A batch's texts (cleaned) and special-token plan; checks `num_threads`."""
        if num_threads is not None and num_threads < 1:
            raise InvalidInputError(f"num_threads must be >= 1, got {num_threads}")
        if isinstance(texts, str):
            raise TypeError("a batch is a list of str, not one str: wrap it as [text]")
        if self._clean is not None:
            texts = [self._clean(t) for t in texts]
        elif type(texts) is not list:
            # An iterator can be read once; the retries below read the texts again.
            texts = list(texts)
        if self._python_pre_tokenizer is not None:
            texts = [utf8_safe(t) for t in texts]
        return (texts, *self._special_plan(allowed, disallowed))

    def encode_batch(
        self,
        texts: Sequence[str],
        *,
        num_threads: int | None = None,
        allowed_special: SpecialSet = _NO_SPECIALS,
        disallowed_special: SpecialSet = "all",
    ) -> list[list[int]]:
        """Encodes many texts in parallel (the GIL is released); results in input order.

        num_threads: how many threads work, the calling thread among them (default: one per
        core). A small batch runs on the calling thread alone when this thread's recent
        batches say it takes under about 0.1 ms (and always under 16 KiB): waking another
        thread costs more than it saves there."""
        texts, matcher, forbidden = self._batch_inputs(
            texts, allowed_special, disallowed_special, num_threads
        )
        if self._python_pre_tokenizer is not None:
            if forbidden is not None:
                for text in texts:
                    forbidden.refuse_in(text)
            batch = getattr(self._python_pre_tokenizer, "pieces_batch", None)
            if batch is None or matcher is not None:
                return [self._encode_python_pieces(t, matcher) for t in texts]
            # One analysis of the whole batch (Kiwi spreads it over its threads), then
            # one call into the core for all pieces.
            per_text = batch(self._normalizer.normalize_batch(texts))
            encoded = iter(self._core.encode_pieces([p for ps in per_text for p in ps]))
            return [[i for _ in ps for i in next(encoded)] for ps in per_text]
        try:
            return self._core.encode_batch(texts, matcher, forbidden, num_threads)
        except UnicodeEncodeError:  # lone surrogates: as tiktoken
            texts = [utf8_safe(t) for t in texts]
            return self._core.encode_batch(texts, matcher, forbidden, num_threads)

    def _encode_to_numpy(
        self,
        text: str,
        allowed_special: SpecialSet | None,
        disallowed_special: SpecialSet | None,
    ) -> Any:
        allowed = _NO_SPECIALS if allowed_special is None else allowed_special
        disallowed = "all" if disallowed_special is None else disallowed_special
        if self._python_pre_tokenizer is not None:
            import numpy as np

            ids = self._encode(text, allowed, disallowed, None, None, None)
            return np.asarray(ids, dtype=np.uint32)
        if self._clean is not None:
            text = self._clean(text)
        matcher, forbidden = self._special_plan(allowed, disallowed)
        try:
            return self._core.encode_to_numpy(text, matcher, forbidden)
        except UnicodeEncodeError:  # lone surrogates: as tiktoken
            return self._core.encode_to_numpy(without_surrogates(text), matcher, forbidden)

    def encode_batch_to_numpy(
        self,
        texts: Sequence[str],
        *,
        num_threads: int | None = None,
        allowed_special: SpecialSet = _NO_SPECIALS,
        disallowed_special: SpecialSet = "all",
    ):
        """A batch as one flat `uint32` array of ids and a `uint64` array of offsets: the
        ids of text i are `ids[offsets[i]:offsets[i + 1]]`."""
        if self._python_pre_tokenizer is not None:
            import numpy as np

            batch = self.encode_batch(
                texts, allowed_special=allowed_special, disallowed_special=disallowed_special
            )
            offsets = np.cumsum([0, *map(len, batch)], dtype=np.uint64)
            flat = np.fromiter((i for ids in batch for i in ids), dtype=np.uint32)
            return flat, offsets
        texts, matcher, forbidden = self._batch_inputs(
            texts, allowed_special, disallowed_special, num_threads
        )
        try:
            return self._core.encode_batch_to_numpy(texts, matcher, forbidden, num_threads)
        except UnicodeEncodeError:  # lone surrogates: as tiktoken
            texts = [utf8_safe(t) for t in texts]
            return self._core.encode_batch_to_numpy(texts, matcher, forbidden, num_threads)

    # --- offsets, counting, truncation (subword.offsets, src/pipeline/) ------------------
    def encode_with_offsets(
        self,
        text: str,
        *,
        allowed_special: SpecialSet = _NO_SPECIALS,
        disallowed_special: SpecialSet = "all",
    ) -> tuple[list[int], list[tuple[int, int]]]:
        """`encode`'s ids and, for each token, the (start, end) character span of `text` it
        comes from. A token that starts inside a multi-byte character starts at that
        character (tiktoken's `decode_with_offsets`); the rules for normalized and cleaned
        text are in `subword.offsets`."""
        from subword.offsets import encode_with_offsets

        return encode_with_offsets(self, text, allowed_special, disallowed_special)

    def count(
        self,
        text: str,
        *,
        allowed_special: SpecialSet = _NO_SPECIALS,
        disallowed_special: SpecialSet = "all",
    ) -> int:
        """`len(encode(text))`, without building the list of ids."""
        if self._python_pre_tokenizer is not None:
            return len(
                self.encode(
                    text, allowed_special=allowed_special, disallowed_special=disallowed_special
                )
            )
        matcher, forbidden = self._special_plan(allowed_special, disallowed_special)
        text = utf8_safe(self._clean(text) if self._clean is not None else text)
        return _core.count(self._core, text, matcher, forbidden)

    def count_batch(
        self,
        texts: Sequence[str],
        *,
        num_threads: int | None = None,
        allowed_special: SpecialSet = _NO_SPECIALS,
        disallowed_special: SpecialSet = "all",
    ) -> list[int]:
        """`count` of each text, in parallel as `encode_batch`; results in input order."""
        if self._python_pre_tokenizer is not None:
            batch = self.encode_batch(
                texts, allowed_special=allowed_special, disallowed_special=disallowed_special
            )
            return [len(ids) for ids in batch]
        texts, matcher, forbidden = self._batch_inputs(
            texts, allowed_special, disallowed_special, num_threads
        )
        try:
            return _core.count_batch(self._core, texts, matcher, forbidden, num_threads)
        except UnicodeEncodeError:  # lone surrogates: as `encode_batch`
            texts = [utf8_safe(t) for t in texts]
            return _core.count_batch(self._core, texts, matcher, forbidden, num_threads)

    def truncate(
        self,
        text: str,
        max_tokens: int,
        *,
        allowed_special: SpecialSet = _NO_SPECIALS,
        disallowed_special: SpecialSet = "all",
    ) -> str:
        """The start of `text` that the first `max_tokens` tokens cover, cut at a token
        boundary: a character split between token N and token N + 1 is left out."""
        from subword.offsets import truncate

        return truncate(self, text, max_tokens, allowed_special, disallowed_special)

    def tokenize(self, text: str) -> list[str]:
        """The tokens of `text` as strings (what `encode` gives, before ids)."""
        to_token = self._id_to_token
        return [to_token[i] for i in self.encode_ordinary(text)]

    # --- decoding ----------------------------------------------------------------------
    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        return self._core.decode_bytes(ids)

    def _decode(self, ids: Iterable[int], errors: str, join: bool) -> str:
        """`decode` (in `_core.TokenizerBase`) when the core cannot decode alone: a
        pre-tokenizer in Python, a SentencePiece model, an odd `errors`."""
        if self._spec_is_sentencepiece():
            if errors == "replace":
                # SentencePiece replaces each byte of a broken UTF-8 sequence, not each
                # maximal run of them as Python does.
                errors = register_bytewise_replace()
            # It also decodes each run of byte pieces apart: a control piece ends one.
            data, runs = self._core.decode_runs(ids)
            ends = [*runs, len(data)]
            text = "".join(
                data[start:end].decode("utf-8", errors) for start, end in zip([0, *runs], ends)
            )
        else:
            text = self._core.decode_bytes(ids).decode("utf-8", errors)
        joiner = getattr(self._python_pre_tokenizer, "join", None) if join else None
        if joiner is None:
            return text
        # Classic pieces end in a space (the end-of-word symbol); with end_of_word="none"
        # nothing separates them and the pre-tokenizer gets the text as one piece.
        return joiner(text.split(" ") if self.config.end_of_word != "none" else [text])

    def _decode_batch(
        self,
        batch: Iterable[Iterable[int]],
        errors: str = "replace",
        *,
        join: bool = True,
        offsets: Any = None,
    ) -> list[str]:
        """`decode_batch` (`_core.TokenizerBase`) for what its core path leaves: `offsets`,
        `join=`, SentencePiece models and pre-tokenizers in Python."""
        if offsets is not None:
            from subword.offsets import split_flat

            batch = split_flat(batch, offsets)
        return [self.decode(ids, errors, join=join) for ids in batch]

    def decode_stream(
        self, skip_special_tokens: bool = False, prompt_ids: Iterable[int] | None = None
    ):
        """A `subword.streaming.DecodeStream`: `step(id)` returns the text that became
        complete, `flush()` the rest. `prompt_ids` are ids already shown, so that the
        continuation starts where they left off (mid-character, after a word's end)."""
        from subword.streaming import DecodeStream

        return DecodeStream(self, skip_special_tokens, prompt_ids)

    # --- persistence -------------------------------------------------------------------
    def save_vocab_txt(self, path: str | os.PathLike[str]) -> None:
        """Writes the plain vocabulary, one token a line in id order (the `vocab.txt` of
        WordPiece-style tools; continuation forms and special tokens left out)."""
        from subword.files import write_atomic

        prefix = self.config.continuation_prefix if self.config.algorithm == "greedy" else None
        plain = sorted(self._spec.vocab.items(), key=lambda item: item[1])
        lines = [
            t
            for t, _ in plain
            if t != self.config.unk_token
            and not (prefix and t.startswith(prefix) and t[len(prefix) :] in self._spec.vocab)
        ]
        write_atomic(path, "".join(t + "\n" for t in lines))

    def save(self, path: str | os.PathLike[str], format: str = "native") -> None:
        """Writes the model. format: "native" (subword's JSON: everything), "hf"
        (tokenizer.json), "tiktoken" (byte-level, rank-ordered models only), "gpt2"
        (`path` is a folder that gets vocab.json and merges.txt) or "sentencepiece" (a model
        loaded from a SentencePiece .model file, written back as it was). A format that cannot
        express the model raises InvalidInputError naming what it lacks."""
        from subword.formats.save import save_model

        save_model(self._spec, path, format, self.training or None)
