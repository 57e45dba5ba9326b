"""Bad input gets a clear error naming what and where: never a panic or a wrong result."""

from __future__ import annotations

import gzip
import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import subword
from subword.errors import InvalidInputError


def test_empty_corpus(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    blank = tmp_path / "blank.txt"
    blank.write_text("  \n\t\n")
    for source in ([str(empty)], [str(blank)], {}, iter([])):
        with pytest.raises(ValueError, match="no words to train on"):
            subword.train(source, num_merges=10)


def test_vocab_size_below_alphabet():
    with pytest.raises(ValueError, match=r"vocab_size 3 is below the alphabet.*at least 6"):
        subword.train({"abc": 2, "cd": 1}, vocab_size=3)  # a b c d </w> + <unk>


def test_invalid_utf8_names_file_and_byte(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"first line\nsecond \xc3\x28 line\n")
    with pytest.raises(ValueError, match=r"bad\.txt: invalid UTF-8 at byte 18 \(line 2\)"):
        subword.train([str(bad)], num_merges=5)
    tok = subword.train([str(bad)], num_merges=5, errors="replace", min_frequency=1)
    assert "\ufffd" in tok.alphabet


def test_invalid_utf8_inside_gzip_names_decompressed_offset(tmp_path):
    bad = tmp_path / "bad.txt.gz"
    bad.write_bytes(gzip.compress(b"ok\n\xff\n"))
    with pytest.raises(ValueError, match="invalid UTF-8 at byte 3 of the decompressed data"):
        subword.train([str(bad)], num_merges=5)


def test_truncated_gzip(tmp_path):
    data = gzip.compress(b"low lower newest widest\n" * 2000)
    cut = tmp_path / "cut.txt.gz"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="cut.txt.gz: corrupt or truncated gzip"):
        subword.train([str(cut)], num_merges=5)


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.txt: no such file"):
        subword.train([str(tmp_path / "nope.txt")], num_merges=5)
    with pytest.raises(FileNotFoundError):
        subword.load(tmp_path / "nope.json")


def test_bad_word_table_and_options():
    with pytest.raises(ValueError, match="'low'"):
        subword.train({"low": -1}, num_merges=1)
    with pytest.raises(ValueError, match="tie_break"):
        subword.train({"low": 1}, num_merges=1, tie_break="random")
    with pytest.raises(ValueError, match="end_of_word"):
        subword.train({"low": 1}, num_merges=1, end_of_word="sometimes")
    with pytest.raises(TypeError):
        subword.train(42, num_merges=1)


@pytest.fixture()
def model_file(tmp_path):
    tok = subword.train({"low": 5, "lower": 2, "newest": 6}, num_merges=8, min_frequency=1)
    path = tmp_path / "model.json"
    tok.save(path)
    return path


def test_model_file_with_invalid_json_names_the_line(model_file):
    lines = model_file.read_text().splitlines()
    lines[7] = lines[7] + " oops"
    model_file.write_text("\n".join(lines))
    with pytest.raises(ValueError, match=r"model.json, line 8, column \d+: invalid JSON"):
        subword.load(model_file)


def test_model_file_with_bad_fields_names_the_field(model_file):
    doc = json.loads(model_file.read_text())
    cases = [
        ("merges", [["l", "o"], ["lo"]], r"field merges\[1\]: expected a pair of strings"),
        ("merges", [["q", "z"]], r"field merges\[0\]: 'qz' is not in the vocab"),
        ("version", 99, "field version: 99 is not supported"),
        ("vocab", {"a": "x"}, r"field vocab\['a'\]: id must be"),
        ("config", {**doc["config"], "kind": "unicorn"}, "field config: kind='unicorn'"),
        ("config", {**doc["config"], "colour": 1}, "field config.colour: unknown setting"),
    ]
    for field, value, message in cases:
        broken = {**doc, field: value}
        model_file.write_text(json.dumps(broken))
        with pytest.raises(ValueError, match=message):
            subword.load(model_file)
    del doc["merges"]
    model_file.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="field merges: missing"):
        subword.load(model_file)
    model_file.write_text('{"format": "other"}')
    with pytest.raises(ValueError, match="neither a subword, HF, Tekken nor GPT-2 model"):
        subword.load(model_file)


def test_unknown_characters_unk_or_error():
    tok = subword.train({"low": 5, "lower": 2}, num_merges=4, min_frequency=1)
    assert tok.tokenize("lox") == ["lo", "<unk>", "</w>"]
    strict = subword.train({"low": 5, "lower": 2}, num_merges=4, min_frequency=1, unknown="error")
    with pytest.raises(ValueError, match=r"unknown character 'x' \(U\+0078\) at character 6"):
        strict.encode("low lox")


def test_decode_rejects_ids_outside_the_vocabulary():
    tok = subword.train({"low": 5}, num_merges=2, min_frequency=1)
    with pytest.raises(ValueError, match="id 999 at position 1 is not in the vocabulary"):
        tok.decode([1, 999])


def test_nul_mixed_newlines_combining_marks_and_non_bmp():
    text = "a\0b\r\nc\rd\ne\u0301 \U0001f600x"
    tok = subword.train(iter([text] * 3), num_merges=20, min_frequency=1)
    assert tok.decode(tok.encode(text)) == " ".join(text.split())


