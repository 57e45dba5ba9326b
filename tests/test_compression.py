"""The 1994 byte-pair compression algorithm: the seeds' worked example, round trips on any
bytes, the format's checks, and the `compress` / `decompress` commands."""

from __future__ import annotations

import doctest
import glob
import json
import os
import re
import subprocess
import sys
import sysconfig
import zlib
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from subword import compression
from subword.compression import (
    DEFAULT_BLOCK_SIZE,
    MAX_BLOCK_SIZE,
    Step,
    compress,
    decompress,
)
from subword.teaching.compression import StepFormatter, describe_steps, trace

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("SUBWORD_SHARED", REPO.parent / "shared"))
CORPORA = Path(os.environ.get("SUBWORD_CORPORA", SHARED / "corpora"))
IN_CI = os.environ.get("CI") == "true"


def gage_fixture() -> dict:
    path = SHARED / "golden" / "seeds.json"
    if not path.exists():
        if IN_CI:
            pytest.fail(f"golden fixtures missing: {path} (set SUBWORD_SHARED)")
        pytest.skip(f"golden fixtures missing: {path} (set SUBWORD_SHARED)")
    return json.loads(path.read_text(encoding="utf-8"))["gage_compression"]


def pair_counts(data: bytes) -> Counter[tuple[int, int]]:
    """Non-overlapping counts of each pair, left to right, written independently of the core."""
    counts: Counter[tuple[int, int]] = Counter()
    for pair in set(zip(data, data[1:])):
        i = 0
        while i + 1 < len(data):
            if (data[i], data[i + 1]) == pair:
                counts[pair] += 1
                i += 2
            else:
                i += 1
    return counts


def stdlib_text(size: int) -> bytes:
    """``size`` bytes of real text: the standard library's own modules, in name order."""
    out = bytearray()
    for path in sorted(glob.glob(os.path.join(sysconfig.get_paths()["stdlib"], "*.py"))):
        with open(path, "rb") as f:
            out += f.read()
        if len(out) >= size:
            return bytes(out[:size])
    pytest.skip("the standard library sources are not installed")


def english_text() -> bytes:
    """English prose shipped with Python: the help topics behind `help('topics')`."""
    from pydoc_data.topics import topics

    return "\n".join(topics[name] for name in sorted(topics)).encode("utf-8")


# -- the seeds' worked example --------------------------------------------------------------


@pytest.mark.parametrize("case_index", [0, 1])
def test_seed_example(case_index: int) -> None:
    case = gage_fixture()["cases"][case_index]
    data = case["input"].encode("ascii")
    steps = trace(data)

    # What the fixture requires: the number of replacements, the lengths, no pair left twice,
    # and the exact round trip.
    assert len(steps) == len(case["steps"])
    assert [len(step.data) for step in steps] == [len(s) for s in case["steps"]]
    assert all(step.count >= 2 for step in steps)
    assert max(pair_counts(steps[-1].data).values(), default=0) < 2
    assert decompress(compress(data)) == data

    # Beyond it: our tie rule (smallest pair) and symbol order (highest unused byte first)
    # reproduce the seeds letter for letter once symbols are named as the seeds name them.
    letters = list(case["table"])  # Z, Y, X in the order the seeds make them
    names = {step.symbol: letter for step, letter in zip(steps, letters)}

    def show(bs: bytes) -> str:
        return "".join(names.get(b, chr(b)) for b in bs)

    assert [show(step.data) for step in steps] == case["steps"]
    assert {names[step.symbol]: show(bytes(step.pair)) for step in steps} == case["table"]


def test_seed_example_as_printed() -> None:
    assert list(describe_steps(b"aaabdaaabac")) == [
        "block 0: aaabdaaabac (11 bytes)",
        "  step 1: Z = aa (2 times) -> ZabdZabac (9 bytes)",
        "  step 2: Y = ab (2 times) -> ZYdZYac (7 bytes)",
        "  step 3: X = ZY (2 times) -> XdXac (5 bytes)",
    ]


def test_module_examples() -> None:
    result = doctest.testmod(compression)
    assert result.attempted > 0 and result.failed == 0


