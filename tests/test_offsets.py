"""`Tokenizer.encode_with_offsets`: the same ids as `encode`, and each token's character span,
on every model kind; tiktoken's `decode_with_offsets` rule for byte-level tokens that split a
character (against tiktoken on the corpora); HF `tokenizers` offsets on exported
`tokenizer.json` files; normalized and cleaned text mapped back; bad input."""

from __future__ import annotations

import json
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from model_kinds import SPECIAL, TEXTS, models
from peers import CORPORA, corpus_text, peer

import subword
from subword.errors import InvalidInputError

KINDS = list(models())
# Text a model's alphabet mostly holds, plus anything Unicode has.
TEXT = st.text(
    alphabet=st.one_of(st.sampled_from("".join(TEXTS) + " \n\t"), st.characters()),
    max_size=60,
)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


def _normalizes(tok: subword.Tokenizer) -> bool:
    return tok.config.normalization is not None or tok.config.lowercase


def check_spans(tok: subword.Tokenizer, text: str, ids: list[int], spans: list) -> None:
    """The properties every model's spans have."""
    assert ids == tok.encode(text, allowed_special="all")
    assert len(spans) == len(ids)
    previous = (0, 0)
    for start, end in spans:
        assert 0 <= start <= end <= len(text)
        assert start >= previous[0] and end >= previous[1], (previous, (start, end))
        previous = (start, end)
    # Nothing but whitespace is left out (classic models drop it between words).
    covered = [False] * len(text)
    for start, end in spans:
        covered[start:end] = [True] * (end - start)
    missed = [c for c, hit in zip(text, covered) if not hit]
    assert all(c.isspace() for c in missed), missed


def check_byte_level_exact(tok: subword.Tokenizer, text: str, ids, spans) -> None:
    """Byte-level without normalization: spans cover the text with no gap, overlap only on
    a character split between two tokens, and each token's bytes lie in its span."""
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    # Consecutive spans, each from where the previous one ended, give the text back.
    ends = [0] + [e for _, e in spans[:-1]]
    assert "".join(text[max(s, p) : e] for (s, e), p in zip(spans, ends)) == text
    for (_, e0), (s1, _) in zip(spans, spans[1:]):
        assert s1 in (e0, e0 - 1)  # no gap; overlap of one split character at most
        if s1 == e0 - 1:
            assert len(text[s1].encode("utf-8")) > 1
    own: dict[int, bytes] = {}
    for id_, (start, end) in list(zip(ids, spans))[:20000]:  # bounded: whole corpora come here
        if id_ not in own:
            own[id_] = tok.decode_bytes([id_])
        assert own[id_] in text[start:end].encode("utf-8")
        assert start < end


@pytest.mark.parametrize("name", KINDS)
@SETTINGS
@given(text=TEXT)
def test_spans_on_every_kind(name, text):
    tok = models()[name]
    try:
        ids, spans = tok.encode_with_offsets(text, allowed_special="all")
    except InvalidInputError:  # a character outside a classic alphabet with unknown="error"
        return
    check_spans(tok, text, ids, spans)
    surrogates = any("\ud800" <= c <= "\udfff" for c in text)  # test_lone_surrogates_...
    if tok.config.kind == "byte" and not _normalizes(tok) and text and not surrogates:
        check_byte_level_exact(tok, text, ids, spans)


@pytest.mark.parametrize("name", KINDS)
def test_classic_tokens_are_their_text(name):
    """Without normalization, a classic token's span holds exactly the token's characters;
    an end-of-word token alone has an empty span at the word's end; an unknown token
    covers its one character."""
    tok = models()[name]
    if tok.config.kind != "classic" or _normalizes(tok):
        pytest.skip("a classic model without normalization")
    text = "Grüße aus Köln €uro " + TEXTS[0]
    ids, spans = tok.encode_with_offsets(text)
    check_spans(tok, text, ids, spans)
    eow, prefix = tok.config.end_of_word_symbol, tok.config.continuation_prefix
    for id_, (start, end) in zip(ids, spans):
        token = tok.id_to_token(id_)
        if token == tok.config.unk_token:
            assert end - start == 1 and text[start] == "€"
            continue
        if tok.config.end_of_word != "none" and token.endswith(eow):
            token = token[: -len(eow)]
        if tok.config.algorithm == "greedy" and token.startswith(prefix):
            token = token[len(prefix) :]
        assert text[start:end] == token


