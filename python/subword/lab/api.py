"""The lab's answers, as plain JSON-ready dicts: encode (ids, tokens, character spans),
explain (a word's merge steps, as `subword explain --encode` prints them), and the training
replay (the textbook's word-table iterations). The server and the report call these; they
hold no state of their own."""

from __future__ import annotations

from subword.errors import InvalidInputError
from subword.formats.bytes_unicode import bytes_to_token
from subword.teaching import reference
from subword.teaching.trace import explain_apply
from subword.text import utf8_safe
from subword.tokenizer import Tokenizer

# The textbook's word table (Sennrich et al. 2016's example).
DEFAULT_WORDS = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
MAX_REPLAY_MERGES = 200
MAX_REPLAY_WORDS = 200
MAX_WORD_CHARS = 200


def token_text(tok: Tokenizer, id_: int) -> str:
    """What a token stands for in the text: its bytes as UTF-8, a byte that is only part of
    a character as \\xNN (classic tokens: the token string itself)."""
    if tok.config.kind == "classic":
        return tok.id_to_token(id_) or ""
    return tok.decode_bytes([id_]).decode("utf-8", "backslashreplace")


def encode(tok: Tokenizer, text: str) -> dict:
    """`{"ids", "tokens", "texts", "offsets"}`: ids as `tok.encode` gives them (special
    tokens taken as plain text), tokens as `tok.tokenize`, what each stands for, and
    character spans from `encode_with_offsets` (null for a pre-tokenizer whose pieces are
    not spans of the text, such as the Korean morpheme one)."""
    offsets: list[list[int]] | None
    try:
        ids, spans = tok.encode_with_offsets(text, disallowed_special=())
        offsets = [[start, end] for start, end in spans]
    except InvalidInputError:
        ids, offsets = tok.encode_ordinary(text), None
    return {
        "ids": ids,
        "tokens": [tok.id_to_token(i) for i in ids],
        "texts": [token_text(tok, i) for i in ids],
        "offsets": offsets,
        "characters": len(text),
        "bytes": len(utf8_safe(text).encode("utf-8")),
    }


# --- explain --------------------------------------------------------------------------


def explain(tok: Tokenizer, word: str) -> dict:
    """The real encoder's merge steps on one word (one pre-token: a byte-level word keeps
    its leading space, and is shown in the GPT-2 byte alphabet, `Ġ` for a space):
    `{"symbols", "steps": [{"rank", "pair", "symbols"}], "result", "lines", "tokens"}`.
    `lines` is what `subword explain --encode` prints; `tokens` is `tok.tokenize(word)`,
    which `result` equals. When the model takes a word that is a token whole (tiktoken),
    `merges_alone` holds the steps its merges would take instead (else None). A rank is
    the merge's place in the merge list, or for tiktoken models (merged by token rank) the
    merged token's rank."""
    if not isinstance(word, str) or not word or len(word) > MAX_WORD_CHARS:
        raise InvalidInputError(f'"word" must be a string of 1 to {MAX_WORD_CHARS} characters')
    config = tok.config
    if config.algorithm != "bpe":
        raise InvalidInputError("merge steps exist for BPE models only (this one is greedy)")
    if config.clean == "clip":  # the text CLIP's merges see: cleaned and lower-cased
        from subword.formats.clip import clean_text

        word = clean_text(word)
    elif config.lowercase:
        word = word.lower()
    if config.kind == "classic" or config.end_of_word != "none":
        if not word or any(c.isspace() for c in word):
            raise InvalidInputError("this model's words hold no whitespace: give one word")
    if config.kind == "classic":
        symbols = word
    else:
        symbols = bytes_to_token(utf8_safe(word).encode("utf-8"))
    eow, eow_symbol = config.end_of_word, config.end_of_word_symbol
    start = reference.split_word(symbols, eow, eow_symbol)
    vocab = tok.spec.vocab
    whole = "".join(start)
    lines: list[str] = []
    steps: list[dict] = []
    merges_alone: list[dict] | None = None
    if config.ignore_merges and len(start) > 1 and whole in vocab:
        # The piece is itself a token: taken whole, no merge runs (tiktoken, some HF files).
        result = [whole]
        lines += [
            f"word split into characters: {tuple(start)!r}",
            f"whole piece is token {vocab[whole]}: {tuple(result)!r}",
            f"result: {tuple(result)!r}",
        ]
        steps.append({"rank": vocab[whole], "pair": None, "symbols": result})
        # What the merges alone would do with it (the page shows it under the whole step).
        alone: list[dict] = []
        if config.merge_rule == "ranks":
            _explain_ranks(vocab, start, [], alone)
        else:
            reference.apply(
                start,
                tok.merges,
                on_step=lambda r, p, a: alone.append(
                    {"rank": r, "pair": list(p), "symbols": list(a)}
                ),
            )
        merges_alone = alone
    elif config.merge_rule == "ranks":
        result = _explain_ranks(vocab, start, lines, steps)
    else:

        def keep(rank: int, pair: reference.Pair, after: list[str]) -> None:
            steps.append({"rank": rank, "pair": list(pair), "symbols": list(after)})

        reference.apply(start, tok.merges, on_step=keep)
        result = explain_apply(symbols, tok.merges, eow, eow_symbol, lines.append)
    return {
        "word": word,
        "symbols": start,
        "steps": steps,
        "result": list(result),
        "lines": lines,
        "tokens": tok.tokenize(word),
        "merges_alone": merges_alone,
    }


