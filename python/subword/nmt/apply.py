"""apply-bpe: `load_codes` gives a `Segmenter`, which applies the merges of a subword-nmt
codes file to text exactly as subword-nmt 0.3.8's `apply-bpe` (its `BPE` class) does:
`low@@ est`, whitespace kept where subword-nmt keeps it, unknown characters passed through,
vocabulary threshold, glossaries, BPE-dropout. `apply_codes` is the whole command, file to
file. The segmentation runs in the Rust core (`src/nmt/apply.rs`); glossaries are Python
regular expressions, so this module works out how they cut each distinct word and tells the
core once per word.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence

from subword import _core
from subword.errors import InvalidInputError
from subword.files import output as open_output
from subword.nmt._input import read_blocks, shown
from subword.nmt.codes import Codes, PathLike, read_codes, vocabulary_words

# One glossary as three regexes: matching a whole segment, searching in it, splitting it.
_Rule = tuple["re.Pattern[str]", "re.Pattern[str]", "re.Pattern[str]"]


class _Glossaries:
    """subword-nmt's glossary rules. Each glossary is applied in turn to every segment of
    the word: a segment that the glossary matches whole, or does not contain, stays; any
    other is cut around each match (empty pieces dropped). A segment that matches any
    glossary whole is then kept as it is, never segmented."""

    def __init__(self, glossaries: Sequence[str]) -> None:
        self._rules: list[_Rule] = []
        for glossary in glossaries:
            try:
                self._rules.append(
                    (
                        re.compile("^" + glossary + "$"),
                        re.compile(glossary),
                        re.compile("(" + glossary + ")"),
                    )
                )
            except re.error as exc:
                raise InvalidInputError(
                    f"glossary {glossary!r} is not a valid regex: {exc}"
                ) from None
        self._whole = re.compile("^(" + "|".join(glossaries) + ")$")

    def _cut(self, segment: str, rule: _Rule) -> list[str]:
        whole, anywhere, splitter = rule
        if whole.match(segment) or not anywhere.search(segment):
            return [segment]
        parts = splitter.split(segment)
        pieces = [p for p in parts[:-1] if p]
        tail = parts[-1]
        if tail != "":
            pieces.append(tail.strip("\r\n "))
        return pieces

    def isolate(self, word: str) -> list[tuple[str, bool]] | None:
        """The word's segments, each with whether it is kept whole; None if the glossaries
        leave the word alone."""
        segments = [word]
        for rule in self._rules:
            segments = [piece for segment in segments for piece in self._cut(segment, rule)]
        marked = [(s, self._whole.match(s) is not None) for s in segments]
        return None if marked == [(word, False)] else marked


class Segmenter:
    """Segments text with a codes file's merges, as subword-nmt's `BPE` class does."""

    def __init__(
        self,
        codes: Codes,
        *,
        separator: str = "@@",
        vocabulary: Collection[str] | None = None,
        glossaries: Sequence[str] | None = None,
        seed: int | None = None,
    ) -> None:
        if isinstance(glossaries, str):
            glossaries = [glossaries]
        self.codes = codes
        self.separator = separator
        self.glossaries = list(glossaries or [])
        self._glossaries = _Glossaries(self.glossaries) if self.glossaries else None
        if seed is None:
            seed = int.from_bytes(os.urandom(8), "little")  # not `secrets`: 6 ms to import
        self._core = _core.Segmenter(
            list(codes.merges),
            version=".".join(map(str, codes.version)),
            separator=separator,
            vocabulary=sorted(vocabulary) if vocabulary else None,
            glossaries=self._glossaries is not None,
            seed=seed % (1 << 64),
        )

    @property
    def merges(self) -> list[tuple[str, str]]:
        return list(self.codes.merges)

    @property
    def version(self) -> tuple[int, int]:
        return self.codes.version

    def __repr__(self) -> str:
        version = ".".join(map(str, self.codes.version))
        return (
            f"Segmenter(version={version}, merges={len(self.codes.merges)}, "
            f"separator={self.separator!r}, glossaries={len(self.glossaries)})"
        )

    def _check(self, dropout: float) -> float:
        return check_dropout(dropout)

    def _tell_core(self, words: Iterable[str]) -> None:
        if self._glossaries is not None:
            isolate = self._glossaries.isolate
            self._core.add_isolations([(w, isolate(w)) for w in words])

    def segment(self, line: str, *, dropout: float = 0.0) -> str:
        """One line segmented (subword-nmt's `process_line`): words are separated by single
        spaces; leading and trailing spaces and line breaks are kept as they are."""
        dropout = self._check(dropout)
        if self._glossaries is not None:
            self._tell_core(self._core.unanalysed_words(line, False))
        return self._core.process_line(line, dropout)

    def segment_text(self, text: str, *, dropout: float = 0.0) -> str:
        """Every line of `text` segmented, lines cut as subword-nmt cuts a file's lines
        (Python's `str.splitlines`); what `apply-bpe` writes for that input."""
        dropout = self._check(dropout)
        if self._glossaries is not None:
            self._tell_core(self._core.unanalysed_words(text, True))
        return self._core.process_text(text, dropout)

    def segment_blocks(
        self, blocks: Iterable[bytes], name: str, *, dropout: float = 0.0
    ) -> Iterator[bytes]:
        """`segment_text` for an input given as UTF-8 byte blocks, cut anywhere, the last
        one empty (the end of input): the output as UTF-8 blocks. Without glossaries the
        text never becomes a Python string. Invalid UTF-8 is an error naming `name`, the
        byte and the line."""
        dropout = self._check(dropout)
        reader = _core.TextBlocks(name)
        for block in blocks:
            if self._glossaries is None:
                yield self._core.segment_block(reader, block, dropout)
            else:
                text = reader.text(block)
                if text:
                    yield self.segment_text(text, dropout=dropout).encode("utf-8")

    def segment_words(self, words: Iterable[str], *, dropout: float = 0.0) -> list[str]:
        """The output tokens of each word, flattened (subword-nmt's `segment_tokens`):
        `["lowest", "new"]` → `["low@@", "est", "new"]`. Empty words are skipped."""
        dropout = self._check(dropout)
        words = list(words)
        if self._glossaries is not None:
            self._tell_core(dict.fromkeys(w for w in words if w))
        return self._core.segment_tokens(words, dropout)


def check_limit(limit: int | None) -> None:
    """apply-bpe's `--merges`: a count of merges, or -1 for all."""
    if limit is not None and limit < -1:
        raise InvalidInputError(f"limit must be -1 (all merges) or at least 0, got {limit}")


def check_dropout(dropout: float) -> float:
    if not 0.0 <= dropout <= 1.0:  # also refuses NaN
        raise InvalidInputError(f"dropout must be between 0 and 1, got {dropout}")
    return float(dropout)


def load_codes(
    path: PathLike,
    *,
    separator: str = "@@",
    vocabulary: PathLike | Mapping[str, int] | Collection[str] | None = None,
    vocabulary_threshold: int | None = None,
    glossaries: Sequence[str] | None = None,
    limit: int | None = None,
    seed: int | None = None,
    merges: int | None = None,
) -> Segmenter:
    """Loads a subword-nmt codes file (version 0.1 or 0.2) for segmenting text exactly as
    `subword-nmt apply-bpe` does.

    separator: appended to every piece of a word but the last (`@@`).
    vocabulary, vocabulary_threshold: a get-vocab file (or a word → count dict); merges
        that make a piece absent from it (or rarer than the threshold) are undone.
    glossaries: words or Python regular expressions that are never split nor merged into.
    limit: use only the first `limit` merges (None or -1: all; apply-bpe's `--merges`).
    seed: for BPE-dropout (`segment(..., dropout=p)`); reproducible for a given seed.
    merges: deprecated name of `limit`.
    """
    if merges is not None:
        warnings.warn(
            "load_codes(merges=) is deprecated: use limit=", DeprecationWarning, stacklevel=2
        )
        if limit is not None and limit != merges:
            raise InvalidInputError(f"limit={limit} and merges={merges} disagree: use limit")
        limit = merges
    check_limit(limit)
    return Segmenter(
        read_codes(path, limit=limit),
        separator=separator,
        vocabulary=vocabulary_words(vocabulary, vocabulary_threshold),
        glossaries=glossaries,
        seed=seed,
    )


def apply_codes(
    codes: PathLike,
    input: PathLike = "-",
    output: PathLike | None = "-",
    *,
    separator: str = "@@",
    vocabulary: PathLike | Mapping[str, int] | Collection[str] | None = None,
    vocabulary_threshold: int | None = None,
    glossaries: Sequence[str] | None = None,
    limit: int | None = None,
    dropout: float = 0.0,
    seed: int | None = None,
) -> None:
    """`subword-nmt apply-bpe`: segments the file `input` ('-': stdin) with the codes file
    `codes` and writes the result to `output` ('-' or None: stdout; a file is written
    through a temporary file renamed into place). Options as `load_codes`."""
    # Checked before the codes or the text are read.
    check_limit(limit)
    check_dropout(dropout)
    segmenter = load_codes(
        codes,
        separator=separator,
        vocabulary=vocabulary,
        vocabulary_threshold=vocabulary_threshold,
        glossaries=glossaries,
        limit=limit,
        seed=seed,
    )
    name = os.fspath(input)
    target = None if output is None else os.fspath(output)
    with open_output(target, "wb") as out:
        for piece in segmenter.segment_blocks(read_blocks(name), shown(name), dropout=dropout):
            out.write(piece)
