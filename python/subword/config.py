"""Configurations as dataclasses: what a tokenizer is (`TokenizerConfig`, `ModelSpec`) and
how one is trained (`TrainConfig`). Each option is declared here once, with its default,
choices and help (`subword.options`); the checks, the command-line flags and the README's
option table come from these declarations. Everything the Rust core is built from passes
through here."""

from __future__ import annotations

from dataclasses import dataclass, field

from subword.errors import InvalidInputError
from subword.options import option, validate

KINDS = ("classic", "byte")
END_OF_WORD = ("separate", "attached", "none")
TIE_BREAKS = ("lexicographic", "first", "subword-nmt")
UNKNOWN = ("unk", "error")
NORMALIZATIONS = (None, "nfc", "nfd", "nfkc", "nfkd", "jamo")
MERGE_RULES = ("merges", "ranks")
ALGORITHMS = ("bpe", "greedy")
CLEANERS = (None, "clip")
ERRORS = ("strict", "replace")


@dataclass
class TokenizerConfig:
    """How text becomes initial symbols, and how tokens become text again. See the README's
    option table (or `subword.options.markdown_table()`) for each field."""

    kind: str = option(
        "classic",
        choices=KINDS,
        help="classic: characters, words split on whitespace; byte: UTF-8 bytes shown through "
        "the GPT-2 bytes-to-unicode table, split by a regex pre-tokenizer",
    )
    pre_tokenizer: str = option(
        "whitespace",
        metavar="NAME|REGEX",
        help="whitespace (Python's str.split), a named regex (gpt2, cl100k, o200k, llama3, "
        "clip), korean (morphemes by Kiwi) or a regex of your own; `train` default: "
        "whitespace for classic, gpt2 for byte",
    )
    normalization: str | None = option(
        None,
        choices=NORMALIZATIONS,
        help="Unicode normalization before pre-tokenizing; jamo: NFC, then Hangul syllables "
        "split into conjoining jamo (decoding composes them again); `train` default with "
        "pre_tokenizer korean: nfc",
    )
    lowercase: bool = option(False, help="lower-case the text before pre-tokenizing")
    end_of_word: str = option(
        "separate",
        choices=END_OF_WORD,
        help="separate: an extra last symbol (`</w>`); attached: a suffix of the last symbol "
        "(`t</w>`, subword-nmt and CLIP); none: GPT-2 style; `train` default: separate for "
        "classic BPE, none for byte-level and greedy",
    )
    end_of_word_symbol: str = option(
        "</w>", metavar="SYMBOL", help="the end-of-word symbol (or suffix)"
    )
    unk_token: str | None = option(
        "<unk>",
        metavar="TOKEN",
        help="the token for characters outside the alphabet (classic models)",
    )
    unknown: str = option(
        "unk",
        choices=UNKNOWN,
        help="classic encoding of a character outside the alphabet: unk gives unk_token's id, "
        "error raises naming the character and position",
    )
    algorithm: str = option(
        "bpe",
        choices=ALGORITHMS,
        help="bpe applies merges by rank; greedy takes the longest vocabulary entry at each "
        "position (WordPiece-style), later pieces of a word in continuation form",
    )
    continuation_prefix: str = option(
        "##", metavar="PREFIX", help="greedy: the prefix of a word's later pieces"
    )
    korean_drop_tags: tuple[str, ...] = option(
        (),
        metavar="TAG",
        help="korean pre-tokenizer: morphemes to leave out, by Kiwi tag or group (Josa, "
        "Punctuation, Foreign)",
    )
    korean_spacing: bool = option(
        True,
        help="korean pre-tokenizer: mark word starts so decode restores the spacing",
    )
    merge_rule: str = option(
        "merges",
        choices=MERGE_RULES,
        cli=False,
        help="merges: the merge list by rank (HF, GPT-2, subword-nmt); ranks: any adjacent "
        "pair whose concatenation is a token, lowest token rank first (tiktoken)",
    )
    ignore_merges: bool = option(
        False,
        cli=False,
        help="a pre-token that is itself a token is emitted whole (tiktoken, HF)",
    )
    clean: str | None = option(
        None,
        choices=CLEANERS,
        cli=False,
        help="text cleaning before normalization: clip is CLIP's (ftfy, HTML unescape, "
        "whitespace collapse, lower case; needs ftfy)",
    )
    specials_in_pattern: bool = option(
        False,
        cli=False,
        help="special tokens are found among the pre-tokenizer's pieces (CLIP) instead of "
        "being split off before it",
    )

    def __post_init__(self) -> None:
        validate(self)
        if self.korean_drop_tags and self.pre_tokenizer != "korean":
            raise InvalidInputError("korean_drop_tags needs pre_tokenizer='korean'")
        if self.algorithm == "greedy":
            if not self.continuation_prefix:
                raise InvalidInputError("continuation_prefix must not be empty for greedy matching")
            if self.kind != "classic" or self.end_of_word != "none":
                raise InvalidInputError(
                    "algorithm='greedy' needs kind='classic' and end_of_word='none' "
                    "(continuation prefixes mark the words instead)"
                )
        if self.end_of_word != "none" and not self.end_of_word_symbol:
            raise InvalidInputError("end_of_word_symbol must not be empty")


