"""Word counts that add up (`subword.count`, `WordCounts`, count files, `merge-counts`,
training from counts): exactness against training on the whole corpus for any sharding and
merge order, the count-file format and its damage reports, settings that refuse to merge."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from peers import corpus_lines

import subword
from subword.errors import FormatError, InvalidInputError
from subword.scale.countfile import BLOCK_WORDS
from subword.scale.counts import WordCounts, load_counts, merge_count_files

# Few letters and short words: many pairs tie, so the tie rule decides most merges.
TEXT = st.text(alphabet="abcé \n", max_size=40)
TEXTS = st.lists(TEXT, min_size=1, max_size=25)


def outcome(source, **options):
    """The merges and vocabulary trained, or the error's message (an empty corpus must fail
    the same way from counts)."""
    try:
        tok = subword.train(source, **options)
    except InvalidInputError as exc:
        return str(exc)
    return tok.merges, tok.vocab


def shards_of(texts: list[str], cuts: list[int]) -> list[list[str]]:
    points = sorted({c % (len(texts) + 1) for c in cuts})
    bounds = [0, *points, len(texts)]
    return [texts[a:b] for a, b in zip(bounds, bounds[1:])]


def tree_merge(parts: list[WordCounts], rng: random.Random) -> WordCounts:
    """Merges in a random order and a random tree shape."""
    parts = parts[:]
    rng.shuffle(parts)
    while len(parts) > 1:
        i = rng.randrange(len(parts) - 1)
        parts[i : i + 2] = [parts[i].merge(parts[i + 1])]
    return parts[0]


@pytest.mark.parametrize("tie_break", ["lexicographic", "subword-nmt"])
@pytest.mark.parametrize("kind", ["classic", "byte"])
@settings(max_examples=60, deadline=None)
@given(texts=TEXTS, cuts=st.lists(st.integers(0, 30), max_size=5), seed=st.integers(0, 2**16))
def test_merged_shard_counts_train_as_the_whole_corpus(tie_break, kind, texts, cuts, seed):
    options = {"kind": kind, "tie_break": tie_break, "num_merges": 30, "min_frequency": 1}
    parts = [subword.count(iter(s), kind=kind) for s in shards_of(texts, cuts)]
    merged = tree_merge(parts, random.Random(seed))
    assert merged == subword.count(iter(texts), kind=kind)
    assert outcome(merged, **options) == outcome(iter(texts), **options)


@settings(max_examples=25, deadline=None)
@given(texts=TEXTS, cuts=st.lists(st.integers(0, 30), max_size=4), seed=st.integers(0, 2**16))
def test_count_files_merged_in_any_order_train_as_the_whole(tmp_path_factory, texts, cuts, seed):
    folder = tmp_path_factory.mktemp("shards")
    paths = []
    for i, shard in enumerate(shards_of(texts, cuts)):
        path = folder / f"{i}.swc"
        subword.count(iter(shard)).save(path)
        paths.append(path)
    random.Random(seed).shuffle(paths)
    merge_count_files(paths, folder / "all.swc")
    options = {"tie_break": "subword-nmt", "num_merges": 30, "min_frequency": 1}
    assert outcome(str(folder / "all.swc"), **options) == outcome(iter(texts), **options)
    assert load_counts(folder / "all.swc") == subword.count(iter(texts))


@settings(max_examples=40, deadline=None)
@given(texts=TEXTS, cuts=st.lists(st.integers(0, 30), max_size=5))
def test_first_is_exact_for_shards_merged_in_corpus_order(texts, cuts):
    # `first` is defined across shards as the order given: merging shard 0, 1, 2, ... in
    # memory keeps the words' first appearance in the concatenated corpus.
    options = {"tie_break": "first", "num_merges": 30, "min_frequency": 1}
    parts = [subword.count(iter(s)) for s in shards_of(texts, cuts)]
    merged = WordCounts.merge_all(parts)
    assert merged.items() == subword.count(iter(texts)).items()
    assert outcome(merged, **options) == outcome(iter(texts), **options)


def test_first_is_refused_for_counts_from_a_file(tmp_path):
    subword.count(iter(["low lower newest"])).save(tmp_path / "c.swc")
    with pytest.raises(InvalidInputError, match="tie_break='first'.*sorted by word"):
        subword.train(str(tmp_path / "c.swc"), tie_break="first", num_merges=3)


def test_real_corpus_sharded_by_lines_counts_and_trains_as_whole(tmp_path):
    lines = corpus_lines("en-shakespeare.txt")[:20000]
    whole_path = tmp_path / "whole.txt"
    whole_path.write_text("".join(lines), encoding="utf-8")
    files = []
    for i in range(3):
        path = tmp_path / f"part{i}.txt"
        path.write_text("".join(lines[i::3]), encoding="utf-8")
        files.append(path)
    for i, f in enumerate(files):
        subword.count(str(f), kind="byte").save(tmp_path / f"{i}.swc")
    merge_count_files([tmp_path / f"{i}.swc" for i in (2, 0, 1)], tmp_path / "all.swc")
    assert load_counts(tmp_path / "all.swc") == subword.count(str(whole_path), kind="byte")
    options = {"kind": "byte", "vocab_size": 600}
    tok = subword.train(str(tmp_path / "all.swc"), **options)
    assert tok.merges == subword.train(str(whole_path), **options).merges
    assert tok.config.pre_tokenizer == "gpt2"


def test_word_counts_api():
    c = subword.count(iter(["low lower low", "newest low"]))
    assert len(c) == 3 and c.total == 5
    assert c.items() == [("low", 3), ("lower", 1), ("newest", 1)]
    assert c.most_common(2) == [("low", 3), ("lower", 1)]
    pruned = c.prune(min_count=2)
    assert pruned.to_dict() == {"low": 3} and pruned.pruned == ("min_count=2",)
    top = c.merge(subword.count(iter(["newest"]))).prune(max_words=2)
    assert top.to_dict() == {"low": 3, "newest": 2}
    assert top.pruned == ("max_words=2",)
    with pytest.raises(InvalidInputError, match="min_count"):
        c.prune(min_count=0)
    import pickle

    back = pickle.loads(pickle.dumps(c))
    assert back.items() == c.items() and back.ordered
    assert "3 words" in repr(c)


def test_pruning_is_recorded_in_the_file_and_kept_by_merges(tmp_path):
    subword.count(iter(["a a b"])).prune(min_count=2).save(tmp_path / "a.swc")
    subword.count(iter(["a c"])).save(tmp_path / "b.swc")
    merge_count_files([tmp_path / "a.swc", tmp_path / "b.swc"], tmp_path / "ab.swc")
    merged = load_counts(tmp_path / "ab.swc")
    assert merged.pruned == ("min_count=2",)
    assert merged.to_dict() == {"a": 3, "c": 1}


@pytest.mark.parametrize(
    ("setting", "a", "b"),
    [
        ("kind", {"kind": "classic"}, {"kind": "byte", "pre_tokenizer": "whitespace"}),
        ("pre_tokenizer", {"kind": "byte"}, {"kind": "byte", "pre_tokenizer": "cl100k"}),
        ("lowercase", {}, {"lowercase": True}),
        ("normalization", {}, {"normalization": "nfc"}),
        ("special_tokens", {}, {"special_tokens": ["<s>"]}),
    ],
)
def test_merging_different_settings_names_the_setting(tmp_path, setting, a, b):
    ca, cb = subword.count(iter(["x y"]), **a), subword.count(iter(["x y"]), **b)
    with pytest.raises(InvalidInputError, match=f"different {setting}"):
        ca.merge(cb)
    ca.save(tmp_path / "a.swc")
    cb.save(tmp_path / "b.swc")
    with pytest.raises(InvalidInputError, match=f"different {setting}"):
        merge_count_files([tmp_path / "a.swc", tmp_path / "b.swc"], tmp_path / "ab.swc")
    assert not (tmp_path / "ab.swc").exists()


def test_training_with_another_counting_setting_is_an_error():
    counts = subword.count(iter(["low lower"]), kind="byte")
    with pytest.raises(InvalidInputError, match="pre_tokenizer='cl100k' differs"):
        subword.train(counts, pre_tokenizer="cl100k", num_merges=3)
    # Settings left out, or given as recorded, are the counts' own.
    tok = subword.train(counts, pre_tokenizer="gpt2", num_merges=3)
    assert tok.config.kind == "byte"


def _two_block_file(tmp_path: Path) -> bytes:
    words = [f"w{i}" for i in range(BLOCK_WORDS + 10)]
    counts = subword.count({w: i % 7 + 1 for i, w in enumerate(words)})
    counts.save(tmp_path / "big.swc")
    return (tmp_path / "big.swc").read_bytes()


def test_truncated_files_name_the_byte_offset(tmp_path):
    data = _two_block_file(tmp_path)
    assert load_counts(tmp_path / "big.swc").total > 0
    cuts = sorted({0, 1, 5, 9, 12, 30, 60, len(data) // 2, len(data) - 20, len(data) - 1})
    for cut in cuts:
        path = tmp_path / "cut.swc"
        path.write_bytes(data[:cut])
        with pytest.raises(FormatError) as info:
            load_counts(path)
        assert info.value.offset is not None and info.value.offset <= cut, cut
        assert "byte" in str(info.value)


def test_damaged_bytes_are_found(tmp_path):
    data = bytearray(_two_block_file(tmp_path))
    rng = random.Random(7)
    for _ in range(20):
        damaged = bytearray(data)
        at = rng.randrange(len(data))
        damaged[at] ^= 0x5A
        path = tmp_path / "bad.swc"
        path.write_bytes(bytes(damaged))
        with pytest.raises(FormatError, match="byte"):
            load_counts(path)
    path.write_bytes(bytes(data) + b"x")
    with pytest.raises(FormatError, match="after the end record"):
        load_counts(path)
    path.write_bytes(b"low 3\nlower 2\n")
    with pytest.raises(FormatError, match="not a subword count file"):
        load_counts(path)


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "subword", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_cli_count_merge_and_train_from_counts(tmp_path):
    lines = corpus_lines("en-kjv.txt")[:6000]
    (tmp_path / "a.txt").write_text("".join(lines[:3000]), encoding="utf-8")
    (tmp_path / "b.txt").write_text("".join(lines[3000:]), encoding="utf-8")
    for name in "ab":
        r = _cli("count", f"{name}.txt", "-o", f"{name}.swc", "--lowercase", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
    r = _cli("merge-counts", "a.swc", "b.swc", "-o", "ab.swc", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "distinct words" in r.stderr
    r = _cli(
        "train", "--from-counts", "ab.swc", "--vocab-size", "400", "-o", "m.json", cwd=tmp_path
    )
    assert r.returncode == 0, r.stderr
    r = _cli(
        "train",
        "a.txt",
        "b.txt",
        "--lowercase",
        "--vocab-size",
        "400",
        "-o",
        "t.json",
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    from_counts, from_text = subword.load(tmp_path / "m.json"), subword.load(tmp_path / "t.json")
    assert from_counts.merges == from_text.merges and from_counts.config.lowercase
    # User errors: one line, exit 2.
    r = _cli("count", "a.txt", "-o", "u.swc", "--kind", "byte", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = _cli("merge-counts", "a.swc", "u.swc", "-o", "x.swc", cwd=tmp_path)
    assert r.returncode == 2 and "different kind" in r.stderr and "Traceback" not in r.stderr
    (tmp_path / "cut.swc").write_bytes((tmp_path / "a.swc").read_bytes()[:-7])
    r = _cli(
        "train", "--from-counts", "cut.swc", "--vocab-size", "300", "-o", "y.json", cwd=tmp_path
    )
    assert r.returncode == 2 and "truncated" in r.stderr and "byte" in r.stderr
    r = _cli("train", "--from-counts", "a.txt", "--vocab-size", "300", "-o", "y.json", cwd=tmp_path)
    assert r.returncode == 2 and "not a count file" in r.stderr
    r = _cli("count", "a.txt", "-o", "p.swc", "--min-count", "0", cwd=tmp_path)
    assert r.returncode == 2 and "--min-count" in r.stderr
    assert not (tmp_path / "x.swc").exists() and not (tmp_path / "y.json").exists()
