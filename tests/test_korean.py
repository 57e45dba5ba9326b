"""Korean: the morpheme pre-tokenizer on Kiwi (seeds 002 and 004) and jamo normalization.

Seed 002 analysed its corpus with Okt (konlpy) and dropped particles, punctuation and
foreign words; we analyse the same corpus with Kiwi and drop the mapped tags
(`subword.pre_tokenizers.korean.TAG_GROUPS`). Where the two analysers agree the word table
is the seed's; the words where they differ are listed below, each with the reason.
"""

from __future__ import annotations

import os
import sys
import unicodedata
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import subword
from subword import _core
from subword.cli import main as cli_main
from subword.config import TokenizerConfig
from subword.pre_tokenizers import korean

SEED_DROP = ("Josa", "Punctuation", "Foreign")


def _kiwi_available() -> bool:
    try:
        import kiwipiepy  # noqa: F401
        import kiwipiepy_model  # noqa: F401
    except ImportError:
        return False
    return True


def needs_kiwi() -> None:
    """Skip without kiwipiepy (fail under CI, where the test extra installs it)."""
    if _kiwi_available():
        return
    message = "kiwipiepy is not installed (pip install subword[korean])"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message)
    pytest.skip(message)


def seed_pre_tokenizer(spacing: bool = False) -> korean.KoreanPreTokenizer:
    config = TokenizerConfig(
        pre_tokenizer="korean",
        normalization="nfc",
        korean_drop_tags=SEED_DROP,
        korean_spacing=spacing,
    )
    return korean.KoreanPreTokenizer(config)


# --- seed 002: the word table ---------------------------------------------------------

# Words (morphemes) and counts where Kiwi 0.24 and the seed's Okt give the same table.
AGREE = {
    "스파이더맨": 4, "슈퍼맨": 2, "배트맨": 3, "아이언맨": 2, "올해": 1, "최고": 2,
    "영화": 2, "아닐까": 1, "생각": 1, "함": 1, "MCU": 1, "vs": 1, "스토리": 1, "짝": 1,
    "그리고": 1, "어제": 3, "IMAX": 2, "영화관": 2, "ㅋㅋ": 1, "개": 1, "ㅋㅋㅋㅋ": 1,
    "또": 1, "슈가": 2, "슈퍼마켓": 1, "ㅋㅋㅋ": 1, "스파": 1, "슈퍼": 1, "ㄹㅇ": 2,
    "ㅋ": 1, "ㅠㅠ": 2,
}  # fmt: skip

# Where they differ, and why:
# 1. Predicates. Okt keeps a conjugated verb or adjective whole; Kiwi splits the stem from
#    its endings: 진부하기 → 진부 하 기, 없음 → 없 음, 봤는데 → 봤 는데 (봤 is 보+었 in one
#    syllable: one piece), 보고 → 보 고, 싶다 → 싶 다, 쩔어 → 쩔 어 in "개쩔어" and
#    "ㄹㅇ쩔어" (in "봤는데 쩔어!" Kiwi takes 쩔어 for a proper noun and keeps it whole).
# 2. The copula. Okt tags 이다 in "영화이다" as Josa (dropped); Kiwi tags 이 as VCP and 다 as
#    EF, not particles, so they stay.
# 3. Unknown compounds. Kiwi keeps 파프롬홈 (Okt: 파 프롬 홈), 스파이더짱 (스파이더 짱),
#    배트걸 (배트 걸) and 돈날림 (돈 날림) whole as proper nouns, and splits 아이언돔 into
#    아이언 돔, which Okt kept whole. So 짱, 배트 and 아이언 are counted differently.
# (Lines 1 and 6: 아닐까 = 아니+ㄹ까 and 함 = 하+ㅁ overlap in a syllable, so each is one
# piece, as in the seed.)
ONLY_KIWI = {
    "진부": 1, "하": 1, "기": 1, "없": 1, "음": 1, "봤": 3, "는데": 3, "보": 1, "고": 1,
    "싶": 1, "다": 2, "쩔": 2, "어": 2, "쩔어": 1, "이": 1, "파프롬홈": 1, "스파이더짱": 1,
    "배트걸": 1, "돈날림": 1, "돔": 1, "짱": 1, "배트": 1, "아이언": 2,
}  # fmt: skip
ONLY_SEED = {
    "진부하기": 1, "없음": 1, "봤는데": 3, "보고": 1, "싶다": 1, "쩔어": 3, "파": 1,
    "프롬": 1, "홈": 1, "스파이더": 1, "걸": 1, "돈": 1, "날림": 1, "아이언돔": 1, "짱": 2,
    "배트": 2, "아이언": 1,
}  # fmt: skip


