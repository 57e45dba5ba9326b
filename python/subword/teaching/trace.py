"""BPE training and segmentation as traces: the lines `subword explain` prints, in the
layout the tutorials use (the word table, the pair counts of each iteration, the pair
chosen, the table after the merge; then a word segmented one merge at a time). Everything
runs on the pure-Python reference (`subword.teaching.reference`), so keep inputs small.
"""

from __future__ import annotations

from collections.abc import Callable

from subword.teaching import reference

Emit = Callable[[str], None]


def format_table(table: reference.WordTable) -> str:
    """The word table as the tutorials print it: {'l o w </w>': 5, ...}."""
    return "{" + ", ".join(f"{' '.join(symbols)!r}: {count}" for symbols, count in table) + "}"


def explain_learn(
    table: reference.WordTable,
    num_merges: int,
    tie_break: str = "first",
    min_frequency: int = 1,
    emit: Emit = print,
) -> list[reference.Pair]:
    """Learn merges on `table`, emitting every iteration; return the merges."""
    emit(f"dictionary: {format_table(table)}")

    def show(step: reference.Step) -> None:
        emit("")
        emit(f"Iteration {step.index + 1}")
        emit(f"pair counts: {step.pair_counts!r}")
        emit(f"new merge: {step.best!r} (count {step.count})")
        emit(f"dictionary: {format_table(step.table_after)}")

    merges, final = reference.learn(table, num_merges, tie_break, min_frequency, on_step=show)
    if len(merges) < num_merges:
        counts = reference.pair_counts(final)
        if not counts:
            reason = "no pair is left"
        else:
            best = max(counts.values())
            reason = f"the most frequent pair occurs {best} times (< {min_frequency})"
        emit("")
        emit(f"stopped after {len(merges)} merges: {reason}")
    emit("")
    emit(f"merges: {merges!r}")
    return merges


def explain_apply(
    word: str,
    merges: list[reference.Pair],
    end_of_word: str = "separate",
    end_of_word_symbol: str = "</w>",
    emit: Emit = print,
) -> list[str]:
    """Segment `word` with `merges`, emitting each merge applied; return the symbols."""
    symbols = reference.split_word(word, end_of_word, end_of_word_symbol)
    emit(f"word split into characters: {tuple(symbols)!r}")

    def show(rank: int, pair: reference.Pair, after: list[str]) -> None:
        emit(f"merge rank {rank} {pair!r}: {tuple(after)!r}")

    result = reference.apply(symbols, merges, on_step=show)
    emit(f"result: {tuple(result)!r}")
    return result
