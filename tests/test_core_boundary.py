"""The Rust core's Python boundary: option dicts read in one place, core errors mapped to
subword.errors, test hooks in `_core._testing`."""

from __future__ import annotations

import importlib

import pytest

from subword import _core
from subword.errors import FormatError, InvalidInputError


def test_unknown_option_keys_are_named():
    with pytest.raises(InvalidInputError, match='unknown option "bogus"'):
        _core.Model([("a", 0)], [], [], {"bogus": 1})
    with pytest.raises(InvalidInputError, match='unknown option "pattern"'):
        _core.WordCounter({"pattern": r"\w+"})
    with pytest.raises(InvalidInputError, match='unknown option "unit"'):
        _core.train(_core.WordCounter(), {"unit": "chars"})


def test_option_values_of_the_wrong_type_name_their_key():
    with pytest.raises(InvalidInputError, match='option "lowercase"'):
        _core.WordCounter({"lowercase": "yes"})
    with pytest.raises(InvalidInputError, match="unknown kind"):
        _core.Model([("a", 0)], [], [], {"kind": "chars"})


def test_missing_keys_take_the_defaults():
    model = _core.Model([("a", 0), ("b", 1), ("</w>", 2), ("ab", 3)], [("a", "b")], [], {})
    assert model.encode("ab") == [3, 2]
    counter = _core.WordCounter()
    counter.add_texts(["ab ab ab"])
    alphabet, merges = _core.train(counter, {"num_merges": 1})
    assert merges == [("a", "b")]
    assert "</w>" in alphabet


def test_compressed_data_errors_carry_the_offset():
    with pytest.raises(FormatError) as caught:
        _core.decompress(b"SWPC\x09")
    assert str(caught.value).startswith("compressed data, byte 4:")
    assert caught.value.offset == 4
    assert isinstance(caught.value, ValueError)


def test_invalid_utf8_file_is_a_format_error(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"fine\nbad \xff here\n")
    with pytest.raises(FormatError, match="invalid UTF-8 at byte 9") as caught:
        _core.WordCounter().add_file(str(path))
    assert (caught.value.path, caught.value.line, caught.value.offset) == (str(path), 2, 9)


def test_missing_files_are_file_not_found():
    with pytest.raises(FileNotFoundError):
        _core.WordCounter().add_file("/no/such/file.txt")


def test_testing_hooks_live_in_their_own_submodule():
    testing = importlib.import_module("subword._core._testing")
    assert testing is _core._testing
    assert testing.pretokenize(r"\w+", "a bc") == ["a", "bc"]
    assert not hasattr(_core, "pretokenize_first_difference")


def test_core_refuses_huge_ids_on_its_own():
    # Without the Python check in front, the core must not build a table of 2**32 entries.
    with pytest.raises(InvalidInputError, match=r'token "b" has id 4294967295, too large'):
        _core.Model([("a", 0), ("b", 2**32 - 1)], [], [])
    with pytest.raises(InvalidInputError, match=r'token "<s>" has id 5000000, too large'):
        _core.Model([("a", 0)], [], [("<s>", 5_000_000)])
    assert _core.Model([("a", 0), ("</w>", 1), ("b", 1000)], [], [])  # gaps are allowed