# -- the rules -------------------------------------------------------------------------------


def test_runs_count_without_overlap() -> None:
    assert trace(b"aaa") == []  # `aa` once
    steps = trace(b"aaaa")  # `aa` twice, then the new pair once
    assert len(steps) == 1 and steps[0].count == 2 and len(steps[0].data) == 2


def test_ties_go_to_the_smallest_pair() -> None:
    assert trace(b"abcdabcd")[0].pair == (ord("a"), ord("b"))


def test_symbols_are_unused_bytes_highest_first() -> None:
    data = bytes(range(250)) + b"xyxyxy"
    steps = trace(data)
    assert [s.symbol for s in steps] == list(range(255, 255 - len(steps), -1))
    assert all(s.symbol not in data for s in steps)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=400).map(bytes))
def test_stops_only_when_no_pair_occurs_twice(data: bytes) -> None:
    steps = trace(data)
    assert len(steps) <= 252  # four byte values in use at most
    before = data
    for step in steps:
        counts = pair_counts(before)
        best = max(counts.values())
        assert step.count == counts[step.pair] == best
        assert step.pair == min(pair for pair, n in counts.items() if n == best)
        before = step.data
    assert max(pair_counts(before).values(), default=0) < 2


# -- round trips -----------------------------------------------------------------------------

any_bytes = st.binary(max_size=3000) | st.lists(st.integers(0, 3), max_size=3000).map(bytes)


@settings(max_examples=150, deadline=None)
@given(any_bytes, st.sampled_from([1, 2, 3, 16, 255, 1000, DEFAULT_BLOCK_SIZE]))
def test_round_trip_any_bytes(data: bytes, block_size: int) -> None:
    assert decompress(compress(data, block_size=block_size)) == data


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"x",
        b"\x00",
        bytes(range(256)),
        bytes(range(256)) * 2,
        b"a" * 1_000_000,
        b"ab" * 100_000,
        b"\x00\xff" * 7,
    ],
    ids=["empty", "one", "nul", "all-256", "all-256-twice", "run-1M", "ab-run", "nul-ff"],
)
def test_round_trip_edges(data: bytes) -> None:
    packed = compress(data)
    assert decompress(packed) == data
    assert decompress(bytearray(packed)) == data
    assert decompress(memoryview(packed)) == data


def test_all_byte_values_leave_nothing_to_replace() -> None:
    data = bytes(range(256)) * 2  # every pair repeats, but no byte value is free
    assert trace(data) == []
    assert trace(data, block_size=256) == []
    # A block of its own frees the unused values again.
    steps = trace(bytes(range(256)) + b"abab", block_size=256)
    assert [(s.block, s.pair, s.data) for s in steps] == [(1, (0x61, 0x62), b"\xff\xff")]


def test_long_run_packs_small() -> None:
    data = b"a" * 1_000_000
    assert len(compress(data)) < len(data) / 100


def test_one_megabyte_of_real_text() -> None:
    data = stdlib_text(1 << 20)
    packed = compress(data)
    assert decompress(packed) == data
    assert len(packed) < 0.6 * len(data)


def test_english_text_gets_smaller() -> None:
    data = english_text()
    packed = compress(data)
    assert decompress(packed) == data
    assert len(packed) / len(data) < 0.7


@pytest.mark.corpus
@pytest.mark.parametrize("name", ["ko-constitution.txt", "en-kjv.txt"])
def test_shared_corpora(name: str) -> None:
    path = CORPORA / name
    if not path.exists():
        if IN_CI:
            pytest.fail(f"corpus missing: {path} (set SUBWORD_CORPORA)")
        pytest.skip(f"corpus missing: {path} (set SUBWORD_CORPORA)")
    data = path.read_bytes()[: 1 << 20]
    packed = compress(data)
    assert decompress(packed) == data
    assert len(packed) / len(data) < 0.6


def test_parallel_and_traced_output_agree() -> None:
    data = stdlib_text(50_000)
    seen: list[Step] = []
    assert compress(data, block_size=3000, on_step=seen.append) == compress(data, block_size=3000)
    assert {step.block for step in seen} == set(range(17))


