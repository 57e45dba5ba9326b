"""`subword.train`: count a word table from the source, learn merges in the Rust core, and
assemble the vocabulary. Sources are streamed: files are read by the core chunk by chunk,
Python iterables are passed on in batches."""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias, cast

from subword import _core
from subword import pre_tokenizers as pretokenizers
from subword.config import ModelSpec, TokenizerConfig, TrainConfig
from subword.errors import InvalidInputError
from subword.files import read_lines
from subword.text import utf8_safe
from subword.tokenizer import Tokenizer, resolve_pattern

if TYPE_CHECKING:
    from subword.scale.counts import WordCounts

# Texts, files or a word table; `train` also takes counts (`subword.count`'s WordCounts).
TextSource = str | os.PathLike | Iterable | Mapping
Source: TypeAlias = "TextSource | WordCounts"

_BATCH_TEXTS = 4096  # texts per hand-over to the core: amortizes the call, bounds memory


_T = TrainConfig
_M = TokenizerConfig


def train(
    source: Source,
    *,
    kind: str = _M.kind,
    num_merges: int | None = _T.num_merges,
    vocab_size: int | None = _T.vocab_size,
    min_frequency: int = _T.min_frequency,
    end_of_word: str | None = None,
    end_of_word_symbol: str = _M.end_of_word_symbol,
    tie_break: str = _T.tie_break,
    special_tokens: Iterable[str] = _T.special_tokens,
    unk_token: str | None = _M.unk_token,
    unknown: str = _M.unknown,
    algorithm: str = _M.algorithm,
    continuation_prefix: str = _M.continuation_prefix,
    pre_tokenizer: str | None = None,
    normalization: str | None = _M.normalization,
    lowercase: bool = _M.lowercase,
    errors: str = _T.errors,
    show_progress: bool | None = _T.show_progress,
    korean_drop_tags: Iterable[str] = _M.korean_drop_tags,
    korean_spacing: bool = _M.korean_spacing,
) -> Tokenizer:
    """Learns a BPE vocabulary. Each option is described in the README's option table
    (declared in `subword.config`); the defaults are those of `TrainConfig` and
    `TokenizerConfig`, except where they depend on `kind`:

    source: a path or a list/tuple of paths (plain text or .gz, UTF-8); a word table
        `dict[str, int]`; any other iterable of strings (texts; to pass a list of texts,
        pass `iter(texts)`); or counts (`subword.count`'s `WordCounts`, or the path of a
        count file), whose counting settings (kind, pre_tokenizer, normalization,
        lowercase, special_tokens, korean_*) then apply.
    kind: "classic" (characters; words split on whitespace; `end_of_word` defaults to
        "separate") or "byte" (UTF-8 bytes, regex pre-tokenizer "gpt2" by default,
        `end_of_word` "none"; no unknown symbols).
    num_merges / vocab_size: stop after that many merges, or when the vocabulary (special
        tokens + alphabet + merged tokens) reaches that size; both: whichever comes first;
        neither: merge while some pair occurs `min_frequency` times.
    algorithm="greedy": WordPiece-style longest match with "##" continuation pieces
        (end_of_word defaults to "none"). A greedy model's vocabulary also holds the
        continuation form of each token; `vocab_size` counts the plain ones.
    pre_tokenizer="korean": words split into morphemes by Kiwi (`pip install
        subword[korean]`); `normalization` then defaults to "nfc".
    """
    if isinstance(special_tokens, str):
        raise InvalidInputError("special_tokens must be a list of strings, not one string")
    if isinstance(korean_drop_tags, str):
        korean_drop_tags = (korean_drop_tags,)
    specials = list(special_tokens)
    settings = TrainConfig(
        num_merges=num_merges,
        vocab_size=vocab_size,
        min_frequency=min_frequency,
        tie_break=tie_break,
        special_tokens=tuple(specials),
        errors=errors,
        show_progress=show_progress,
    )
    counts = None
    if _may_be_counts(source):
        from subword.scale.counts import counts_of, settings_for_training

        counts = counts_of(source)
    if counts is not None:
        # The counting settings are the counts' own; a different one given is an error.
        given = {
            "kind": kind,
            "pre_tokenizer": pre_tokenizer,
            "normalization": normalization,
            "lowercase": lowercase,
            "special_tokens": tuple(specials),
            "korean_drop_tags": tuple(korean_drop_tags),
            "korean_spacing": korean_spacing,
        }
        resolved = settings_for_training(counts, given)
        kind, pre_tokenizer, normalization = (
            resolved["kind"],
            resolved["pre_tokenizer"],
            resolved["normalization"],
        )
        lowercase, korean_spacing = resolved["lowercase"], resolved["korean_spacing"]
        specials, korean_drop_tags = (
            list(resolved["special_tokens"]),
            tuple(resolved["korean_drop_tags"]),
        )
        settings.special_tokens = tuple(specials)
    if end_of_word is None:
        end_of_word = "separate" if kind == "classic" and algorithm == "bpe" else "none"
    pre_tokenizer, normalization = counting_defaults(kind, pre_tokenizer, normalization)
    config = TokenizerConfig(
        kind=kind,
        normalization=normalization,
        lowercase=lowercase,
        pre_tokenizer=pre_tokenizer,
        end_of_word=end_of_word,
        end_of_word_symbol=end_of_word_symbol,
        unk_token=unk_token if kind == "classic" else None,
        unknown=unknown if kind == "classic" else "unk",
        algorithm=algorithm,
        continuation_prefix=continuation_prefix,
        korean_drop_tags=tuple(korean_drop_tags),
        korean_spacing=korean_spacing,
    )
    if config.kind == "classic" and config.unknown == "unk" and not config.unk_token:
        raise InvalidInputError(
            "unknown='unk' needs an unk_token; pass unknown='error' to have none"
        )
    progress = sys.stderr.isatty() if settings.show_progress is None else settings.show_progress

    if counts is not None:
        if settings.tie_break == "first" and not counts.ordered:
            raise InvalidInputError(
                "tie_break='first' picks the pair met first in the order the words were "
                "first read, and these counts were loaded from a count file, which is sorted "
                "by word: use tie_break='lexicographic' or 'subword-nmt' (exact for any "
                "sharding), or merge WordCounts in memory in shard order"
            )
        counter = counts.counter
        described = counts.describe()
    else:
        texts = cast(TextSource, source)  # not counts: `counts` would be set
        counter, described = count_words(config, texts, errors=errors, show_progress=progress)
    with_unk = config.kind == "classic" and config.unknown == "unk"
    reserved = [config.unk_token] if with_unk and config.unk_token else []
    reserved += [s for s in specials if s not in reserved]
    # Attached end-of-word: an unknown character that ends a word encodes as `<unk></w>`,
    # so that decoding keeps the word's end; it takes a place in the vocabulary.
    unk_end = unknown_end_form(config)
    alphabet, merges = _core.train(
        counter,
        {
            "kind": kind,
            "end_of_word": end_of_word,
            "end_of_word_symbol": end_of_word_symbol,
            "num_merges": settings.num_merges,
            "vocab_size": settings.vocab_size,
            "min_frequency": settings.min_frequency,
            "tie_break": settings.tie_break,
            "reserved": len(reserved) + (unk_end is not None),
            "show_progress": progress,
        },
    )
    clashes = [t for t in reserved if t in set(alphabet)]
    if clashes:
        raise InvalidInputError(
            f"special token {clashes[0]!r} is also an initial symbol of this corpus (a "
            "character or byte it holds): special tokens must differ from every symbol; "
            "choose a longer token such as '<|x|>'"
        )
    spec = assemble(config, alphabet, merges, reserved)
    record = {
        "source": described,
        "words": len(counter),
        "tie_break": tie_break,
        "min_frequency": min_frequency,
        "num_merges": num_merges,
        "vocab_size": vocab_size,
    }
    return Tokenizer(spec, training=record)