def _explain_ranks(
    vocab: dict[str, int], parts: list[str], lines: list[str], steps: list[dict]
) -> list[str]:
    """tiktoken's rule, in explain's layout: merge the adjacent pair whose concatenation is
    the token of lowest rank (the leftmost among equals) until no pair makes a token."""
    lines.append(f"word split into characters: {tuple(parts)!r}")
    while len(parts) > 1:
        found = [
            (vocab[a + b], i) for i, (a, b) in enumerate(zip(parts, parts[1:])) if a + b in vocab
        ]
        if not found:
            break
        rank, i = min(found)
        pair = (parts[i], parts[i + 1])
        parts = parts[:i] + [pair[0] + pair[1]] + parts[i + 2 :]
        lines.append(f"merge rank {rank} {pair!r}: {tuple(parts)!r}")
        steps.append({"rank": rank, "pair": list(pair), "symbols": list(parts)})
    lines.append(f"result: {tuple(parts)!r}")
    return parts


# --- training replay ------------------------------------------------------------------


def train_replay(
    words: dict[str, int],
    num_merges: int = 10,
    tie_break: str = "first",
    end_of_word: str = "separate",
    end_of_word_symbol: str = "</w>",
) -> dict:
    """The textbook's training on a word table, every iteration kept: `{"table", "steps":
    [{"pair", "count", "pair_counts": [[left, right, n], ...], "table": [[symbols, n], ...],
    "tied": [...]}], "merges"}`. `tied` lists the pairs that had the winning count, so the
    page can show what the tie-break rule decided."""
    if not isinstance(words, dict) or not words:
        raise InvalidInputError('"words" must be a non-empty object {word: count}')
    if len(words) > MAX_REPLAY_WORDS:
        raise InvalidInputError(f'"words" may hold at most {MAX_REPLAY_WORDS} words')
    for word, count in words.items():
        if not word or any(c.isspace() for c in word) or len(word) > MAX_WORD_CHARS:
            raise InvalidInputError(
                f"word {word!r} must be 1 to {MAX_WORD_CHARS} non-space characters"
            )
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise InvalidInputError(f"the count of {word!r} must be a positive integer")
    if isinstance(num_merges, bool) or not isinstance(num_merges, int):
        raise InvalidInputError('"num_merges" must be an integer')
    if not 0 <= num_merges <= MAX_REPLAY_MERGES:
        raise InvalidInputError(f'"num_merges" must be from 0 to {MAX_REPLAY_MERGES}')
    table = reference.word_table(words, end_of_word, end_of_word_symbol)
    steps: list[dict] = []

    def keep(step: reference.Step) -> None:
        tied = [list(p) for p, n in step.pair_counts.items() if n == step.count]
        steps.append(
            {
                "pair": list(step.best),
                "count": step.count,
                "pair_counts": [[a, b, n] for (a, b), n in step.pair_counts.items()],
                "tied": tied,
                "table": _table_json(step.table_after),
            }
        )

    merges, _ = reference.learn(table, num_merges, tie_break, 1, on_step=keep)
    return {
        "table": _table_json(table),
        "steps": steps,
        "merges": [list(m) for m in merges],
        "tie_break": tie_break,
    }


def _table_json(table: reference.WordTable) -> list[list]:
    return [[list(symbols), count] for symbols, count in table]
