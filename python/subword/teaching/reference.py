"""Textbook BPE in plain Python: the reference the Rust core is tested against, and the
algorithm `subword explain` traces step by step.

It recounts every pair after every merge, exactly as the tutorials do, so it is slow on
purpose: read it beside the trace, test against it, but do not train real vocabularies with it.

A word table is a list of (symbols, count) rows, e.g. [(("l", "o", "w", "</w>"), 5), ...].
Its order matters for the "first" tie-break rule, so every function here keeps it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from subword.errors import InvalidInputError

Pair = tuple[str, str]
WordTable = list[tuple[tuple[str, ...], int]]
WordCounts = dict[str, int] | list[tuple[str, int]]

END_OF_WORD = ("separate", "attached", "none")
TIE_BREAKS = ("lexicographic", "first", "subword-nmt")


def split_word(
    word: str, end_of_word: str = "separate", end_of_word_symbol: str = "</w>"
) -> list[str]:
    """A word's initial symbols: its characters, plus the end-of-word marker.

    "separate" appends the marker as its own symbol (l o w </w>), "attached" glues it to the
    last character (l o w</w>), "none" adds nothing (l o w).
    """
    if end_of_word not in END_OF_WORD:
        raise InvalidInputError(
            f"end_of_word={end_of_word!r} is not one of {', '.join(END_OF_WORD)}"
        )
    if not word:
        raise InvalidInputError("cannot split an empty word")
    symbols = list(word)
    if end_of_word == "separate":
        symbols.append(end_of_word_symbol)
    elif end_of_word == "attached":
        symbols[-1] += end_of_word_symbol
    return symbols


def word_table(
    counts: WordCounts, end_of_word: str = "separate", end_of_word_symbol: str = "</w>"
) -> WordTable:
    """The initial word table from {word: count} (or (word, count) rows), in the given order."""
    rows = counts.items() if isinstance(counts, dict) else counts
    return [(tuple(split_word(w, end_of_word, end_of_word_symbol)), c) for w, c in rows]


def pair_counts(table: WordTable) -> dict[Pair, int]:
    """How often each adjacent pair occurs, weighted by word count.

    The dict's order is the order in which pairs are first met, reading the table in order and
    each word left to right; the "first" tie-break rule relies on it.
    """
    counts: dict[Pair, int] = {}
    for symbols, count in table:
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = counts.get(pair, 0) + count
    return counts


def choose_pair(counts: dict[Pair, int], tie_break: str = "lexicographic") -> Pair:
    """The most frequent pair; among equally frequent pairs:

    "lexicographic" takes the smallest pair (compared symbol by symbol as strings),
    "first" the one met first in the table (the order of `counts`, see `pair_counts`),
    "subword-nmt" the greatest pair.
    """
    if tie_break not in TIE_BREAKS:
        raise InvalidInputError(f"tie_break={tie_break!r} is not one of {', '.join(TIE_BREAKS)}")
    if not counts:
        raise InvalidInputError("no pairs to choose from")
    highest = max(counts.values())
    tied = [pair for pair, count in counts.items() if count == highest]
    if tie_break == "first":
        return tied[0]
    if tie_break == "lexicographic":
        return min(tied)
    return max(tied)


def merge_symbols(pair: Pair, symbols: list[str] | tuple[str, ...]) -> list[str]:
    """Replace every non-overlapping occurrence of `pair`, left to right, by its concatenation."""
    first, second = pair
    out: list[str] = []
    i = 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == first and symbols[i + 1] == second:
            out.append(first + second)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def merge_pair(pair: Pair, table: WordTable) -> WordTable:
    """The table with `pair` merged in every word (see `merge_symbols`)."""
    return [(tuple(merge_symbols(pair, symbols)), count) for symbols, count in table]


@dataclass(frozen=True)
class Step:
    """One training iteration: the counts it saw, the pair it merged, and the table after.

    `index` is the merge's rank (0 for the first merge); tutorials print it as index + 1.
    """

    index: int
    pair_counts: dict[Pair, int]
    best: Pair
    count: int
    table_after: WordTable


def learn(
    table: WordTable,
    num_merges: int,
    tie_break: str = "lexicographic",
    min_frequency: int = 1,
    on_step: Callable[[Step], None] | None = None,
) -> tuple[list[Pair], WordTable]:
    """Merge the most frequent pair `num_merges` times; return the merges and the final table.

    Stops early when no pair is left or the most frequent pair occurs fewer than
    `min_frequency` times.
    """
    if tie_break not in TIE_BREAKS:
        raise InvalidInputError(f"tie_break={tie_break!r} is not one of {', '.join(TIE_BREAKS)}")
    if num_merges < 0:
        raise InvalidInputError(f"num_merges must be >= 0, got {num_merges}")
    if min_frequency < 1:
        raise InvalidInputError(f"min_frequency must be >= 1, got {min_frequency}")
    merges: list[Pair] = []
    for index in range(num_merges):
        counts = pair_counts(table)
        if not counts:
            break
        best = choose_pair(counts, tie_break)
        if counts[best] < min_frequency:
            break
        table = merge_pair(best, table)
        merges.append(best)
        if on_step is not None:
            on_step(Step(index, counts, best, counts[best], table))
    return merges, table


def apply(
    symbols: list[str],
    merges: list[Pair],
    on_step: Callable[[int, Pair, list[str]], None] | None = None,
) -> list[str]:
    """Segment one word: repeatedly merge the lowest-rank pair present (all its occurrences,
    left to right) until no pair of the word is a merge. `on_step(rank, pair, symbols_after)`.
    """
    ranks: dict[Pair, int] = {}
    for rank, pair in enumerate(merges):
        ranks.setdefault(pair, rank)  # a repeated merge keeps its first rank
    symbols = list(symbols)
    while True:
        present = [ranks[p] for p in zip(symbols, symbols[1:]) if p in ranks]
        if not present:
            return symbols
        rank = min(present)
        symbols = merge_symbols(merges[rank], symbols)
        if on_step is not None:
            on_step(rank, merges[rank], symbols)
