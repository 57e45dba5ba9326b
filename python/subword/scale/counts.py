"""Word counts as a first-class product: `subword.count` makes them (the Rust counter,
streaming, every core), `WordCounts` merges, prunes and saves them, `load_counts` and
`merge_count_files` read them back, and `subword.train` trains from them.

BPE training needs only the table word → count, and such tables add up in any order: count
shards anywhere, merge the tables, train once. For the `lexicographic` and `subword-nmt`
tie rules the merges are the same as training on the whole corpus, for any sharding and
merge order. `first` picks the pair met first in the order words were first read: a merge
in memory keeps that order (the left table's words, then the right one's new words), so
shards merged in corpus order train exactly as the corpus; count files are sorted by word
and lose it, and training them with `first` is refused.
"""

from __future__ import annotations

import inspect
import io
import os
from collections.abc import Iterable
from typing import Any

from subword import _core
from subword.config import TokenizerConfig, TrainConfig
from subword.errors import InvalidInputError
from subword.scale.countfile import (
    FIRST_APPEARANCE,
    SORTED,
    CountReader,
    CountWriter,
    first_difference,
    is_count_file,
    merge_sorted,
    read_bytes,
    write_counts,
)

# The options that change what is counted, as `subword.train` names them (declared in
# `subword.config`): a count file records them, and files that differ in one do not merge.
# End-of-word settings are not among them: they apply when words become symbols, in
# training, after counting. Neither is `errors`: it decides whether invalid UTF-8 stops
# counting, and a table either exists or does not.
COUNT_SETTINGS = (
    "kind",
    "pre_tokenizer",
    "normalization",
    "lowercase",
    "special_tokens",
    "korean_drop_tags",
    "korean_spacing",
)
_T = TrainConfig
_M = TokenizerConfig