def counting_defaults(
    kind: str, pre_tokenizer: str | None, normalization: str | None
) -> tuple[str, str | None]:
    """The pre-tokenizer and normalization that apply when not given: whitespace for
    classic, gpt2 for byte; nfc with the korean pre-tokenizer."""
    if pre_tokenizer is None:
        pre_tokenizer = "whitespace" if kind == "classic" else "gpt2"
    if pre_tokenizer == "korean" and normalization is None:
        normalization = "nfc"
    return pre_tokenizer, normalization


def count_words(
    config: TokenizerConfig, source: TextSource, *, errors: str, show_progress: bool
) -> tuple[_core.WordCounter, str]:
    """The word table of `source` as `config` pre-tokenizes it (in the core, or through a
    Python pre-tokenizer), and a short description of the source."""
    python_pre_tokenizer = pretokenizers.get(config)
    if python_pre_tokenizer is None:
        counter = _core.WordCounter(
            {
                "normalization": config.normalization,
                "lowercase": config.lowercase,
                "pre_tokenizer": resolve_pattern(config.pre_tokenizer),
            }
        )
        described = count_source(counter, source, errors=errors, show_progress=show_progress)
    else:
        counter = _core.WordCounter()
        texts = _texts_of(source, errors)
        described = count_source(
            _PiecesCounter(counter, python_pre_tokenizer, config),
            texts,
            errors=errors,
            show_progress=show_progress,
        )
    return counter, described


def _may_be_counts(source: object) -> bool:
    """A `WordCounts`, or one path (perhaps a count file: its first bytes tell)."""
    if isinstance(source, (str, os.PathLike)):
        return True
    return type(source).__name__ == "WordCounts"