def test_callback_exceptions_propagate() -> None:
    def stop(step: Step) -> None:
        raise RuntimeError("enough")

    with pytest.raises(RuntimeError, match="enough"):
        compress(b"aaabdaaabac", on_step=stop)


@pytest.mark.parametrize("block_size", [0, -1, MAX_BLOCK_SIZE + 1])
def test_bad_block_size(block_size: int) -> None:
    with pytest.raises(ValueError, match="block size must be between 1 and"):
        compress(b"abc", block_size=block_size)


def test_wrong_types() -> None:
    with pytest.raises(TypeError, match="encode text first"):
        compress("text")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        compress(b"abc", block_size=True)
    with pytest.raises(TypeError):
        decompress(None)  # type: ignore[arg-type]


# -- the format and its checks ---------------------------------------------------------------


def varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def stream(
    original: bytes,
    table: list[tuple[int, int, int]],
    packed: bytes,
    *,
    length: int | None = None,
    block_size: int = DEFAULT_BLOCK_SIZE,
) -> bytes:
    """A one-block stream made by hand, following the format in src/compress/format.rs."""
    assert len(table) <= 32
    header = b"SWPC\x01" + varint(block_size) + varint(len(original) if length is None else length)
    header += zlib.crc32(original).to_bytes(4, "little")
    body = bytes([len(table)]) + b"".join(bytes(entry) for entry in table)
    return header + body + varint(len(packed)) + packed


def test_hand_made_stream() -> None:
    # 0xff = ab, 0xfe = (0xff)c: "abcab" is 0xfe 0xff.
    data = stream(b"abcab", [(0xFF, 0x61, 0x62), (0xFE, 0xFF, 0x63)], b"\xfe\xff")
    assert decompress(data) == b"abcab"


def test_header_layout_and_checksum_are_zlibs() -> None:
    data = b"hello, hello, hello"
    packed = compress(data, block_size=300)
    assert packed[:5] == b"SWPC\x01"
    assert packed[5:7] == varint(300) and packed[7:8] == varint(len(data))
    assert int.from_bytes(packed[8:12], "little") == zlib.crc32(data)


def error_of(data: bytes) -> str:
    with pytest.raises(ValueError) as info:
        decompress(data)
    message = str(info.value)
    assert "\n" not in message
    assert re.match(r"compressed data, byte \d+: ", message), message
    return message


def test_bad_magic() -> None:
    assert "byte 0: not subword compressed data (bad magic" in error_of(b"PK\x03\x04rest")
    assert "byte 0: not subword compressed data (too short" in error_of(b"SW")
    assert "too short" in error_of(b"")


def test_unsupported_version() -> None:
    data = bytearray(compress(b"abc"))
    data[4] = 2
    assert "byte 4: unsupported format version 2" in error_of(bytes(data))


def test_every_truncation_names_an_offset() -> None:
    good = compress(stdlib_text(3000), block_size=700)
    for cut in range(len(good)):
        error_of(good[:cut])
    assert "truncated" in error_of(good[:-1])


def test_loop_in_the_table() -> None:
    message = error_of(stream(b"aa", [(0xFF, 0xFF, 0x61)], b"\xff"))
    assert "byte 12:" in message  # where the table starts
    assert "referring to itself in a loop: 0xff -> 0xff" in message
    message = error_of(stream(b"ab", [(0xFF, 0xFE, 0x61), (0xFE, 0x62, 0xFF)], b"\x61\x62"))
    assert re.search(r"loop: (0xfe -> 0xff -> 0xfe|0xff -> 0xfe -> 0xff)", message), message


def test_length_mismatch() -> None:
    message = error_of(stream(b"aaa", [(0xFF, 0x61, 0x61)], b"\xff", length=3))
    assert "block 0 (of 1) expands to 2 bytes, expected 3" in message
    good = compress(b"abcabc")
    longer = good[:7] + varint(7) + good[8:]
    assert "expected 7" in error_of(longer) or "truncated" in error_of(longer)