def seed_table(golden) -> dict[str, int]:
    fixture = golden["korean_morphemes_50_merges"]
    return {"".join(symbols[:-1]): count for symbols, count in fixture["input"]}


def test_seed_002_table_agrees_where_the_analysers_agree(golden):
    needs_kiwi()
    corpus = golden["korean_morphemes_50_merges"]["corpus"]
    ours = Counter(p for ps in seed_pre_tokenizer().pieces_batch(corpus) for p in ps)
    seed = seed_table(golden)
    assert {w: c for w, c in ours.items() if seed.get(w) == c} == AGREE
    assert {w: c for w, c in ours.items() if seed.get(w) != c} == ONLY_KIWI
    assert {w: c for w, c in seed.items() if ours.get(w) != c} == ONLY_SEED
    # Most of the seed's running words come out the same.
    assert sum(AGREE.values()) / sum(seed.values()) > 0.6


def test_seed_002_merges_start_as_the_seeds(golden):
    needs_kiwi()
    fixture = golden["korean_morphemes_50_merges"]
    tok = subword.train(
        iter(fixture["corpus"]),
        pre_tokenizer="korean",
        korean_drop_tags=SEED_DROP,
        korean_spacing=False,
        end_of_word_symbol="\0",
        num_merges=50,
        min_frequency=1,
        tie_break="first",
        show_progress=False,
    )
    expected = [tuple(m) for m in fixture["expected_merges"]]
    # The first 15 merges are the seed's; then 봤/는데 (split by Kiwi) take different turns.
    assert tok.merges[:15] == expected[:15]
    assert tok.merges[15] != expected[15]
    # Words the seed ends with as one token, and that Kiwi analyses alike, do here too.
    whole = [tokens[0][:-1] for tokens, _ in fixture["expected_final"] if len(tokens) == 1]
    for word in (w for w in whole if w in AGREE):
        assert tok.tokenize(word) == [word + "\0"], word


# --- the pre-tokenizer --------------------------------------------------------------------


def test_pieces_are_surface_forms_and_contractions_stay_whole():
    needs_kiwi()
    pt = korean.KoreanPreTokenizer(TokenizerConfig(pre_tokenizer="korean", korean_spacing=False))
    # 봤 = 보 + 었 and 했 = 하 + 었 are one syllable: one piece each, never 보/었.
    assert pt.pieces("어제 영화를 봤는데") == ["어제", "영화", "를", "봤", "는데"]
    pieces = pt.pieces("공부했습니다.")
    assert "".join(pieces) == "공부했습니다."
    assert "했" in "".join(pieces[:2])


def test_spacing_marks_word_starts_and_join_restores_them():
    needs_kiwi()
    pt = korean.KoreanPreTokenizer(TokenizerConfig(pre_tokenizer="korean"))
    text = "스파이더맨은 올해  최고의\t영화"
    pieces = pt.pieces(text)
    assert pieces[0] == "▁스파이더맨" and pieces[1] == "은"
    assert sum(p.startswith("▁") for p in pieces) == len(text.split())
    assert pt.join(pieces) == " ".join(text.split())


def test_dropping_a_word_start_moves_the_mark():
    needs_kiwi()
    config = TokenizerConfig(pre_tokenizer="korean", korean_drop_tags=("Punctuation", "Josa"))
    pt = korean.KoreanPreTokenizer(config)
    pieces = pt.pieces("(괄호) 안의 말, 끝.")
    assert pieces[0] == "▁괄호"
    assert not any(p.strip("▁") in "().,의" for p in pieces)
    assert pt.join(pieces) == "괄호 안 말 끝"


