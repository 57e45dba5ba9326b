"""learn-bpe and get-vocab as library functions: `learn_codes` and `get_vocab`.

Words are what subword-nmt reads: a file's lines are cut where Python's `str.splitlines`
cuts them (subword-nmt reads through `codecs`), each line is stripped of `\\r`, `\\n` and
spaces at both ends and split at single spaces. So a tab or a no-break space is part of a
word, and a line break other than `\\r`/`\\n` (such as `\\x0b` or U+2028) stays at the end of
the word before it. The core counts the words (`count_nmt_block`) as bytes, in blocks.

`learn_codes` learns as subword-nmt 0.3.8 learns, quirks included (`src/nmt/learn.rs`), so
the codes file is byte-identical to its own on any text; `textbook=True` asks for the
textbook learner instead (true pair counts), which differs from subword-nmt only when a
word holds whitespace other than a space (tabs in code, no-break spaces) or the text `</w>`.
"""

from __future__ import annotations

import os
from typing import IO

from subword import _core
from subword.errors import InvalidInputError
from subword.files import output as open_output
from subword.nmt._input import read_blocks, read_text_chunks, shown
from subword.nmt.codes import Codes, PathLike, format_codes, parse_vocab_line

_MAX_COUNT = 2**63 - 1


def count_words(name: str) -> _core.WordCounter:
    """The word table of a file or stdin ('-'), words split as subword-nmt splits them, in
    order of first appearance. The text stays in the core (counted on all cores)."""
    counter = _core.WordCounter()
    reader = _core.TextBlocks(shown(name))
    for block in read_blocks(name):
        _core.count_nmt_block(counter, reader, block)
    return counter


def read_word_counts(name: str) -> dict[str, int]:
    """learn-bpe --dict-input: 'word count' lines, counts of a repeated word added up."""
    counts: dict[str, int] = {}
    where = shown(name)
    number = 0
    for text in read_text_chunks(name):
        for line in text.splitlines(keepends=True):
            number += 1
            word, count = parse_vocab_line(line, number, where)
            if count < 0:
                raise InvalidInputError(f"{where}: line {number}: the count {count} is negative")
            counts[word] = counts.get(word, 0) + count
    return counts


def learn_codes(
    input: PathLike = "-",
    output: PathLike | None = None,
    *,
    symbols: int = 10000,
    min_frequency: int = 2,
    dict_input: bool = False,
    total_symbols: bool = False,
    textbook: bool = False,
    verbose: bool = False,
    log: IO[str] | None = None,
    progress: bool = False,
) -> Codes:
    """`subword-nmt learn-bpe`: learns up to `symbols` merges from the text file `input`
    ('-': stdin; with `dict_input`, a file of 'word count' lines) and returns them as
    `Codes` (version 0.2); with `output` ('-': stdout) also writes the codes file,
    byte-identical to subword-nmt 0.3.8's.

    min_frequency: stop when the best pair occurs fewer times.
    total_symbols: subtract the number of distinct characters (word-internal and
        word-final) from `symbols` (subword-nmt's `-t`).
    textbook: learn with true pair counts instead of subword-nmt's own statistics (which
        go astray on words holding tabs and other non-space whitespace or `</w>`).
    verbose, log: subword-nmt's messages (with `verbose`, each merge) written to `log`
        (e.g. `sys.stderr`); None: no messages.
    progress: a progress bar on stderr.
    """
    # Checked before any input is read: a bad count must not cost a pass over a corpus.
    if symbols < 0:
        raise InvalidInputError(f"symbols must be at least 0, got {symbols}")
    if min_frequency < 1:
        raise InvalidInputError(f"min_frequency must be at least 1, got {min_frequency}")
    name = os.fspath(input)
    words: list[str] | None = None
    if dict_input:
        table = read_word_counts(name)
        counter = _core.WordCounter()
        for word, count in table.items():
            counter.add_word(word, count)  # 0 too: subword-nmt's statistics see such words
        words = list(table)
    else:
        counter = count_words(name)
    if len(counter) == 0:
        raise InvalidInputError(f"{shown(name)}: no words to learn from (the input is empty)")

    def say(message: str) -> None:
        if log is not None:
            log.write(message + "\n")

    if total_symbols:
        if words is None:
            words = [w for w, _ in counter.words()]
        internal = {c for w in words for c in w[:-1]}
        final = {w[-1] for w in words}
        say(f"Number of word-internal characters: {len(internal)}")
        say(f"Number of word-final characters: {len(final)}")
        say(f"Reducing number of merge operations by {len(internal) + len(final)}")
        symbols -= len(internal) + len(final)

    learned: list[tuple[str, str, int]] = []
    if symbols > 0:
        # Counts past what any corpus reaches mean "all merges" and "none", as in
        # subword-nmt; capped so that they fit the core's integers.
        learned = _core.learn_codes(
            counter,
            num_merges=min(symbols, _MAX_COUNT),
            min_frequency=min(min_frequency, _MAX_COUNT),
            textbook=textbook,
            show_progress=progress,
        )
    if verbose:
        for i, (left, right, count) in enumerate(learned):
            say(f"pair {i}: {left} {right} -> {left}{right} (frequency {count})")
    if len(learned) < symbols:
        say(f"no pair has frequency >= {min_frequency}. Stopping")
    codes = Codes(merges=[(left, right) for left, right, _ in learned], version=(0, 2))
    if output is not None:
        with open_output(os.fspath(output)) as out:
            out.write(format_codes(codes.merges))
    return codes


def get_vocab(input: PathLike = "-", output: PathLike | None = None) -> list[tuple[str, int]]:
    """`subword-nmt get-vocab`: the words of the text file `input` ('-': stdin) with their
    counts, most frequent first (ties in order of first appearance); with `output` ('-':
    stdout) also written as 'word count' lines, byte-identical to subword-nmt's."""
    counter = count_words(os.fspath(input))
    # Most frequent first; sorted() is stable, so ties keep the order of first appearance.
    ranked = sorted(counter.words(), key=lambda item: item[1], reverse=True)
    if output is not None:
        with open_output(os.fspath(output)) as out:
            out.writelines(f"{word} {count}\n" for word, count in ranked)
    return ranked