def test_one_character_repeated_long_is_linear_enough():
    word = "a" * 1_000_000
    tok = subword.train({"aaaaaaaa": 10}, num_merges=3, min_frequency=1, end_of_word="none")
    assert tok.tokenize(word) == ["aaaaaaaa"] * (len(word) // 8)


@pytest.mark.parametrize("bad", [-1, 2**32, 2**64, -(2**70)])
def test_decode_names_out_of_range_ids_and_their_position(bad):
    tok = subword.train({"low": 5}, num_merges=2, min_frequency=1)
    expected = rf"id {bad} at position 1 is not in the vocabulary \(ids go up to \d+\)"
    with pytest.raises(InvalidInputError, match=expected):
        tok.decode([0, bad])
    with pytest.raises(InvalidInputError, match=expected):
        tok.decode_bytes([0, bad])
    with pytest.raises(InvalidInputError, match=expected):
        tok.decode_batch([[0], [0, bad]])


@pytest.mark.parametrize(
    "bad, message",
    [
        (True, "id True at position 0 is a bool, not an integer id"),
        (False, "id False at position 0 is a bool, not an integer id"),
        ("1", "id '1' at position 0 is not an integer"),
        (1.0, "id 1.0 at position 0 is not an integer"),
        (None, "id None at position 0 is not an integer"),
    ],
)
def test_decode_refuses_bools_and_non_integers(bad, message):
    tok = subword.train({"low": 5}, num_merges=2, min_frequency=1)
    for decode in (tok.decode, tok.decode_bytes):
        with pytest.raises(InvalidInputError, match=re.escape(message)):
            decode([bad, 0])


def test_decode_takes_numpy_and_other_index_ints():
    np = pytest.importorskip("numpy")
    tok = subword.train({"low": 5, "lower": 2}, num_merges=4, min_frequency=1)
    ids = tok.encode("low lower")
    assert tok.decode(np.array(ids, dtype=np.uint32)) == "low lower"
    assert tok.decode(tuple(ids)) == "low lower"
    with pytest.raises(
        InvalidInputError, match=r"id \S*-1\)? at position 1 is not in the vocabulary"
    ):
        tok.decode(np.array([0, -1], dtype=np.int64))


# --- unknown characters keep the words -------------------------------------------------

KNOWN = "abcde"
# Each known character is also a word of its own, so that every mode has its word-final
# form (`c</w>`) too: "known" then means the same in every mode.
UNK_TABLE = {**dict.fromkeys(KNOWN, 1), "abc": 5, "bead": 4, "cab": 3, "dace": 2}
UNK_MODES = [
    {"end_of_word": "separate"},
    {"end_of_word": "attached"},
    {"end_of_word": "none"},
    {"algorithm": "greedy"},
]


@pytest.fixture(scope="module", params=UNK_MODES, ids=lambda m: "-".join(m.values()))
def unk_model(request):
    return request.param, subword.train(UNK_TABLE, num_merges=8, min_frequency=1, **request.param)


# Characters that no whitespace rule (Python's str.split, the core's) treats as a separator.
_unknown = st.characters(
    codec="utf-8", exclude_categories=("Zs", "Zl", "Zp", "Cc", "Cs"), exclude_characters=KNOWN
).filter(lambda c: not c.isspace())
_words = st.lists(
    st.lists(st.one_of(st.sampled_from(KNOWN), _unknown), min_size=1, max_size=8).map("".join),
    min_size=1,
    max_size=5,
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(words=_words)
def test_unknown_characters_keep_word_boundaries(unk_model, words):
    # Expected: each word with every character outside the alphabet as `<unk>`; words
    # separated by one space, except with end_of_word="none", which marks no word ends at
    # all (its decode joins the pieces).
    mode, tok = unk_model
    shown = ["".join(c if c in KNOWN else "<unk>" for c in w) for w in words]
    decoded = tok.decode(tok.encode(" ".join(words)))
    if mode.get("end_of_word") == "none":
        assert decoded == "".join(shown)
    else:
        assert decoded.split() == shown
        assert decoded == " ".join(shown)


def test_attached_unknown_at_a_word_end_keeps_the_end():
    tok = subword.train({"café": 5, "ok": 3}, num_merges=6, end_of_word="attached", min_frequency=1)
    assert tok.decode(tok.encode("café\u0301 ok")) == "café<unk> ok"
    assert tok.tokenize("okx")[-1] == "<unk></w>"
    assert "<unk></w>" not in tok.alphabet


def test_greedy_unknown_inside_a_word_continues_it():
    tok = subword.train(
        {"ab": 5, "c": 3, "ok": 2}, num_merges=4, algorithm="greedy", min_frequency=1
    )
    assert tok.decode(tok.encode("abxc ok")) == "ab<unk>c ok"
    assert tok.tokenize("abxc") == ["ab", "##<unk>", "##c"]


def test_hf_attached_model_without_the_end_form_keeps_its_ids(tmp_path):
    # An HF file's vocabulary has no `<unk></w>`: the unknown token stays `<unk>` at word
    # ends, as HF's own BPE gives it.
    tok = subword.train({"ab": 5, "ok": 3}, num_merges=3, end_of_word="attached", min_frequency=1)
    tok.save(tmp_path / "tokenizer.json", format="hf")
    doc = json.loads((tmp_path / "tokenizer.json").read_text(encoding="utf-8"))
    doc["model"]["vocab"].pop("<unk></w>", None)
    (tmp_path / "tokenizer.json").write_text(json.dumps(doc), encoding="utf-8")
    loaded = subword.load(tmp_path / "tokenizer.json")
    assert loaded.encode("abx")[-1] == loaded.vocab["<unk>"]