def test_foreign_drops_hanja_but_keeps_other_scripts_and_laughter():
    needs_kiwi()
    config = TokenizerConfig(
        pre_tokenizer="korean", korean_drop_tags=("Foreign",), korean_spacing=False
    )
    pieces = korean.KoreanPreTokenizer(config).pieces("東京 IMAX ㅋㅋ Привет")
    assert pieces == ["IMAX", "ㅋㅋ", "Привет"]


def test_tag_groups_and_unknown_tags():
    assert korean.expand_tags(["Josa"]) >= {"JKS", "JKO", "JX", "JC"}
    assert korean.expand_tags(["Punctuation", "SW"]) >= {"SF", "SP", "SW"}
    assert korean.expand_tags(["Foreign"]) == {"SH"}
    for group in korean.TAG_GROUPS.values():
        assert set(group) <= korean.KIWI_TAGS
    with pytest.raises(ValueError, match="'josa' is neither a Kiwi tag"):
        korean.expand_tags(["josa"])
    with pytest.raises(ValueError, match="needs pre_tokenizer='korean'"):
        TokenizerConfig(korean_drop_tags=("Josa",))


# --- models: round trips, save and load -----------------------------------------------------

SAMPLE = [
    "대한민국은 민주공화국이다.",
    "대한민국의 주권은 국민에게 있고, 모든 권력은 국민으로부터 나온다.",
    "어제 스파이더맨을 IMAX 영화관에서 봤는데.. ㅋㅋ 개쩔어.ㅋㅋㅋㅋ",
    "도구 - 매크로 - 대화 상자 관리 를 선택한 다음 새로 만들기를 클릭합니다.",
]


@pytest.fixture(scope="module")
def small_model(golden) -> subword.Tokenizer:
    needs_kiwi()
    texts = golden["korean_morphemes_50_merges"]["corpus"] + SAMPLE
    return subword.train(iter(texts), pre_tokenizer="korean", num_merges=200, show_progress=False)


def test_korean_defaults_to_nfc_and_round_trips(small_model):
    assert small_model.config.normalization == "nfc"
    for text in SAMPLE:
        ids = small_model.encode(text)
        assert small_model.vocab["<unk>"] not in ids
        assert small_model.decode(ids) == " ".join(text.split())
    # join=False: the pieces as the core decodes them, marks included.
    raw = small_model.decode(small_model.encode("대한민국은 국민"), join=False)
    assert raw.startswith("▁대한민국") and "▁국민" in raw


def test_decomposed_input_is_normalized_to_nfc(small_model):
    text = unicodedata.normalize("NFD", SAMPLE[0])
    assert text != SAMPLE[0]
    assert small_model.encode(text) == small_model.encode(SAMPLE[0])
    assert small_model.decode(small_model.encode(text)) == SAMPLE[0]


def test_batch_encoding_matches_one_by_one(small_model):
    texts = SAMPLE + ["", "   ", "ㅋ"]
    assert small_model.encode_batch(texts) == [small_model.encode(t) for t in texts]


def test_saved_model_reloads_with_its_options(tmp_path, golden):
    needs_kiwi()
    texts = golden["korean_morphemes_50_merges"]["corpus"] + SAMPLE
    tok = subword.train(
        iter(texts),
        pre_tokenizer="korean",
        normalization="jamo",
        korean_drop_tags=["Josa", "SF"],
        korean_spacing=False,
        num_merges=100,
        show_progress=False,
    )
    tok.save(tmp_path / "ko.json")
    again = subword.load(tmp_path / "ko.json")
    assert again.config == tok.config
    assert again.config.korean_drop_tags == ("Josa", "SF")
    assert again.encode_batch(SAMPLE) == tok.encode_batch(SAMPLE)
    assert again.decode(again.encode(SAMPLE[0])) == "대한민국 민주 공화국 이 다"