class _PiecesCounter:
    """Feeds texts through a Python pre-tokenizer (after the core's normalization) into a
    counter, as words."""

    def __init__(self, counter, pre_tokenizer, config: TokenizerConfig) -> None:
        self._counter = counter
        self._pre_tokenizer = pre_tokenizer
        self._normalize = _core.Normalizer(config.normalization, config.lowercase)

    def add_texts(self, texts: list[str]) -> None:
        normalized = self._normalize.normalize_batch(texts)
        batch = getattr(self._pre_tokenizer, "pieces_batch", None)
        if batch is not None:  # e.g. Kiwi analyses a batch on several threads
            self._counter.add_words([p for pieces in batch(normalized) for p in pieces])
            return
        pieces: list[str] = []
        for text in normalized:
            pieces.extend(self._pre_tokenizer.pieces(text))
        self._counter.add_words(pieces)


def _texts_of(source: TextSource, errors: str) -> Iterable[str]:
    """Texts of a source for Python-side pre-tokenization: files line by line."""
    if isinstance(source, (str, os.PathLike)):
        source = [source]
    if isinstance(source, (list, tuple)):
        return read_lines(source, errors, keep_ends=True)
    if isinstance(source, Mapping):
        raise InvalidInputError(
            "a word table is already pre-tokenized: use the default pre_tokenizer"
        )
    return source


def unknown_end_form(config: TokenizerConfig) -> str | None:
    """The end-of-word form of the unknown token (`<unk></w>`) that classic attached models
    trained here hold, or None."""
    if (
        config.kind == "classic"
        and config.unknown == "unk"
        and config.unk_token
        and config.end_of_word == "attached"
    ):
        return config.unk_token + config.end_of_word_symbol
    return None


def assemble(
    config: TokenizerConfig,
    alphabet: list[str],
    merges: list[tuple[str, str]],
    reserved: list[str],
) -> ModelSpec:
    """Gives ids: classic models put `<unk>` (and `<unk></w>` when attached) and the special
    tokens first, then the alphabet, then merged tokens in merge order; byte-level models
    put the 256 byte symbols first (ids 0-255, as GPT-2 and tiktoken do), then merged
    tokens, then special tokens."""
    tokens: list[str] = []
    seen: set[str] = set()

    def add(token: str) -> None:
        if token not in seen:
            seen.add(token)
            tokens.append(token)

    unk = [config.unk_token] if config.unk_token and config.unk_token in reserved else []
    specials = [t for t in reserved if t not in unk]
    unk_end = unknown_end_form(config) if unk else None
    leading = unk + ([unk_end] if unk_end else []) + specials if config.kind == "classic" else []
    for token in itertools.chain(leading, alphabet, (a + b for a, b in merges)):
        add(token)
    if config.kind == "byte":
        for token in specials:
            add(token)
    ids = {token: i for i, token in enumerate(tokens)}
    special_ids = {t: ids[t] for t in specials}
    vocab = {t: i for t, i in ids.items() if t not in special_ids}
    return ModelSpec(config=config, vocab=vocab, merges=list(merges), special_tokens=special_ids)


def count_source(
    counter: _core.WordCounter | _PiecesCounter,
    source: Source,
    *,
    errors: str,
    show_progress: bool,
) -> str:
    """Feeds `source` to the counter; returns a short description of it for the record."""
    if isinstance(source, (str, os.PathLike)):
        source = [source]
    if isinstance(source, Mapping):
        assert isinstance(counter, _core.WordCounter)  # tables skip Python pre-tokenizers
        for word, count in source.items():
            if not isinstance(word, str) or not isinstance(count, int) or count < 0:
                raise InvalidInputError(
                    f"word table entry {word!r}: {count!r} must map a string to a count >= 0"
                )
            if count:
                counter.add_word(word, count)
        return f"word table of {len(source)} words"
    if isinstance(source, (list, tuple)):
        paths: list[str] = []
        for item in source:
            if not isinstance(item, (str, os.PathLike)):
                raise TypeError(f"a list source holds paths; got {type(item).__name__}")
            path = Path(item)
            if not path.is_file():
                raise FileNotFoundError(
                    f"{item}: no such file (a list source holds file paths; to train on "
                    "texts in memory pass an iterator, e.g. iter(texts))"
                )
            paths.append(str(path))
        assert isinstance(counter, _core.WordCounter)  # Python pre-tokenizers read lines
        for name in paths:
            counter.add_file(name, errors=errors, show_progress=show_progress)
        return ", ".join(paths)
    if isinstance(source, Iterable):
        total = 0
        iterator = iter(source)
        while True:
            batch = list(itertools.islice(iterator, _BATCH_TEXTS))
            if not batch:
                break
            for text in batch:
                if not isinstance(text, str):
                    raise TypeError(f"texts must be str, got {type(text).__name__}")
            try:
                counter.add_texts(batch)
            except UnicodeEncodeError:  # lone surrogates: as encoding treats them
                counter.add_texts([utf8_safe(t) for t in batch])
            total += len(batch)
        return f"{total} texts"
    raise TypeError(f"cannot train on a {type(source).__name__}: give paths, texts or a dict")
