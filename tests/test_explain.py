"""`subword explain` through the CLI frame: the seed 000 trace, the segmentation trace, and
bad input (exit code 2, one line on stderr)."""

from __future__ import annotations

import ast
import re

import pytest

import subword
from subword.cli import main
from subword.commands.explain import parse_words
from subword.config import TokenizerConfig
from subword.teaching.trace import explain_apply, format_table

CLASSIC = ["explain", "--words", "low:5 lower:2 newest:6 widest:3", "--merges", "10"]

CLASSIC_MERGES = [
    (("e", "s"), 9),
    (("es", "t"), 9),
    (("est", "</w>"), 9),
    (("l", "o"), 7),
    (("lo", "w"), 7),
    (("n", "e"), 6),
    (("ne", "w"), 6),
    (("new", "est</w>"), 6),
    (("low", "</w>"), 5),
    (("w", "i"), 3),
]


def chosen(out: str) -> list:
    """The (pair, count) of every 'new merge:' line of a trace."""
    found = re.findall(r"^new merge: (\(.*\)) \(count (\d+)\)$", out, re.MULTILINE)
    return [(ast.literal_eval(pair), int(count)) for pair, count in found]


def test_seed_000_trace(capsys):
    assert main([*CLASSIC, "--tie-break", "first"]) == 0
    out = capsys.readouterr().out
    iterations = re.findall(r"^Iteration (\d+)$", out, re.MULTILINE)
    assert iterations == [str(i) for i in range(1, 11)]
    assert chosen(out) == CLASSIC_MERGES
    last = [line for line in out.splitlines() if line.startswith("dictionary: ")][-1]
    assert (
        last == "dictionary: {'low</w>': 5, 'low e r </w>': 2, 'newest</w>': 6, 'wi d est</w>': 3}"
    )


def test_seed_000_pair_counts_match_the_golden_steps(capsys, golden):
    steps = golden["classic_low_lower_newest_widest"]["expected_steps"]
    assert main(CLASSIC) == 0  # default tie rule is "first", as in the seeds
    out = capsys.readouterr().out
    printed = re.findall(r"^pair counts: (\{.*\})$", out, re.MULTILINE)
    assert len(printed) == len(steps)
    for line, step in zip(printed, steps):
        counts = ast.literal_eval(line)
        assert [[a, b, c] for (a, b), c in counts.items()] == step["pair_counts"]


def test_text_and_corpus_give_the_same_trace_as_words(capsys, tmp_path):
    text = "low " * 5 + "lower " * 2 + "newest " * 6 + "widest " * 3
    assert main(CLASSIC) == 0
    expected = capsys.readouterr().out
    assert main(["explain", "--text", text, "--merges", "10"]) == 0
    assert capsys.readouterr().out == expected
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(text.replace(" ", "\n"), encoding="utf-8")
    assert main(["explain", "--corpus", str(corpus), "--merges", "10"]) == 0
    assert capsys.readouterr().out == expected


def test_other_tie_rule_and_end_of_word(capsys):
    args = ["--merges", "1", "--tie-break", "subword-nmt", "--end-of-word", "attached"]
    assert main([*CLASSIC[:3], *args]) == 0
    out = capsys.readouterr().out
    assert chosen(out) == [(("s", "t</w>"), 9)]
    assert "dictionary: {'l o w</w>': 5," in out


def test_stops_early_and_says_why(capsys):
    assert main(["explain", "--words", "ab:1 cd:3", "--min-frequency", "2"]) == 0
    out = capsys.readouterr().out
    assert chosen(out) == [(("c", "d"), 3), (("cd", "</w>"), 3)]
    assert "stopped after 2 merges: the most frequent pair occurs 1 times (< 2)" in out
    assert main(["explain", "--words", "a:1", "--end-of-word", "none"]) == 0
    assert "stopped after 0 merges: no pair is left" in capsys.readouterr().out


def test_encode_after_training(capsys):
    assert main([*CLASSIC, "--encode", "lowest", "highing"]) == 0
    out = capsys.readouterr().out
    assert "result: ('low', 'est</w>')" in out
    assert "result: ('h', 'i', 'g', 'h', 'i', 'n', 'g', '</w>')" in out


def test_explain_apply_steps():
    lines: list[str] = []
    merges = [pair for pair, _ in CLASSIC_MERGES]
    assert explain_apply("loki", merges, emit=lines.append) == ["lo", "k", "i", "</w>"]
    assert lines == [
        "word split into characters: ('l', 'o', 'k', 'i', '</w>')",
        "merge rank 3 ('l', 'o'): ('lo', 'k', 'i', '</w>')",
        "result: ('lo', 'k', 'i', '</w>')",
    ]
    lines.clear()
    assert explain_apply("newest", merges, emit=lines.append) == ["newest</w>"]
    ranks = [int(m) for m in re.findall(r"^merge rank (\d+)", "\n".join(lines), re.MULTILINE)]
    assert ranks == [0, 1, 2, 5, 6, 7]


def test_model_encode_uses_the_models_merges_and_config(capsys, monkeypatch):
    class FakeTokenizer:
        merges = [("b", "a_"), ("a", "b_")]
        config = TokenizerConfig(end_of_word="attached", end_of_word_symbol="_")

    monkeypatch.setattr(subword, "load", lambda path: FakeTokenizer(), raising=False)
    assert main(["explain", "--model", "m.json", "--encode", "ab", "ba", "aa"]) == 0
    out = capsys.readouterr().out
    assert "word split into characters: ('a', 'b_')" in out
    assert "merge rank 1 ('a', 'b_'): ('ab_',)" in out
    assert "merge rank 0 ('b', 'a_'): ('ba_',)" in out
    assert "result: ('a', 'a_')" in out


def test_format_table_and_parse_words():
    assert format_table([(("l", "o", "w", "</w>"), 5), (("a",), 1)]) == "{'l o w </w>': 5, 'a': 1}"
    assert parse_words(" low:5\tlower:2 a:b:3 ") == {"low": 5, "lower": 2, "a:b": 3}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--words", "low:x"], "count must be a positive integer"),
        (["--words", "low:-1"], "count must be a positive integer"),
        (["--words", "low:0"], "count must be a positive integer"),
        (["--words", "low:5 low:2"], "twice"),
        (["--words", "low"], "is not WORD:COUNT"),
        (["--words", ":3"], "is not WORD:COUNT"),
        (["--words", " "], "no words"),
        (["--text", ""], "no words"),
        (["--corpus", "/nonexistent/corpus.txt"], "cannot read /nonexistent/corpus.txt"),
        ([], "give exactly one of"),
        (["--words", "a:1", "--text", "a"], "give exactly one of"),
        (["--words", "a:1", "--merges", "-1"], "--num-merges must be >= 0"),
        (["--words", "a:1", "--min-frequency", "0"], "--min-frequency must be >= 1"),
        (["--words", "a:1", "--end-of-word-symbol", ""], "must not be empty"),
        (["--model", "m.json"], "--model needs --encode"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, argv, message):
    assert main(["explain", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("subword explain: error: ")
    assert message in lines[0]


def test_invalid_utf8_corpus_names_file_and_offset(capsys, tmp_path):
    corpus = tmp_path / "bad.txt"
    corpus.write_bytes(b"low low\n\xff lower")
    assert main(["explain", "--corpus", str(corpus)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"subword explain: error: {corpus}: invalid UTF-8 at byte offset 8"]