class WordCounts:
    """A word table with the settings that produced it. Tables add up: `merge` and
    `merge_all` keep first-appearance order (left, then right's new words)."""

    def __init__(
        self,
        counter: _core.WordCounter,
        settings: dict[str, Any],
        *,
        ordered: bool = True,
        pruned: Iterable[str] = (),
        source: str = "",
    ) -> None:
        self._counter = counter
        self._settings = {k: _plain(settings[k]) for k in COUNT_SETTINGS}
        self.ordered = ordered
        self.pruned = tuple(sorted(set(pruned)))
        self.source = source

    # --- what it holds -------------------------------------------------------------------
    @property
    def counter(self) -> _core.WordCounter:
        """The core's table (what `_core.train` reads)."""
        return self._counter

    @property
    def settings(self) -> dict[str, Any]:
        """The counting settings (see `COUNT_SETTINGS`)."""
        return dict(self._settings)

    def __len__(self) -> int:
        return len(self._counter)

    @property
    def total(self) -> int:
        """The sum of all counts (the number of words counted)."""
        return self._counter.total()

    def items(self) -> list[tuple[str, int]]:
        """(word, count) pairs in table order (first appearance, or sorted if loaded)."""
        return self._counter.words()

    def to_dict(self) -> dict[str, int]:
        return dict(self._counter.words())

    def most_common(self, n: int | None = None) -> list[tuple[str, int]]:
        """The `n` most frequent words (all if None), equal counts by word."""
        ranked = sorted(self._counter.words(), key=lambda wc: (-wc[1], wc[0]))
        return ranked if n is None else ranked[:n]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, WordCounts):
            return NotImplemented
        return self._settings == other._settings and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        pruned = f", pruned {', '.join(self.pruned)}" if self.pruned else ""
        return (
            f"<WordCounts {len(self)} words, total {self.total}, "
            f"kind={self._settings['kind']!r}, "
            f"pre_tokenizer={self._settings['pre_tokenizer']!r}{pruned}>"
        )

    def describe(self) -> str:
        return self.source or f"counts of {len(self)} words"

    # --- combining ---------------------------------------------------------------------
    def merge(self, other: WordCounts) -> WordCounts:
        """The sum of two tables (a new one); their settings must be equal."""
        return WordCounts.merge_all([self, other])

    @classmethod
    def merge_all(cls, items: Iterable[WordCounts | str | os.PathLike[str]]) -> WordCounts:
        """The sum of tables and count files, in the order given (which is the order
        `tie_break="first"` sees). All must have the same counting settings."""
        parts = [load_counts(i) if not isinstance(i, WordCounts) else i for i in items]
        if not parts:
            raise InvalidInputError("merge_all needs at least one WordCounts or count file")
        first = parts[0]
        counter = _core.WordCounter()
        for i, part in enumerate(parts):
            check_same_settings(first.settings, part.settings, "the first counts", f"#{i}")
            counter.absorb(part.counter)
        return WordCounts(
            counter,
            first.settings,
            ordered=all(p.ordered for p in parts),
            pruned=[p for part in parts for p in part.pruned],
            source=f"{len(parts)} merged counts",
        )

    def prune(self, *, min_count: int | None = None, max_words: int | None = None) -> WordCounts:
        """Keeps words counted at least `min_count` times, then the `max_words` most
        frequent (equal counts: the smaller word first). Bounds memory; training on pruned
        counts can differ from training on the corpus (see docs/scaling.md)."""
        for name, value in (("min_count", min_count), ("max_words", max_words)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise InvalidInputError(f"{name} must be an integer, got {value!r}")
            if value is not None and value < 1:
                raise InvalidInputError(f"{name} must be >= 1, got {value}")
        items = self._counter.words()
        if min_count is not None:
            items = [(w, c) for w, c in items if c >= min_count]
        if max_words is not None and len(items) > max_words:
            keep = {w for w, _ in sorted(items, key=lambda wc: (-wc[1], wc[0]))[:max_words]}
            items = [(w, c) for w, c in items if w in keep]
        counter = _core.WordCounter()
        counter.add_counts(items)
        done = [f"min_count={min_count}"] if min_count is not None else []
        done += [f"max_words={max_words}"] if max_words is not None else []
        return WordCounts(
            counter,
            self._settings,
            ordered=self.ordered,
            pruned=[*self.pruned, *done],
            source=self.source,
        )

    # --- files -------------------------------------------------------------------------
    def header(self, order: str) -> dict[str, Any]:
        return {
            "format": "subword-counts",
            "order": order,
            "settings": self._settings,
            "pruned": list(self.pruned),
        }

    def save(self, path: str | os.PathLike[str]) -> None:
        """Writes a count file (sorted by word; see `subword.scale.countfile`); the file
        appears whole or not at all."""
        from subword.files import atomic_open

        with atomic_open(path, "wb") as f:
            write_counts(f, self.header(SORTED), sorted(self._counter.words()))

    def to_bytes(self) -> bytes:
        """The count-file form in table order (what pickling sends)."""
        buffer = io.BytesIO()
        write_counts(buffer, self.header(FIRST_APPEARANCE), self._counter.words())
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes, name: str = "<counts>") -> WordCounts:
        header, entries = read_bytes(data, name)
        return _from_header(header, entries, name)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_unpickle, (self.to_bytes(), self.ordered, self.source))


def _unpickle(data: bytes, ordered: bool, source: str) -> WordCounts:
    counts = WordCounts.from_bytes(data, "<pickled counts>")
    counts.ordered = ordered
    counts.source = source
    return counts


def _plain(value: Any) -> Any:
    return tuple(value) if isinstance(value, (list, tuple)) else value


def _from_header(header: dict[str, Any], entries: list[tuple[str, int]], name: str) -> WordCounts:
    from subword.errors import FormatError

    settings = header["settings"]
    missing = [k for k in COUNT_SETTINGS if k not in settings]
    if missing:
        raise FormatError(f"the header lacks the setting {missing[0]!r}", path=name)
    counter = _core.WordCounter()
    counter.add_counts(entries)
    return WordCounts(
        counter,
        settings,
        ordered=header.get("order") == FIRST_APPEARANCE,
        pruned=header.get("pruned") or (),
        source=name,
    )


def check_same_settings(a: dict[str, Any], b: dict[str, Any], name_a: str, name_b: str) -> None:
    """InvalidInputError naming the first counting setting in which `a` and `b` differ."""
    differ = first_difference(a, b)
    if differ is not None:
        raise InvalidInputError(
            f"cannot merge counts made with different {differ}: {name_a} has "
            f"{differ}={a.get(differ)!r}, {name_b} has {differ}={b.get(differ)!r}; count "
            "every shard with the same settings"
        )


