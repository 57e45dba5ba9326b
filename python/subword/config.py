"""Configurations as dataclasses: what a tokenizer is (TokenizerConfig, ModelSpec) and how
one is trained (TrainConfig). Everything the Rust core is built from passes through here."""

from __future__ import annotations

from dataclasses import dataclass, field

KINDS = ("classic", "byte")
END_OF_WORD = ("separate", "attached", "none")
TIE_BREAKS = ("lexicographic", "first", "subword-nmt")
UNKNOWN = ("unk", "error")
NORMALIZATIONS = (None, "nfc", "nfd", "nfkc", "nfkd", "jamo")
MERGE_RULES = ("merges", "ranks")
ALGORITHMS = ("bpe", "greedy")
CLEANERS = (None, "clip")


def _check_choice(name: str, value: object, choices: tuple) -> None:
    if value not in choices:
        shown = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name}={value!r} is not one of {shown}")


@dataclass
class TokenizerConfig:
    """How text becomes initial symbols, and how tokens become text again.

    kind: "classic" (characters, words split on whitespace) or "byte" (UTF-8 bytes shown
        through the GPT-2 bytes-to-unicode table, split by a regex pre-tokenizer).
    pre_tokenizer: "whitespace", a named regex ("gpt2", "cl100k", "o200k", "clip"), or a
        user regex.
    end_of_word: "separate" (an extra last symbol, e.g. "</w>"), "attached" (suffix on the
        last symbol: "t</w>") or "none".
    unknown: what classic encoding does with a character not in the vocabulary: "unk" gives
        `unk_token`'s id, "error" raises ValueError naming the character and position.
    merge_rule: "merges" applies the merge list by rank (HF, GPT-2, subword-nmt); "ranks"
        merges any adjacent pair whose concatenation is a token, lowest token rank first
        (tiktoken). Both merge one lowest-rank pair at a time, leftmost first.
    ignore_merges: a pre-token that is itself a token is emitted whole (tiktoken, HF's
        `ignore_merges`).
    clean: text cleaning run before normalization: None, or "clip" (CLIP's ftfy fix,
        HTML unescape, whitespace collapse and lower-casing; needs ftfy).
    specials_in_pattern: special tokens are found by the pre-tokenizer's own matches (a
        piece equal to a special token is that token, as CLIP does) instead of being split
        off before pre-tokenization.
    algorithm: "bpe" applies merges; "greedy" takes the longest vocabulary entry at each
        position (seed 003), later pieces of a word in their continuation form
        (`continuation_prefix` + token, "##" by default); needs end_of_word="none".
    normalization: None, "nfc", "nfd", "nfkc", "nfkd", or "jamo" (NFC, then Hangul
        syllables split into conjoining jamo; decoding composes them again).
    korean_drop_tags / korean_spacing: options of the "korean" pre-tokenizer (see
        `subword.korean`): morphemes to leave out, by Kiwi tag or group ("Josa",
        "Punctuation", "Foreign"); whether word starts are marked so decode restores the
        spacing.
    """

    kind: str = "classic"
    normalization: str | None = None
    lowercase: bool = False
    pre_tokenizer: str = "whitespace"
    end_of_word: str = "separate"
    end_of_word_symbol: str = "</w>"
    unk_token: str | None = "<unk>"
    unknown: str = "unk"
    merge_rule: str = "merges"
    ignore_merges: bool = False
    algorithm: str = "bpe"
    continuation_prefix: str = "##"
    clean: str | None = None
    specials_in_pattern: bool = False
    korean_drop_tags: tuple[str, ...] = ()
    korean_spacing: bool = True

    def __post_init__(self) -> None:
        # JSON gives lists: keep a tuple, so configs compare equal after a round trip.
        tags = self.korean_drop_tags
        if not isinstance(tags, (list, tuple)) or not all(isinstance(t, str) for t in tags):
            raise ValueError(f"korean_drop_tags must be a list of tag names, got {tags!r}")
        self.korean_drop_tags = tuple(tags)
        if self.korean_drop_tags and self.pre_tokenizer != "korean":
            raise ValueError("korean_drop_tags needs pre_tokenizer='korean'")
        _check_choice("kind", self.kind, KINDS)
        _check_choice("normalization", self.normalization, NORMALIZATIONS)
        _check_choice("end_of_word", self.end_of_word, END_OF_WORD)
        _check_choice("unknown", self.unknown, UNKNOWN)
        _check_choice("merge_rule", self.merge_rule, MERGE_RULES)
        _check_choice("algorithm", self.algorithm, ALGORITHMS)
        _check_choice("clean", self.clean, CLEANERS)
        if self.algorithm == "greedy":
            if not self.continuation_prefix:
                raise ValueError("continuation_prefix must not be empty for greedy matching")
            if self.kind != "classic" or self.end_of_word != "none":
                raise ValueError(
                    "algorithm='greedy' needs kind='classic' and end_of_word='none' "
                    "(continuation prefixes mark the words instead)"
                )
        if self.end_of_word != "none" and not self.end_of_word_symbol:
            raise ValueError("end_of_word_symbol must not be empty")


@dataclass
class ModelSpec:
    """Everything a tokenizer holds, in plain Python data: what formats read and write.

    vocab maps token strings to ids (byte-level tokens in bytes-to-unicode form, as GPT-2's
    vocab.json has them). merges are in rank order; each pair's concatenation is in vocab.
    special_tokens map literal text to ids and are matched before pre-tokenization.
    """

    config: TokenizerConfig
    vocab: dict[str, int]
    merges: list[tuple[str, str]]
    special_tokens: dict[str, int] = field(default_factory=dict)


@dataclass
class TrainConfig:
    """How a vocabulary is learned (see `subword.train`)."""

    num_merges: int | None = None
    vocab_size: int | None = None
    min_frequency: int = 2
    tie_break: str = "lexicographic"
    special_tokens: tuple[str, ...] = ()
    show_progress: bool | None = None

    def __post_init__(self) -> None:
        _check_choice("tie_break", self.tie_break, TIE_BREAKS)
        if self.num_merges is not None and self.num_merges < 0:
            raise ValueError(f"num_merges must be >= 0, got {self.num_merges}")
        if self.vocab_size is not None and self.vocab_size < 1:
            raise ValueError(f"vocab_size must be >= 1, got {self.vocab_size}")
        if self.min_frequency < 1:
            raise ValueError(f"min_frequency must be >= 1, got {self.min_frequency}")