def id_limit(entries: int) -> int:
    """Ids (and tiktoken ranks) must stay below this for a model of `entries` tokens: they
    index tables in the core, so one forged huge id must be an error, not a table of that
    size. Gaps are allowed (tiktoken leaves some before its special tokens), up to as many
    as there are entries, plus 1024."""
    return 2 * entries + 1024


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
    # A SentencePiece model's own settings (scores, piece types, normalizer); None for the
    # rest. Its merges are derived from the scores, for formats that need a merge list.
    sentencepiece: SentencePieceSettings | None = None


@dataclass(frozen=True)
class SentencePieceSettings:
    """What a SentencePiece BPE `.model` file holds beyond a vocabulary: each piece's score
    and type (by id), byte fallback, what an unknown piece decodes to, the normalizer (its
    rule name, precompiled character map and whitespace rules), and the file itself."""

    pieces: tuple[tuple[str, float, str], ...]
    byte_fallback: bool
    unk_surface: str
    normalizer_name: str
    precompiled_charsmap: bytes
    add_dummy_prefix: bool
    remove_extra_whitespaces: bool
    escape_whitespaces: bool
    model_file: bytes = field(repr=False)


@dataclass
class TrainConfig:
    """How a vocabulary is learned (see `subword.train`)."""

    num_merges: int | None = option(
        None,
        minimum=0,
        aliases=("--merges",),
        help="stop after this many merges",
    )
    vocab_size: int | None = option(
        None,
        minimum=1,
        help="stop when the vocabulary (special tokens + alphabet + merged tokens) has this "
        "many entries",
    )
    min_frequency: int = option(2, minimum=1, help="stop when no pair occurs this many times")
    tie_break: str = option(
        "lexicographic",
        choices=TIE_BREAKS,
        help="which pair wins among equally frequent ones: lexicographic (the smallest), "
        "first (met first in the word table), subword-nmt (the greatest)",
    )
    special_tokens: tuple[str, ...] = option(
        (),
        flag="--special-token",
        metavar="TOKEN",
        help="tokens matched whole before pre-tokenization, given ids first",
    )
    errors: str = option(
        "strict",
        choices=ERRORS,
        help="invalid UTF-8 in a file: strict raises naming the file and byte, replace "
        "substitutes U+FFFD",
    )
    show_progress: bool | None = option(
        None,
        cli=False,
        help="progress bars on stderr; None: when stderr is a terminal",
    )

    def __post_init__(self) -> None:
        validate(self)
        seen: set[str] = set()
        for token in self.special_tokens:
            if not token:
                raise InvalidInputError("special_tokens: a special token must not be empty")
            if token in seen:
                raise InvalidInputError(f"special_tokens: {token!r} is given twice")
            seen.add(token)


def check_ids(spec: ModelSpec) -> None:
    """Every id is an integer below `id_limit` of the number of entries."""
    entries = len(spec.vocab) + len(spec.special_tokens)
    limit = id_limit(entries)
    for where, table in (("vocab", spec.vocab), ("special_tokens", spec.special_tokens)):
        for token, id_ in table.items():
            if isinstance(id_, bool) or not isinstance(id_, int) or not 0 <= id_ < limit:
                raise InvalidInputError(
                    f"{where}: the id of {token!r} is {id_!r}; with {entries} entries ids "
                    f"must be integers from 0 to {limit - 1}"
                )