def test_symbol_defined_twice_and_trailing_bytes() -> None:
    assert "defines symbol 0x01 twice" in error_of(
        stream(b"ab", [(1, 0x61, 0x62), (1, 0x61, 0x62)], b"\x01")
    )
    assert "1 unexpected bytes after the last block" in error_of(compress(b"abc") + b"\x00")


def test_checksum_mismatch() -> None:
    data = bytearray(compress(b"some plain text"))
    data[8] ^= 0xFF
    assert "byte 8: checksum mismatch" in error_of(bytes(data))


def test_exponential_table_is_refused_quickly() -> None:
    # Bitmap form: 200 symbols, each the pair of the one before, 2^200 bytes from one byte.
    symbols = list(range(0x37, 0x37 + 200))
    bitmap = bytearray(32)
    pairs = b""
    for i, s in enumerate(symbols):
        bitmap[s // 8] |= 1 << (s % 8)
        below = 1 if i == 0 else symbols[i - 1]
        pairs += bytes([below, below])
    header = b"SWPC\x01" + varint(DEFAULT_BLOCK_SIZE) + varint(10) + bytes(4)
    data = header + bytes([200]) + bytes(bitmap) + pairs + varint(1) + bytes([symbols[-1]])
    assert "expands to more than 2^63 bytes, expected 10" in error_of(data)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_never_crash(data: bytes) -> None:
    for candidate in (data, b"SWPC\x01" + data):
        try:
            decompress(candidate)
        except ValueError as exc:
            assert str(exc).startswith("compressed data, byte ")


GOOD_ORIGINAL = b"the theme of the thesis: the thin thread" * 20
GOOD_STREAM = compress(GOOD_ORIGINAL, block_size=300)
# The header's CRC-32 follows two varints, so find where it sits rather than assume.
CRC_AT = GOOD_STREAM.index(zlib.crc32(GOOD_ORIGINAL).to_bytes(4, "little"))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(GOOD_STREAM) - 1), st.integers(0, 255)), min_size=1))
def test_mutated_streams_never_crash(changes: list[tuple[int, int]]) -> None:
    data = bytearray(GOOD_STREAM)
    for position, value in changes:
        data[position] = value
    try:
        restored = decompress(bytes(data))
    except ValueError as exc:
        assert str(exc).startswith("compressed data, byte ")
    else:
        assert zlib.crc32(restored) == int.from_bytes(data[CRC_AT : CRC_AT + 4], "little")


# -- rendering -------------------------------------------------------------------------------


def test_binary_data_shows_symbols_in_hex() -> None:
    lines = list(describe_steps(bytes([0, 1, 2] * 3)))
    assert lines[0] == r"block 0: \x00\x01\x02\x00\x01\x02\x00\x01\x02 (9 bytes)"
    assert lines[1] == r"  step 1: <ff> = \x00\x01 (3 times) -> <ff>\x02<ff>\x02<ff>\x02 (6 bytes)"


def test_text_placeholders_avoid_letters_in_the_block() -> None:
    lines = list(describe_steps(b"ZZZ YYY aaabdaaabac"))
    names = [re.match(r"  step \d+: (\S+) = ", line).group(1) for line in lines[1:]]
    assert names == ["X", "W", "V"]
    assert lines[-1].endswith("ZZZ YYY VdVac (13 bytes)")


def test_long_blocks_are_cut_to_width() -> None:
    formatter = StepFormatter(b"ab" * 500, width=40)
    step = trace(b"ab" * 500)[0]
    lines = formatter.lines(step)
    assert all(len(line) < 100 for line in lines)
    assert lines[1].endswith("... (500 bytes)")


# -- the commands ----------------------------------------------------------------------------


def subword(*args: str, input: bytes | None = None, cwd: Path | None = None):
    return subprocess.run(
        [sys.executable, "-m", "subword", *args],
        input=input,
        capture_output=True,
        cwd=cwd,
        timeout=120,
    )