def test_korean_with_jamo_learns_below_the_syllable(golden):
    needs_kiwi()
    texts = golden["korean_morphemes_50_merges"]["corpus"] + SAMPLE
    tok = subword.train(iter(texts), pre_tokenizer="korean", normalization="jamo", num_merges=150)
    assert all(len(a) == 1 for a in tok.alphabet if a not in ("</w>", "▁"))
    assert not any("가" <= ch <= "힣" for token in tok.vocab for ch in token)
    for text in SAMPLE:
        assert tok.decode(tok.encode(text)) == " ".join(text.split())
    # A syllable never seen in training still encodes without <unk>: its jamo were seen.
    seen = set("".join(texts))
    jamo = _core.Normalizer("jamo").normalize
    unseen = next(
        s
        for s in map(chr, range(0xAC00, 0xD7A4))
        if s not in seen and set(jamo(s)) <= set(tok.alphabet)
    )
    assert tok.vocab["<unk>"] not in tok.encode(unseen)
    assert tok.decode(tok.encode(unseen)) == unseen


# Every modern leading consonant, vowel and trailing consonant occurs in these syllables.
ALL_JAMO_TEXT = (
    " ".join(
        chr(0xAC00 + (lead * 21 + vowel) * 28 + tail)
        for lead in range(19)
        for vowel in range(21)
        for tail in (0, (lead + vowel) % 27 + 1)
    )
    + " "
    + "".join(chr(0xAC00 + t) for t in range(28))
)


@pytest.fixture(scope="module")
def jamo_korean_model(golden) -> subword.Tokenizer:
    needs_kiwi()
    texts = golden["korean_morphemes_50_merges"]["corpus"] + SAMPLE + [ALL_JAMO_TEXT]
    return subword.train(iter(texts), pre_tokenizer="korean", normalization="jamo", num_merges=50)


HANGUL_TEXT = st.text(
    alphabet=st.one_of(
        st.characters(min_codepoint=0xAC00, max_codepoint=0xD7A3),
        st.sampled_from(" \n"),
    ),
    max_size=40,
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=HANGUL_TEXT)
def test_korean_jamo_round_trip_on_any_hangul(jamo_korean_model, text):
    tok = jamo_korean_model
    ids = tok.encode(text)
    assert tok.vocab["<unk>"] not in ids
    assert tok.decode(ids) == " ".join(text.split())


# --- jamo normalization (no Kiwi needed) -------------------------------------------------


@pytest.fixture(scope="module")
def jamo_model() -> subword.Tokenizer:
    return subword.train(iter([ALL_JAMO_TEXT] + SAMPLE), normalization="jamo", num_merges=300)


def test_jamo_normalizer_splits_only_syllables():
    jamo = _core.Normalizer("jamo")
    assert jamo.normalize("한글") == "\u1112\u1161\u11ab\u1100\u1173\u11af"
    # Composed é stays (no NFD), decomposed e + U+0301 is composed (NFC first).
    assert jamo.normalize("café e\u0301 ㅋㅋ") == "café é ㅋㅋ"
    assert jamo.normalize("\u1100\u1161") == "\u1100\u1161"  # NFC gives 가, split again
    with pytest.raises(ValueError, match="jamo"):
        _core.Normalizer("jamos")


@given(text=st.text(alphabet=st.characters(min_codepoint=0xAC00, max_codepoint=0xD7A3)))
def test_jamo_of_syllables_is_their_nfd(text):
    # For precomposed syllables the arithmetic split is Unicode's canonical decomposition.
    assert _core.Normalizer("jamo").normalize(text) == unicodedata.normalize("NFD", text)


MIXED_TEXT = st.text(
    alphabet=st.one_of(
        st.characters(min_codepoint=0xAC00, max_codepoint=0xD7A3),
        st.characters(min_codepoint=0x1100, max_codepoint=0x1112),
        st.characters(min_codepoint=0x1161, max_codepoint=0x1175),
        st.characters(min_codepoint=0x11A8, max_codepoint=0x11C2),
        st.sampled_from(" \t\n"),
    ),
    max_size=60,
)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(text=MIXED_TEXT)
def test_jamo_model_round_trips_hangul_and_loose_jamo(jamo_model, text):
    ids = jamo_model.encode(text)
    assert jamo_model.vocab["<unk>"] not in ids
    # Decoding composes the jamo again: the NFC text, words separated by single spaces.
    assert jamo_model.decode(ids) == " ".join(unicodedata.normalize("NFC", text).split())


def test_jamo_tokens_hold_no_syllables(jamo_model):
    assert not any("가" <= ch <= "힣" for token in jamo_model.vocab for ch in token)
    assert jamo_model.tokenize("한") != ["한</w>"]


