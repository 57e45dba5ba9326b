"""The hand-written pre-tokenizers for gpt2, cl100k, o200k, llama3 and clip give exactly the
pieces of fancy-regex on the same pattern: on every line and the whole text of every corpus,
on arbitrary Unicode, and on text built from the fragments where the patterns' branches meet.
Python's `regex` module, which tiktoken's and CLIP's patterns were written for, is a second
oracle."""

from __future__ import annotations

import functools

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from peers import CORPORA, corpus_text, peer

from subword._core import _testing
from subword.pre_tokenizers.patterns import PATTERNS

FAST = ["gpt2", "cl100k", "o200k", "llama3", "clip"]
# The patterns whose matches cover every character (CLIP's drops whitespace).
TILING = ["gpt2", "cl100k", "o200k", "llama3"]


def assert_same(name: str, texts: list[str]) -> None:
    """Fast and regex pieces agree on every text; the comparison runs in Rust."""
    pattern = PATTERNS[name]
    diff = _testing.pretokenize_first_difference(pattern, texts)
    if diff is None:
        return
    text, piece = diff
    fast = _testing.pretokenize(pattern, texts[text])
    regex = _testing.pretokenize(pattern, texts[text], use_fast=False)
    around = slice(max(0, piece - 3), piece + 3)
    pytest.fail(
        f"{name}: text {text} ({texts[text][:200]!r}...) differs at piece {piece}:\n"
        f"  fast  {fast[around]!r}\n  regex {regex[around]!r}"
    )


def test_fast_patterns_are_the_named_patterns():
    assert sorted(_testing.FAST_PATTERNS) == sorted(FAST)
    for name in FAST:
        assert _testing.FAST_PATTERNS[name] == PATTERNS[name]


def test_pretokenize_uses_either_path_and_other_patterns_use_the_regex():
    text = "Hello world! I'm 12345 \n\n  ok"
    for name in FAST:
        fast = _testing.pretokenize(PATTERNS[name], text)
        assert fast == _testing.pretokenize(PATTERNS[name], text, use_fast=False)
        assert "".join(fast) == (text if name in TILING else "".join(text.split()))
    assert _testing.pretokenize(r"\w+", "a bc") == ["a", "bc"]
    with pytest.raises(ValueError, match="no fast splitter"):
        _testing.pretokenize_first_difference(r"\w+", ["a"])


@functools.lru_cache(maxsize=1)
def _text(corpus: str) -> str:
    return corpus_text(corpus)


@pytest.mark.corpus
@pytest.mark.parametrize("corpus", CORPORA)
@pytest.mark.parametrize("name", FAST)
def test_every_line_and_whole_corpus(name, corpus):
    text = _text(corpus)
    assert_same(name, [text])
    assert_same(name, text.splitlines(keepends=True))
    if name == "clip":
        # What CLIP's pattern meets after CLIP's cleaning: lower-cased text.
        assert_same(name, [text.lower()])


# --- property tests ---------------------------------------------------------------------

# Where the branches of the patterns meet: contractions in every case (and ſ, which folds
# to s), line breaks, whitespace before letters/punctuation/line breaks/the end, numbers by
# ones to sevens, marks, title-case and modifier letters, odd whitespace, emoji, NUL, astral
# letters, the `/` o200k keeps after punctuation, and CLIP's special tokens (whole, in
# part, with ſ) and U+0345, which its pattern drops.
CONTRACTIONS = [
    "'" + tail
    for tail in ["s", "S", "ſ", "d", "D", "m", "M", "t", "T"]
    + ["ll", "LL", "lL", "Ll", "ve", "VE", "vE", "re", "RE", "rE", "l", "v", "r", "x", ""]
]
# fmt: off
FRAGMENTS = CONTRACTIONS + [
    "\r\n", "\r", "\n", "\n\n", " ", "  ", "   ", "\t", "\x0b", "\x0c",
    "\xa0", "\u2028", "\u2029", "\u3000", "\x85", "\u200b", "\x1f", "\x00",
    "1", "12", "123", "1234", "12345", "123456", "1234567", "٣٤٥", "½", "Ⅻ", "²",
    "\u0301", "\u0308\u0323", "e\u0301", "ǅ", "ǈ", "ᾈ", "ʰ", "々", "ー", "ˆ",
    "a", "z", "A", "Z", "é", "É", "σ", "Σ", "ß", "ẞ", "İ", "ı", "K", "\u212a",
    "한", "국어", "中文", "ا", "𐐀", "𐐨", "𝐀", "𠀀", "😀", "👍🏽", "🇫🇷",
    "Hello", "HELLO", "hello", "HeLLo", "camelCase", "don't", "WE'LL",
    "!", ".", ",", "?", "/", "//", "(", ")", '"', "-", "—", "…", "#", "@",
    "<|startoftext|>", "<|ſtartoftext|>", "<|endoftext|>", "<|", "|>", "<", "\u0345",
]
# fmt: on

