"""Vocabulary health: which tokens the encoder can never produce, and which a corpus never
uses.

The rule, for a BPE model whose merges are applied by rank (every kind subword loads):
a token t can be produced inside a longer pre-token only if the merges, run on t's own
symbols alone, build exactly [t]. The merges that form t touch only t's span, and at each
step the one taken inside the span is the lowest-ranked pair inside it, whatever happens
around it; so if t's own symbols end as anything else, t never forms anywhere. This is
checked without the pre-tokenizer (a pre-tokenizer sees text, and many byte-level tokens
are not text: a part of a UTF-8 character), on t's symbols as the encoder sees them:
its characters for classic models, its bytes for byte-level ones, with the end-of-word
mark when t ends a word (`low</w>`, CLIP's `photo</w>`).

A token may still be produced whole, with no merges: a model that takes a pre-token that
is itself a token whole (tiktoken, some HF files: `ignore_merges`), or t's text being a
single initial symbol. So the page reports, for every vocabulary entry (special tokens
left out, as they are matched whole):

- `unreachable`: the merges do not build t from its own symbols, and encoding t's own text
  (the full encoder: normalization, pre-tokenizer, ignore_merges) does not give [t]. For a
  model without ignore_merges this is a proof that t never appears. With ignore_merges, t
  could still appear if some text made the pre-tokenizer cut exactly t's text as one piece
  although it cuts t's text differently when alone (only whitespace lookaheads do that).
- `split_alone`: tokens that have a text of their own (valid UTF-8; ending a word, for models
  with an end-of-word mark) which, encoded alone, does not give [t] although the merges
  build t (typically the pre-tokenizer cuts that text, or normalization changes it).

Greedy (WordPiece-style) models have no merges; for them only the own-text check runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from subword import _core
from subword.errors import InvalidInputError
from subword.formats.bytes_unicode import token_to_bytes
from subword.tokenizer import Tokenizer


@dataclass
class Health:
    checked: int
    unreachable: list[int] = field(default_factory=list)
    split_alone: list[int] = field(default_factory=list)
    rule: str = ""

    def as_json(self, tok: Tokenizer, limit: int = 200) -> dict:
        from subword.lab.api import token_text

        def listed(ids: list[int]) -> list[dict]:
            return [
                {"id": i, "token": tok.id_to_token(i), "text": token_text(tok, i)}
                for i in ids[:limit]
            ]

        return {
            "checked": self.checked,
            "unreachable_count": len(self.unreachable),
            "unreachable_share": len(self.unreachable) / self.checked if self.checked else 0.0,
            "unreachable": listed(self.unreachable),
            "split_alone_count": len(self.split_alone),
            "split_alone": listed(self.split_alone),
            "rule": self.rule,
        }


def _merges_only_model(tok: Tokenizer, end_of_word: str) -> _core.Model:
    """The model's merges on bare symbols: a classic core model over the same token strings
    (byte-level tokens in their GPT-2 byte alphabet, one character per byte), with no
    normalization, no unknown symbols and no whole-piece shortcut. `encode_pieces` then runs
    the merges on each string as one word."""
    config = tok.config
    specials = tok.spec.special_tokens
    vocab = [(t, i) for t, i in tok.spec.vocab.items() if t not in specials]
    options = {
        "kind": "classic",
        "end_of_word": end_of_word,
        "end_of_word_symbol": config.end_of_word_symbol,
        "merge_rule": config.merge_rule,
        "ignore_merges": False,
    }
    return _core.Model(vocab, list(tok.spec.merges), [], options)


def _own_text(tok: Tokenizer, token: str) -> str | None:
    """The text that stands for `token`, or None if it is no text (a part of a character)."""
    config = tok.config
    if config.end_of_word != "none":
        if not token.endswith(config.end_of_word_symbol):
            return None  # only inside a word: no text of its own
        token = token.removesuffix(config.end_of_word_symbol)
    if config.algorithm == "greedy" and token.startswith(config.continuation_prefix):
        return None  # a continuation form: never the start of a text
    if config.kind == "classic":
        return token or None
    try:
        return token_to_bytes(token).decode("utf-8") or None
    except (UnicodeDecodeError, KeyError, ValueError):
        return None


def checked_entries(tok: Tokenizer) -> list[tuple[str, int]]:
    """The vocabulary entries the check covers: all but special tokens and the unknown
    token (in each of its forms)."""
    config = tok.config
    specials = tok.spec.special_tokens
    unk = config.unk_token if config.kind == "classic" else None
    skip = {unk, unk + config.end_of_word_symbol} if unk else set()
    return [(t, i) for t, i in tok.spec.vocab.items() if t not in specials and t not in skip]


def check(tok: Tokenizer) -> Health:
    """Checks every ordinary vocabulary entry (see the module's rule)."""
    config = tok.config
    entries = checked_entries(tok)
    built = [True] * len(entries)
    if config.algorithm == "bpe":
        built = _built_by_merges(tok, entries)
    texts = [_own_text(tok, t) for t, _ in entries]
    whole = [False] * len(entries)
    with_text = [k for k, text in enumerate(texts) if text is not None]
    if with_text:
        # The end-of-word mark is never text; a token that ends a word is encoded as
        # its word, and one that does not must not come out with the mark.
        batch = tok.encode_batch([texts[k] for k in with_text])  # type: ignore[misc]
        for k, ids in zip(with_text, batch):
            whole[k] = ids == [entries[k][1]]
    unreachable = [i for (_, i), b, w in zip(entries, built, whole) if not b and not w]
    split_alone = [
        i
        for (_, i), b, w, text in zip(entries, built, whole, texts)
        if b and not w and text is not None
    ]
    rule = (
        "unreachable: the merges on the token's own symbols do not build it, and its own "
        "text does not encode to it"
        if config.algorithm == "bpe"
        else "greedy model: only the own-text check runs"
    )
    return Health(len(entries), sorted(unreachable), sorted(split_alone), rule)


def _built_by_merges(tok: Tokenizer, entries: list[tuple[str, int]]) -> list[bool]:
    """For each entry: do the merges on its own symbols give exactly [it]?"""
    config = tok.config
    symbol = config.end_of_word_symbol
    ends_word = [
        config.end_of_word != "none" and t.endswith(symbol) and t != symbol for t, _ in entries
    ]
    out = [True] * len(entries)  # the end-of-word symbol alone is an initial symbol
    groups = [
        (config.end_of_word, [k for k, e in enumerate(ends_word) if e]),
        ("none", [k for k, e in enumerate(ends_word) if not e and entries[k][0] != symbol]),
    ]
    if config.end_of_word == "none":
        groups = [("none", list(range(len(entries))))]
    for end_of_word, members in groups:
        if not members:
            continue
        model = _merges_only_model(tok, end_of_word)
        words = [
            entries[k][0][: -len(symbol)] if end_of_word != "none" else entries[k][0]
            for k in members
        ]
        for k, ids in zip(members, _encode_each(model, words)):
            out[k] = ids == [entries[k][1]]
    return out


def _encode_each(model: _core.Model, words: list[str]) -> list[list[int] | None]:
    """`encode_pieces` on all words at once; if one holds a symbol outside the alphabet (a
    token no merge can build), word by word, with None for those."""
    try:
        return list(model.encode_pieces(words))
    except InvalidInputError:
        pass
    out: list[list[int] | None] = []
    for word in words:
        try:
            out.append(model.encode_pieces([word])[0])
        except InvalidInputError:
            out.append(None)
    return out


def unused(tok: Tokenizer, used_ids: set[int]) -> list[int]:
    """Ordinary vocabulary ids that never occur in `used_ids` (a corpus's encoding)."""
    specials = set(tok.spec.special_tokens.values())
    return sorted(i for i in tok.spec.vocab.values() if i not in used_ids and i not in specials)