def test_normalized_text_maps_to_the_original():
    """NFKC turns "ﬁ" (one character) into "fi": tokens inside it span the whole "ﬁ"; the
    lower-cased "ΟΔΟΣ" maps letter for letter although Σ became a final ς."""
    tok = models()["byte-nfkc-lower"]
    text = "ﬁx ΟΔΟΣ ①"
    ids, spans = tok.encode_with_offsets(text)
    check_spans(tok, text, ids, spans)
    pieces = [text[s:e] for s, e in spans]
    assert all("ﬁ" in p for p, id_ in zip(pieces, ids) if b"f" in tok.decode_bytes([id_]))
    lowered = tok.decode(ids)
    assert lowered == "fix οδος 1"
    # Each token's span holds the characters its normalized text came from.
    for id_, piece in zip(ids, pieces):
        norm = unicodedata.normalize("NFKC", piece).lower().replace("ς", "σ")
        own = tok.decode_bytes([id_]).decode("utf-8", "ignore").replace("ς", "σ")
        assert own.strip() in norm


def test_decomposed_text_maps_to_the_original():
    tok = models()["classic-nfd-lower"]
    text = "Ärger café 한국"
    ids, spans = tok.encode_with_offsets(text)
    check_spans(tok, text, ids, spans)
    # NFD splits é into e + U+0301: a token holding either part maps to the one "é".
    for id_, (start, end) in zip(ids, spans):
        own = tok.decode_bytes([id_]).decode("utf-8").strip()
        assert own in unicodedata.normalize("NFD", text[start:end]).lower()
        if own == "\u0301":
            assert text[start:end] == "é"
    assert "\u0301" in tok.decode(ids)


def test_special_tokens_span_their_text():
    tok = models()["byte"]
    text = f"ab{SPECIAL}cd{SPECIAL}"
    ids, spans = tok.encode_with_offsets(text, allowed_special="all")
    check_spans(tok, text, ids, spans)
    special = tok.special_tokens[SPECIAL]
    assert [text[s:e] for i, (s, e) in zip(ids, spans) if i == special] == [SPECIAL] * 2
    with pytest.raises(InvalidInputError, match="special token"):
        tok.encode_with_offsets(text)
    ids, spans = tok.encode_with_offsets(text, disallowed_special=())
    assert special not in ids and ids == tok.encode(text, disallowed_special=())


def test_lone_surrogates_map_to_their_characters():
    tok = models()["byte"]
    text = "a\ud83d\ude00b\ud800c"  # a split pair (one character for tiktoken), a lone one
    ids, spans = tok.encode_with_offsets(text)
    assert ids == tok.encode(text)
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(s < e for s, e in spans)
    pair = [text[s:e] for s, e in spans if "\ud83d" in text[s:e]]
    assert pair and all("\ude00" in p for p in pair)


def test_bad_input():
    tok = models()["byte"]
    with pytest.raises(InvalidInputError, match="must be a str"):
        tok.encode_with_offsets(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="lacks"):
        tok.encode_with_offsets("x", allowed_special={"<nope>"})


# --- against tiktoken -------------------------------------------------------------------


@pytest.fixture(scope="module")
def cl100k(cl100k_path):
    return subword.load_tiktoken(cl100k_path)


@pytest.mark.parametrize("name", [*CORPORA, "code-c-headers.txt"])
def test_cl100k_offsets_equal_tiktoken_on_corpora(name, cl100k, cl100k_encoding):
    """Whole files (the first 8 MB of the 60 MB one): ids equal tiktoken's; starts equal
    `decode_with_offsets`; spans cover."""
    text = corpus_text(name)[:8_000_000]
    ids, spans = cl100k.encode_with_offsets(text)
    assert ids == cl100k_encoding.encode(text)
    decoded, starts = cl100k_encoding.decode_with_offsets(ids)
    assert decoded == text
    assert [s for s, _ in spans] == starts
    check_byte_level_exact(cl100k, text, ids, spans)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=st.text(max_size=40))
def test_cl100k_starts_equal_tiktoken(cl100k, cl100k_encoding, text):
    if any("\ud800" <= c <= "\udfff" for c in text):
        return  # tiktoken's decode_with_offsets needs valid UTF-8 back
    ids, spans = cl100k.encode_with_offsets(text)
    assert ids == cl100k_encoding.encode(text)
    assert [s for s, _ in spans] == cl100k_encoding.decode_with_offsets(ids)[1]


# --- against HF tokenizers ----------------------------------------------------------------


@pytest.fixture(scope="module")
def hf_files(tmp_path_factory, cl100k):
    """Byte-level `tokenizer.json` files: a trained model and cl100k, exported here."""
    folder = tmp_path_factory.mktemp("hf")
    files = {}
    for name, tok in (("byte", models()["byte"]), ("cl100k", cl100k)):
        path = folder / f"{name}.json"
        tok.save(path, format="hf")
        files[name] = (tok, path)
    return files


HF_TEXTS = [
    "Grüße ΟΔΟΣ ﬁx 한국 €x  spaces\n\nend",
    "emoji 🎉🎉👩‍👩‍👧 mixed\tTabs\r\n",
    *TEXTS[:6],
]