fragment_text = st.lists(st.sampled_from(FRAGMENTS), max_size=24).map("".join)
unicode_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=80)
mixed_text = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.characters(exclude_categories=("Cs",))),
    max_size=30,
).map("".join)

PROPERTY = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(texts=st.lists(unicode_text, min_size=1, max_size=20))
def test_arbitrary_unicode(texts):
    for name in FAST:
        assert_same(name, texts)


@PROPERTY
@given(texts=st.lists(fragment_text, min_size=1, max_size=20))
# Found here: o200k's `(?i:'re)` takes `'rE`, whose capital starts no word (a block put one).
@example(texts=["'s'rE's12345", "ab " * 10 + "wo'rEx and I'lL" + " text here" * 8])
# A Hangul syllable is in both of o200k's sets of word letters: a capital after one starts
# a word or not by what follows (`한A` / `한A한`), in blocks and in last blocks.
@example(texts=["한국어 " * 12 + "한A한 a한A한 한A 한Ж한 ÀB한 한'S", "대한민국 " * 5 + "한A한 한A"])
# So is a CJK ideograph (U+4E00 to U+9FFF, which blocks take as letters); the range's ends
# and neighbours (U+4DFF, a hexagram; U+4DBF, Extension A) with punctuation between.
@example(
    texts=[
        "在这种规模的项目中很难避免遇到与你意见不和，" * 3
        + "中A中 a中A中 中A 中'S \u4e00\u9fff\u4dff中 “中”……——",
        "\u4dbf" + "规模的项目中" * 8 + "。中文A",
    ]
)
# And kana (which blocks take as letters) but their sound marks, `゠` and `・`, which is
# punctuation that leads the word after it.
@example(
    texts=[
        "この文はテストのために書いたもので、ひらがなとカタカナを含みます。" * 3
        + "カナA カナ'S ・カナ ・・カナ ファイル・システム \u3041\u3096\u309d\u30fc\u30ff",
        "\u3040" + "データベース" * 6 + "\u3099\u309b\u30a0か\u3097ナ\u3100",
    ]
)
def test_tricky_fragments(texts):
    for name in FAST:
        assert_same(name, texts)


@PROPERTY
@given(texts=st.lists(mixed_text, min_size=1, max_size=20))
def test_fragments_mixed_with_any_character(texts):
    for name in FAST:
        assert_same(name, texts)


@settings(max_examples=300, deadline=None)
@given(text=fragment_text)
def test_python_regex_agrees_on_fragments(text):
    regex = peer("regex")
    for name in FAST:
        assert _testing.pretokenize(PATTERNS[name], text) == regex.findall(PATTERNS[name], text)


@pytest.mark.parametrize("name", FAST)
def test_python_regex_agrees_on_examples(name):
    regex = peer("regex")
    texts = [
        "I'm sure they'll've done it, 'twas 1999!\r\n\r\n",
        "  leading and trailing   \n\t \n",
        "HELLOworld HelloWorld ÀÉÎõü ǅungla ʰa Aʰb x'ſ X'S\u00a0y",
        "e\u0301\u0301 \u0301a 1234567 ٣٤٥٦ 😀😀 a😀 👍🏽",
        "!\n/ !!\n\n//x ;\r\n//y (hello) [world]",
        "\x00 \x00\x00 \u2028x\u3000y",
        "<|startoftext|>a photo of a cat's toy<|endoftext|> !<|endoftext|>x <|x|> a\u0345b",
    ]
    for text in texts:
        assert _testing.pretokenize(PATTERNS[name], text) == regex.findall(PATTERNS[name], text)
