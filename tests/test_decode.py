"""decode's inputs and its two paths: the core decodes alone for a model with no Python
pre-tokenizer (lists read in place, NumPy arrays read as numbers), Python's `_decode` for
the rest. Both must give the same text for the same ids, whatever the container."""

from __future__ import annotations

import base64
import enum
from pathlib import Path

import pytest
from model_kinds import SPECIAL, TEXTS, kinds, models

import subword
from subword.errors import InvalidInputError

np = pytest.importorskip("numpy")

ERRORS = ["replace", "strict", "ignore", "surrogateescape", "backslashreplace"]


def _outcome(call, *args):
    try:
        return "ok", call(*args)
    except Exception as e:  # the same exception, with the same message, from both paths
        return type(e).__name__, str(e)


def _id_lists(tok: subword.Tokenizer) -> list[list[int]]:
    """Each text's ids, and every prefix of the multi-script ones (byte-level ids cut in
    the middle of a character)."""
    texts = [*TEXTS[:6], TEXTS[0] + SPECIAL + TEXTS[1]]  # a special token's id, where known
    out = [tok.encode(t, allowed_special="all") for t in texts]
    for ids in out[1:4]:
        out += [ids[:n] for n in range(len(ids))]
    return out


@pytest.mark.parametrize("kind", kinds())
def test_decode_gives_what_the_python_path_gives(kind: str) -> None:
    tok = models()[kind]
    for ids in _id_lists(tok):
        for errors in ERRORS:
            ours = _outcome(tok.decode, ids, errors)
            python = _outcome(tok._decode, ids, errors, True)
            assert ours == python, (kind, ids, errors)
            assert _outcome(tok.decode, tuple(ids), errors) == python
            assert _outcome(tok.decode, iter(ids), errors) == python


@pytest.mark.parametrize("kind", kinds())
def test_decode_batch_gives_what_the_python_path_gives(kind: str) -> None:
    # The core's loop over the batch against Python's (`_decode_batch`, a `decode` call
    # per list): the same texts, or the same exception, for any container of lists.
    tok = models()[kind]
    lists = _id_lists(tok)
    for errors in ERRORS:
        python = _outcome(tok._decode_batch, lists, errors)
        assert _outcome(tok.decode_batch, lists, errors) == python, (kind, errors)
        assert _outcome(tok.decode_batch, iter(lists), errors) == python
        tuples = (tuple(ids) for ids in lists)
        joined = _outcome(lambda b, e: tok.decode_batch(b, e, join=True), tuples, errors)
        assert joined == python
    assert _outcome(tok.decode_batch, lists) == _outcome(
        lambda b: [tok.decode(i) for i in b], lists
    )
    # An id out of range in the third list: the same error as decode's of that list.
    bad = [lists[0], lists[1], [*lists[2], 10**6], lists[3]]
    assert _outcome(tok.decode_batch, bad) == _outcome(tok._decode_batch, bad)
    assert _outcome(tok.decode_batch, bad) == _outcome(tok.decode, bad[2])
    assert tok.decode_batch([]) == []
    assert _outcome(tok.decode_batch, 5) == _outcome(tok._decode_batch, 5)


def test_decode_batch_reads_the_rows_of_arrays_and_reports_bad_errors() -> None:
    tok = models()["byte"]
    rows = np.array([tok.encode("ab cd")[:2], tok.encode("ef gh")[:2]], dtype=np.uint32)
    assert tok.decode_batch(rows) == [tok.decode(row.tolist()) for row in rows]
    assert tok.decode_batch([rows[0], rows[1].astype(np.int64)]) == tok.decode_batch(rows)
    # A handler is looked up only when a character is cut, as in `bytes.decode`.
    cut = tok.encode("\U0001d518")[:-1]
    assert tok.decode_batch([rows[0], cut]) == [tok.decode(rows[0]), tok.decode(cut)]
    with pytest.raises(LookupError):
        tok.decode_batch([rows[0], cut], "no-such-handler")
    with pytest.raises((ValueError, TypeError)):
        tok.decode_batch([cut], "re\0place")
    with pytest.raises(TypeError):
        tok.decode_batch([cut], 5)  # type: ignore[arg-type]


def test_a_split_character_follows_errors() -> None:
    tok = models()["byte"]
    ids = tok.encode("\U0001d518")  # not in the training texts: its four bytes
    assert len(ids) > 1, "the emoji must take several byte-level ids for this test"
    cut = ids[:-1]
    assert tok.decode(cut) == tok.decode_bytes(cut).decode("utf-8", "replace")
    assert "\ufffd" in tok.decode(cut)
    assert tok.decode(cut, "ignore") == ""
    with pytest.raises(UnicodeDecodeError):
        tok.decode(cut, "strict")
    with pytest.raises(TypeError):
        tok.decode(cut, 5)  # type: ignore[arg-type]
    with pytest.raises(LookupError):
        tok.decode(cut, "no-such-handler")