def test_byte_level_jamo_composes_on_decode():
    # A plain regex: the byte-level named patterns live in formats.
    byte_level = {"kind": "byte", "normalization": "jamo", "pre_tokenizer": r" ?\S+|\s+"}
    tok = subword.train(iter(SAMPLE * 3), vocab_size=300, **byte_level)
    for text in SAMPLE:
        assert tok.decode(tok.encode(text)) == text
    # No merges: one id per byte. 한글 is six jamo of three bytes; cutting the last byte
    # leaves 한 and 그 to compose and two bytes that are not UTF-8.
    bytes_only = subword.train(iter(SAMPLE), num_merges=0, **byte_level)
    ids = bytes_only.encode("한글")
    assert len(ids) == 18
    assert bytes_only.decode(ids[:-1]) == "한그\ufffd"
    assert bytes_only.decode_bytes(ids[:-1]) == "한그".encode() + "\u11af".encode()[:2]


# --- missing extra, CLI ---------------------------------------------------------------


def test_missing_kiwipiepy_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "kiwipiepy", None)  # `import kiwipiepy` fails
    monkeypatch.setattr(korean, "_KIWI", None)
    with pytest.raises(ImportError, match=r"pip install subword\[korean\]"):
        subword.train(iter(["한국어"]), pre_tokenizer="korean", num_merges=1)


def test_missing_model_names_the_extra(monkeypatch):
    needs_kiwi()
    monkeypatch.setitem(sys.modules, "kiwipiepy_model", None)
    monkeypatch.setattr(korean, "_KIWI", None)
    with pytest.raises(ImportError, match=r"kiwipiepy-model.*pip install subword\[korean\]"):
        korean.kiwi()


def test_cli_reports_the_missing_extra(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "kiwipiepy", None)
    monkeypatch.setattr(korean, "_KIWI", None)
    corpus = tmp_path / "ko.txt"
    corpus.write_text("한국어 문장\n", encoding="utf-8")
    code = cli_main(
        ["train", str(corpus), "--pre-tokenizer", "korean", "--merges", "2", "-o", "m.json"]
    )
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "pip install subword[korean]" in err


def test_cli_trains_a_korean_model(tmp_path, golden):
    needs_kiwi()
    corpus = tmp_path / "ko.txt"
    corpus.write_text("\n".join(golden["korean_morphemes_50_merges"]["corpus"]) + "\n")
    model = tmp_path / "m.json"
    args = ["train", str(corpus), "--pre-tokenizer", "korean", "--merges", "20", "-q"]
    args += ["--korean-drop-tags", "Josa, Punctuation,Foreign", "--no-korean-spacing"]
    assert cli_main([*args, "-o", str(model)]) == 0
    tok = subword.load(model)
    assert tok.config.pre_tokenizer == "korean"
    assert tok.config.korean_drop_tags == SEED_DROP
    assert tok.config.korean_spacing is False
    assert tok.decode(tok.encode("스파이더맨은 최고의 영화")) == "스파이더맨 최고 영화"
    bad = cli_main([*args[:6], "--korean-drop-tags", "Nope", "-o", str(tmp_path / "x.json")])
    assert bad == 2


# --- the shared corpora ---------------------------------------------------------------------


@pytest.mark.corpus
@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "normalization"),
    [("ko-constitution.txt", "nfc"), ("ko-constitution.txt", "jamo"), ("ko-help.txt", "nfc")],
)
def test_corpus_round_trip_every_line(corpora_dir, name, normalization):
    needs_kiwi()
    path = corpora_dir / name
    tok = subword.train(
        [str(path)],
        pre_tokenizer="korean",
        normalization=normalization,
        vocab_size=8000,
        show_progress=False,
    )
    lines = path.read_text(encoding="utf-8").splitlines()
    encoded = tok.encode_batch(lines)
    unk = tok.vocab["<unk>"]
    for line, ids in zip(lines, encoded):
        assert unk not in ids
        assert tok.decode(ids) == " ".join(unicodedata.normalize("NFC", line).split())
    # Morphemes cost tokens, merges win them back: fewer tokens than characters.
    characters = sum(len(line.replace(" ", "")) for line in lines)
    assert sum(map(len, encoded)) < 0.8 * characters