def test_cli_round_trip_through_files(tmp_path: Path) -> None:
    original = tmp_path / "in.txt"
    original.write_bytes(english_text()[:100_000])
    packed, restored = tmp_path / "in.swpc", tmp_path / "out.txt"
    result = subword("compress", str(original), "-o", str(packed))
    assert result.returncode == 0, result.stderr
    assert result.stdout == b"" and result.stderr == b""
    assert packed.stat().st_size < original.stat().st_size
    result = subword("decompress", str(packed), "-o", str(restored))
    assert result.returncode == 0, result.stderr
    assert restored.read_bytes() == original.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.swpc", "in.txt", "out.txt"]


def test_cli_round_trip_through_pipes() -> None:
    data = bytes(range(256)) * 40 + b"\x00" * 5000
    packed = subword("compress", "--block-size", "1000", input=data)
    assert packed.returncode == 0, packed.stderr
    assert decompress(packed.stdout) == data
    restored = subword("decompress", "-", input=packed.stdout)
    assert restored.returncode == 0, restored.stderr
    assert restored.stdout == data


SEED_LINES = [
    "block 0: aaabdaaabac (11 bytes)",
    "  step 1: Z = aa (2 times) -> ZabdZabac (9 bytes)",
    "  step 2: Y = ab (2 times) -> ZYdZYac (7 bytes)",
    "  step 3: X = ZY (2 times) -> XdXac (5 bytes)",
]


def test_cli_steps_go_to_stderr_when_writing_stdout() -> None:
    result = subword("compress", "--steps", input=b"aaabdaaabac")
    assert result.returncode == 0, result.stderr
    lines = result.stderr.decode().splitlines()
    assert lines[:4] == SEED_LINES
    assert re.fullmatch(
        r"11 bytes -> \d+ bytes \(ratio [\d.]+\), 3 replacements in 1 block", lines[4]
    )
    assert decompress(result.stdout) == b"aaabdaaabac"


def test_cli_steps_go_to_stdout_when_writing_a_file(tmp_path: Path) -> None:
    source = tmp_path / "seed.txt"
    source.write_bytes(b"aaabdaaabacc")
    result = subword("compress", "--steps", str(source), "-o", str(tmp_path / "seed.swpc"))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.decode().splitlines()
    assert lines[3] == "  step 3: X = ZY (2 times) -> XdXacc (6 bytes)"
    assert decompress((tmp_path / "seed.swpc").read_bytes()) == b"aaabdaaabacc"


def test_cli_bad_input_is_one_line_and_leaves_no_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.swpc"
    bad.write_bytes(b"SWPC\x07 not really")
    out = tmp_path / "out.txt"
    result = subword("decompress", str(bad), "-o", str(out))
    assert result.returncode == 2
    message = result.stderr.decode()
    assert message.count("\n") == 1
    assert message.startswith("subword decompress: error: ")
    assert f"{bad}: compressed data, byte 4: unsupported format version 7" in message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.swpc"]


@pytest.mark.parametrize(
    "args",
    [
        ("compress", "no/such/file"),
        ("decompress", "no/such/file"),
        ("compress", "--block-size", "0"),
    ],
)
def test_cli_errors_exit_2(args: tuple[str, ...]) -> None:
    result = subword(*args, input=b"abc")
    assert result.returncode == 2
    assert result.stderr.decode().count("\n") == 1


def test_cli_replaces_an_existing_output_whole(tmp_path: Path) -> None:
    out = tmp_path / "out.swpc"
    out.write_bytes(b"old contents that are longer than the new ones" * 100)
    os.chmod(out, 0o640)
    result = subword("compress", "-o", str(out), input=b"new")
    assert result.returncode == 0, result.stderr
    assert decompress(out.read_bytes()) == b"new"
    assert out.stat().st_mode & 0o777 == 0o640


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_cli_refuses_to_write_binary_to_a_terminal() -> None:
    leader, follower = os.openpty()
    try:
        result = subprocess.run(
            [sys.executable, "-m", "subword", "compress"],
            input=b"abc",
            stdout=follower,
            stderr=subprocess.PIPE,
            timeout=120,
        )
    finally:
        os.close(follower)
        os.close(leader)
    assert result.returncode == 2
    assert b"not writing it to a terminal" in result.stderr