@pytest.mark.parametrize(
    "dtype", ["uint32", "int64", "int32", "uint64", "uint16", "int16", "uint8", "int8"]
)
def test_decode_reads_numpy_integer_arrays(dtype: str) -> None:
    tok = models()["byte"]
    ids = tok.encode(TEXTS[0] + TEXTS[3])
    limit = np.iinfo(dtype).max
    ids = [i for i in ids if i <= limit] or [0]
    want = tok.decode(ids)
    array = np.array(ids, dtype=dtype)
    assert tok.decode(array) == want
    assert tok.decode_bytes(array) == tok.decode_bytes(ids)
    # Strided and read-only views are read as numbers too.
    doubled = np.repeat(array, 2)[::2]
    assert not doubled.flags.c_contiguous
    assert tok.decode(doubled) == want
    array.flags.writeable = False
    assert tok.decode(array) == want


def test_decode_names_a_numpy_id_out_of_range() -> None:
    tok = models()["byte"]
    for bad, shown in [
        (np.array([0, 1, -1], dtype=np.int64), "-1"),
        (np.array([0, 1, 2**32], dtype=np.uint64), str(2**32)),
        (np.array([0, 1, -5], dtype=np.int8), "-5"),
    ]:
        with pytest.raises(InvalidInputError, match=rf"id {shown} at position 2 is not in"):
            tok.decode(bad)
    with pytest.raises(InvalidInputError, match="at position 0 is not an integer"):
        tok.decode(np.array([1.0, 2.0]))
    with pytest.raises(InvalidInputError, match="at position 0 is not an integer"):
        tok.decode(np.array([[1, 2], [3, 4]], dtype=np.uint32))


class Colour(enum.IntEnum):
    RED = 3


class Index:
    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self) -> int:
        return self.value


def test_decode_takes_lists_of_any_integers() -> None:
    tok = models()["byte"]
    ids = tok.encode(TEXTS[0])
    want = tok.decode(ids)
    # A list read in place until an item that is not an exact int, then item by item.
    for swapped in (np.uint32(ids[2]), Index(ids[2])):
        assert tok.decode([*ids[:2], swapped, *ids[3:]]) == want
    assert tok.decode([Colour.RED, *ids]) == tok.decode([3, *ids])
    for bad, position, message in [
        ([*ids[:4], True, *ids[4:]], 4, "is a bool"),
        ([*ids[:5], -1], 5, "is not in the vocabulary"),
        ([*ids[:1], 2**70], 1, "is not in the vocabulary"),
        ([*ids[:3], "7"], 3, "is not an integer"),
        ([*ids[:3], Index(-2)], 3, "is not in the vocabulary"),
    ]:
        with pytest.raises(InvalidInputError, match=f"at position {position} {message}"):
            tok.decode(bad)


def test_decode_survives_a_list_changed_while_it_is_read() -> None:
    """An id whose `__index__` changes the list: the list is then read item by item, as
    it is at each step, never from a stale copy of its slots."""
    tok = models()["byte"]
    ids = tok.encode(TEXTS[0])
    victim: list = []

    class Clears:
        def __index__(self) -> int:
            victim.clear()
            return ids[2]

    class Grows:
        def __index__(self) -> int:
            victim.extend(ids[3:])
            return ids[2]

    victim[:] = [*ids[:2], Clears(), *ids[3:]]
    assert tok.decode(victim) == tok.decode(ids[:3])
    victim[:] = [*ids[:2], Grows()]
    assert tok.decode(victim) == tok.decode(ids)


def test_decode_refuses_an_unused_id(tmp_path: Path) -> None:
    """A ranked vocabulary with a gap: the unused id decodes to no bytes, and is refused
    by name, while a used id decodes."""
    lines = [f"{base64.b64encode(bytes([b])).decode()} {b}" for b in range(256)]
    lines.append(f"{base64.b64encode(b'ab').decode()} 300")
    path = tmp_path / "gap.tiktoken"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tok = subword.load_tiktoken(path)
    assert tok.decode([300, 97]) == "aba"
    for decode in (tok.decode, tok.decode_bytes):
        with pytest.raises(InvalidInputError, match="id 256 at position 1 is not in"):
            decode([97, 256])