def load_counts(path: str | os.PathLike[str]) -> WordCounts:
    """Reads a count file (FormatError naming the byte offset if it is damaged)."""
    name = os.fspath(path)
    with open(path, "rb") as f:
        reader = CountReader(f, name)
        entries = list(reader.entries())
    return _from_header(reader.header, entries, name)


def merge_count_files(
    paths: Iterable[str | os.PathLike[str]], output: str | os.PathLike[str]
) -> tuple[int, int]:
    """Sums count files into one, streaming: memory holds one block per input, whatever
    the tables' sizes. Returns (words, total) of the result."""
    from contextlib import ExitStack

    from subword.files import atomic_open

    names = [os.fspath(p) for p in paths]
    if not names:
        raise InvalidInputError("give at least one count file to merge")
    with ExitStack() as stack:
        readers = [CountReader(stack.enter_context(open(n, "rb")), n) for n in names]
        for reader in readers:
            if not reader.sorted:
                raise InvalidInputError(f"{reader.name}: not a sorted count file")
            check_same_settings(
                readers[0].header["settings"], reader.header["settings"], names[0], reader.name
            )
        pruned = sorted({p for r in readers for p in r.header.get("pruned") or ()})
        header = dict(readers[0].header, pruned=pruned)
        with atomic_open(output, "wb") as out:
            writer = CountWriter(out, header)
            writer.add_all(merge_sorted(readers))
            writer.close()
    return writer.words, writer.total


def count(
    source: Any,
    *,
    kind: str = _M.kind,
    pre_tokenizer: str | None = None,
    normalization: str | None = _M.normalization,
    lowercase: bool = _M.lowercase,
    special_tokens: Iterable[str] = _T.special_tokens,
    errors: str = _T.errors,
    korean_drop_tags: Iterable[str] = _M.korean_drop_tags,
    korean_spacing: bool = _M.korean_spacing,
    show_progress: bool | None = _T.show_progress,
) -> WordCounts:
    """The word table of `source` (paths, texts or a `dict` word table, as `subword.train`
    takes them), counted by the Rust core as `train` would count it. The options are
    `train`'s counting options, with the same defaults (pre_tokenizer: whitespace for
    classic, gpt2 for byte)."""
    import sys

    from subword.training import count_words, counting_defaults

    if isinstance(special_tokens, str):
        raise InvalidInputError("special_tokens must be a list of strings, not one string")
    if isinstance(korean_drop_tags, str):
        korean_drop_tags = (korean_drop_tags,)
    train_settings = TrainConfig(special_tokens=tuple(special_tokens), errors=errors)
    pre_tokenizer, normalization = counting_defaults(kind, pre_tokenizer, normalization)
    config = TokenizerConfig(
        kind=kind,
        pre_tokenizer=pre_tokenizer,
        normalization=normalization,
        lowercase=lowercase,
        end_of_word="none",
        korean_drop_tags=tuple(korean_drop_tags),
        korean_spacing=korean_spacing,
    )
    progress = sys.stderr.isatty() if show_progress is None else show_progress
    counter, described = count_words(config, source, errors=errors, show_progress=progress)
    settings = {name: getattr(config, name, None) for name in COUNT_SETTINGS}
    settings["special_tokens"] = train_settings.special_tokens
    return WordCounts(counter, settings, source=described)


def counts_of(source: Any) -> WordCounts | None:
    """`source` as counts if it is a `WordCounts` or the path of a count file, else None."""
    if isinstance(source, WordCounts):
        return source
    if isinstance(source, (str, os.PathLike)) and is_count_file(source):
        return load_counts(source)
    return None


def settings_for_training(counts: WordCounts, given: dict[str, Any]) -> dict[str, Any]:
    """The counting settings training from `counts` uses: the counts' own. A setting given
    with another value than its default and the counts' is an error that names it."""
    from subword.training import train

    defaults = inspect.signature(train).parameters
    recorded = counts.settings
    for name, value in given.items():
        value = _plain(value)
        if value != _plain(defaults[name].default) and value != recorded[name]:
            raise InvalidInputError(
                f"{name}={value!r} differs from the setting the counts were made with "
                f"({name}={recorded[name]!r}): leave it out, or count again with it"
            )
    return recorded