@pytest.mark.parametrize("which", ["byte", "cl100k"])
def test_offsets_equal_hf(hf_files, which):
    """HF gives a token the characters its bytes touch: the same spans, split characters
    included (both tokens cover the character)."""
    tokenizers = peer("tokenizers")
    tok, path = hf_files[which]
    hf = tokenizers.Tokenizer.from_file(str(path))
    loaded = subword.load(path)  # the HF file read back: a model of its own
    for text in HF_TEXTS:
        encoding = hf.encode(text, add_special_tokens=False)
        for model in (tok, loaded):
            ids, spans = model.encode_with_offsets(text)
            assert encoding.ids == ids
            assert [tuple(o) for o in encoding.offsets] == spans


def test_hf_offsets_on_corpus(hf_files):
    tokenizers = peer("tokenizers")
    tok, path = hf_files["cl100k"]
    hf = tokenizers.Tokenizer.from_file(str(path))
    lines = corpus_text("multi-fortunes.txt").splitlines(keepends=True)[:2000]
    for line, encoding in zip(lines, hf.encode_batch(lines, add_special_tokens=False)):
        ids, spans = tok.encode_with_offsets(line)
        assert encoding.ids == ids
        assert [tuple(o) for o in encoding.offsets] == spans


def test_hf_trim_offsets_differs_only_by_the_leading_space(hf_files, tmp_path):
    """HF's ByteLevel post-processor with trim_offsets=True (GPT-2's tokenizer.json) leaves
    a token's leading space out of its span; subword's spans keep it. That is the only
    difference."""
    tokenizers = peer("tokenizers")
    tok, path = hf_files["byte"]
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["post_processor"] = {
        "type": "ByteLevel",
        "add_prefix_space": False,
        "trim_offsets": True,
        "use_regex": False,
    }
    trimmed = tmp_path / "trimmed.json"
    trimmed.write_text(json.dumps(doc), encoding="utf-8")
    hf = tokenizers.Tokenizer.from_file(str(trimmed))
    text = "the quick brown fox  jumps"
    ids, spans = tok.encode_with_offsets(text)
    theirs = [tuple(o) for o in hf.encode(text).offsets]
    differ = [(o, t) for o, t in zip(spans, theirs) if o != t]
    assert differ  # the post-processor did trim
    for (start, end), (their_start, their_end) in differ:
        assert end == their_end and text[start:their_start].isspace()


# --- CLIP: cleaned text mapped back --------------------------------------------------------


def test_clip_spans_map_through_the_cleaner(clip_spec):
    peer("ftfy")
    from subword.clip import load_clip
    from subword.formats.clip import clean_text

    tok = load_clip()
    text = "  A photo of&amp;a  CAT —\n\tand  Ünïcödé ΟΔΟΣ!  "
    ids, spans = tok.encode_with_offsets(text)
    check_spans(tok, text, ids, spans)
    pieces = [text[s:e] for s, e in spans]
    assert pieces[:3] == ["A", "photo", "of"]
    assert "CAT" in pieces
    # Each token's text is in what its span cleans to (bytes: a token may split a letter).
    for id_, piece in zip(ids, pieces):
        own = tok.decode_bytes([id_]).strip()
        # (Alone, a final Σ lower-cases to σ; in its word, to ς.)
        cleaned = clean_text(piece) + ("ς" if piece.endswith("Σ") else "")
        assert own in cleaned.encode("utf-8"), (own, piece)


@SETTINGS
@given(text=st.text(alphabet=st.sampled_from("aB &amp;;<|>—é Σς\n\tx1"), max_size=40))
def test_clip_spans_property(clip_spec, text):
    peer("ftfy")
    from subword.clip import _default

    tok = _default()
    ids, spans = tok.encode_with_offsets(text)
    assert ids == tok.encode(text)
    previous = (0, 0)
    for start, end in spans:
        assert 0 <= start <= end <= len(text)
        assert start >= previous[0] and end >= previous[1]
        previous = (start, end)


@SETTINGS
@given(source=st.text(alphabet=st.sampled_from("aBΣ &amp;#x41;lt\n\t é"), max_size=50))
def test_align_is_monotone_and_in_bounds(source):
    """The cleaned text maps back in order: each cleaned character to a run of the source,
    runs never going back, a character that only changed case to itself."""
    import html

    from subword.offsets import align

    derived = " ".join(html.unescape(html.unescape(source)).split()).lower()
    lo, hi = align(source, derived)
    assert len(lo) == len(derived) + 1 and len(hi) == len(derived) and lo[-1] == len(source)
    for j in range(len(derived)):
        assert 0 <= lo[j] <= hi[j] <= len(source)
        if j:
            assert lo[j] >= lo[j - 1] and hi[j] >= hi[j - 1]
    if "&" not in source:
        for j, c in enumerate(derived):
            piece = source[lo[j] : hi[j]]
            assert piece.lower() == c or (piece.isspace() and c == " ") or c == "ς"
