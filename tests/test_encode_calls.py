"""`Tokenizer.encode`, `encode_ordinary` and `encode_to_numpy` take the common call straight
to the core (`_core.TokenizerBase`) and every other call through Python (`_encode`,
`_encode_ordinary`, `_encode_to_numpy`): both routes give the same ids and errors for every
argument form tiktoken accepts. Lists of ids hold one reference per id."""

from __future__ import annotations

import ast
import gc
import inspect
import itertools
import os
import pickle
import platform
import random
import sys
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import subword
from subword.errors import InvalidInputError

SPECIAL = "<|endoftext|>"
TEXTS = ["low lower lowest", "newer wider", "the low end", "a new day"] * 5


@pytest.fixture(scope="module")
def byte_tok() -> subword.Tokenizer:
    return subword.train(iter(TEXTS), kind="byte", num_merges=60, special_tokens=[SPECIAL])


def _all() -> str:
    return "".join(["al", "l"])  # "all", but not the interned literal


# (allowed_special, disallowed_special) as keyword arguments; absent when None
ARGUMENTS = [
    {},
    {"disallowed_special": ()},
    {"disallowed_special": []},
    {"disallowed_special": "all"},
    {"disallowed_special": _all()},
    {"allowed_special": frozenset()},
    {"allowed_special": set(), "disallowed_special": ()},
    {"allowed_special": None, "disallowed_special": None},
    {"allowed_special": "all"},
    {"allowed_special": {SPECIAL}},
    {"allowed_special": [SPECIAL], "disallowed_special": ()},
    {"disallowed_special": {SPECIAL}},
]


def _python_route(tok: subword.Tokenizer, text: str, kwargs: dict) -> list[int]:
    return tok._encode(
        text, kwargs.get("allowed_special"), kwargs.get("disallowed_special"), None, None, None
    )


@pytest.mark.parametrize("kwargs", ARGUMENTS, ids=repr)
@pytest.mark.parametrize("text", ["low newer", f"low{SPECIAL}er", "", "x\ud800y"])
def test_both_routes_agree(byte_tok, kwargs: dict, text: str) -> None:
    try:
        want = _python_route(byte_tok, text, kwargs)
    except InvalidInputError as e:
        with pytest.raises(InvalidInputError, match="endoftext"):
            byte_tok.encode(text, **kwargs)
        with pytest.raises(InvalidInputError, match="endoftext"):
            byte_tok.encode_to_numpy(text, **kwargs)
        assert "endoftext" in str(e)
        return
    assert byte_tok.encode(text, **kwargs) == want
    assert byte_tok.encode_to_numpy(text, **kwargs).tolist() == want


def test_the_default_refuses_special_tokens_and_empty_disallows_none(byte_tok) -> None:
    text = f"low{SPECIAL}"
    with pytest.raises(InvalidInputError, match="endoftext"):
        byte_tok.encode(text)
    with pytest.raises(InvalidInputError, match="endoftext"):
        byte_tok.encode_to_numpy(text, disallowed_special=_all())
    ordinary = byte_tok.encode(text, disallowed_special=())
    assert byte_tok.special_tokens[SPECIAL] not in ordinary
    assert byte_tok.encode_ordinary(text) == ordinary
    assert byte_tok.encode(text, allowed_special="all")[-1] == byte_tok.special_tokens[SPECIAL]


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.sampled_from("lowe rnd<|>xt\u00e9\u4e00\ud800"), max_size=40))
def test_any_text_same_ids_both_routes(byte_tok, text: str) -> None:
    want = _python_route(byte_tok, text, {"disallowed_special": ()})
    assert byte_tok.encode(text, disallowed_special=()) == want
    assert byte_tok.encode_ordinary(text) == byte_tok._encode_ordinary(text) == want
    assert byte_tok.encode_to_numpy(text, disallowed_special=()).tolist() == want


def test_other_arguments_take_the_python_route(byte_tok) -> None:
    text = "low lower newer"
    ids = byte_tok.encode(text)
    assert byte_tok.encode(text, max_tokens=2) == ids[:2]
    assert byte_tok.encode(text, dropout=0.0) == ids
    assert byte_tok.encode(text, dropout=1.0, seed=3) == list(text.encode())
    with pytest.raises(InvalidInputError, match="dropout"):
        byte_tok.encode(text, dropout=2.0)
    with pytest.raises(InvalidInputError, match="seed"):
        byte_tok.encode(text, dropout=0.5, seed=-1)
    with pytest.raises(InvalidInputError, match="lacks"):
        byte_tok.encode(text, allowed_special={"<nope>"})


def test_models_encoded_partly_in_python_take_the_python_route() -> None:
    # Lowercasing is cleaning done in Python: the common call may not skip it.
    tok = subword.train(iter(TEXTS), num_merges=40, lowercase=True)
    assert tok.encode("LOW Newer") == tok.encode("low newer")
    assert tok.encode_to_numpy("LOW").tolist() == tok.encode("low")
    assert tok.encode_ordinary("LOW") == tok.encode("low")


def test_text_that_is_not_a_str_is_a_type_error(byte_tok) -> None:
    for call in (byte_tok.encode, byte_tok.encode_ordinary, byte_tok.encode_to_numpy):
        with pytest.raises(TypeError):
            call(b"bytes")  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            call(None)  # type: ignore[arg-type]


def test_signatures_show_tiktoken_defaults() -> None:
    params = inspect.signature(subword.Tokenizer.encode).parameters
    assert params["allowed_special"].default == ()
    assert params["disallowed_special"].default == "all"
    assert params["allowed_special"].kind is inspect.Parameter.KEYWORD_ONLY
    assert list(inspect.signature(subword.Tokenizer.encode_ordinary).parameters) == [
        "self",
        "text",
    ]
    doc = subword.Tokenizer.encode.__doc__ or ""
    assert "allowed_special" in doc and "dropout" in doc


def test_the_model_is_set_once(byte_tok) -> None:
    with pytest.raises(InvalidInputError, match="already set"):
        byte_tok._direct(byte_tok._core, None, None)


# A batch of at least 16 KiB on two or more threads makes its lists while the rest is encoded
# (`lists_while_encoding` in src/bindings/model.rs); smaller ones, or one thread, after.
BIG_BATCH = [f"{i} low lower newer {'wid' * (i % 7)}er\n" for i in range(4000)]


@pytest.mark.parametrize("num_threads", [None, 1, 2, 3])
def test_large_batches_give_each_texts_ids_in_order(byte_tok, num_threads) -> None:
    assert sum(len(t.encode()) for t in BIG_BATCH) >= 1 << 16
    want = [byte_tok.encode(t, disallowed_special=()) for t in BIG_BATCH]
    got = byte_tok.encode_batch(BIG_BATCH, num_threads=num_threads, disallowed_special=())
    assert got == want
    assert byte_tok.encode_batch(BIG_BATCH[:5], num_threads=num_threads) == want[:5]


_TEAM_THREADS = """
import os, sys
import numpy  # its own threads (OpenBLAS) start now, not at the first array
import subword
tok = subword.train(iter(["low lower newest widest"] * 50), kind="byte", num_merges=20)
texts = [f"{i} low lower newer" for i in range(20000)]  # 440 kB: shared out
def threads():
    return len(os.listdir("/proc/self/task"))
seen = [threads()]
for n in (3, 3, None, 1):
    tok.encode_batch_to_numpy(texts, num_threads=n)
    tok.encode_batch(texts, num_threads=n)
    tok.count_batch(texts, num_threads=n)
    seen.append(threads())
print(seen)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts threads in /proc")
def test_a_team_of_n_threads_starts_n_minus_one_and_keeps_them() -> None:
    # The calling thread is one of the team: a pool with a thread more would keep one idle,
    # spinning while the others work. Pools are kept for the next call of the same size.
    import subprocess

    env = {**os.environ, "RAYON_NUM_THREADS": "2"}
    out = subprocess.run(
        [sys.executable, "-c", _TEAM_THREADS], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    start, three, again, default, one = ast.literal_eval(out.stdout)
    assert three - start == 2  # num_threads=3: two helpers
    assert again == three  # the same pool again
    assert default - again == 1  # num_threads=None, RAYON_NUM_THREADS=2: one helper
    assert one == default  # num_threads=1: none


@pytest.mark.parametrize("num_threads", [1, 2, 3])
def test_a_batch_with_one_long_text_among_short_ones_keeps_every_text_in_place(
    byte_tok, num_threads
) -> None:
    # Runs are cut by bytes: the long text makes a run of its own.
    long = "lower newer wider " * 20_000
    texts = BIG_BATCH[:2000] + [long, ""] + BIG_BATCH[2000:]
    want = [byte_tok.encode(t, disallowed_special=()) for t in texts]
    assert byte_tok.encode_batch(texts, num_threads=num_threads) == want
    flat, offsets = byte_tok.encode_batch_to_numpy(texts, num_threads=num_threads)
    assert [flat[a:b].tolist() for a, b in zip(offsets[:-1], offsets[1:])] == want
    assert byte_tok.count_batch(texts, num_threads=num_threads) == [len(w) for w in want]


@pytest.mark.parametrize("num_threads", [None, 2])
def test_large_batches_name_the_first_text_with_a_forbidden_token(byte_tok, num_threads) -> None:
    texts = list(BIG_BATCH)
    # Runs far apart: the later one may well finish first.
    texts[3901] = f"x {SPECIAL}"
    texts[99] = f"y {SPECIAL}"
    with pytest.raises(InvalidInputError, match="text 99 of the batch"):
        byte_tok.encode_batch(texts, num_threads=num_threads)
    texts[99] = "y"
    with pytest.raises(InvalidInputError, match="text 3901 of the batch"):
        byte_tok.encode_batch(texts, num_threads=num_threads)
    got = byte_tok.encode_batch(texts, num_threads=num_threads, allowed_special="all")
    assert got[3901][-1] == byte_tok.special_tokens[SPECIAL]


# Lists of ids are filled by writing their slots on CPython (src/bindings/lists.rs): each
# slot must hold exactly one new reference, or ints would leak or be freed under the list.


def test_lists_are_written_directly_on_cpython() -> None:
    from subword._core import _testing

    release_build = not hasattr(sys, "gettotalrefcount")
    expected = platform.python_implementation() == "CPython" and release_build
    assert _testing.lists_written_directly() is expected


@pytest.mark.parametrize(
    "encode",
    [
        lambda tok, texts: [tok.encode(t) for t in texts],
        lambda tok, texts: [tok.encode_ordinary(t) for t in texts],
        lambda tok, texts: [tok.encode(t, allowed_special="all") for t in texts],
        lambda tok, texts: tok.encode_batch(texts, num_threads=1),
        lambda tok, texts: tok.encode_batch(texts, num_threads=2),
        lambda tok, texts: tok.encode_batch(texts * 1000, num_threads=2),  # 166 kB: overlapped
    ],
    ids=["encode", "encode_ordinary", "python route", "batch 1", "batch 2", "big batch 2"],
)
def test_each_id_in_a_list_holds_one_reference(byte_tok, encode) -> None:
    texts = ["low lower lowest " * 7, "newer wider lower", "a new day " * 3]
    lists = encode(byte_tok, texts)
    merged = [i for ids in lists for i in ids if i > 256]  # not CPython's shared small ints
    assert merged, "the texts should use merged tokens"
    counted = {i: merged.count(i) for i in set(merged)}
    # The int objects, taken from a list that stays alive through the test.
    objects = {ids[k]: ids for ids in lists for k in range(len(ids)) if ids[k] in counted}
    keep = [next(x for x in ids if x == i) for i, ids in objects.items()]
    want = [counted[x] for x in keep]

    def counts() -> list[int]:
        return [sys.getrefcount(x) for x in keep]

    before = counts()
    more = encode(byte_tok, texts)
    assert more == lists
    assert [now - was for now, was in zip(counts(), before, strict=True)] == want
    del more
    assert counts() == before


@pytest.mark.skipif(
    platform.python_implementation() != "CPython" or hasattr(sys, "gettotalrefcount"),
    reason="counts of CPython's shared small ints, release builds",
)
@pytest.mark.parametrize(
    "encode",
    [
        lambda tok, texts: [tok.encode_ordinary(t) for t in texts],
        lambda tok, texts: tok.encode_batch(texts * 2000, num_threads=2),
    ],
    ids=["encode_ordinary", "big batch 2"],
)
def test_shared_small_ints_in_lists_are_counted_as_python_counts_them(byte_tok, encode) -> None:
    # Ids up to 256 are CPython's shared small ints: counted like any int before 3.12,
    # immortal (their count never moves) from 3.12. The direct fill must do the same.
    texts = ["q, z. x; k! " * 5, "{[(<>)]}", "low lower"]
    lists = encode(byte_tok, texts)
    small = [i for ids in lists for i in ids if i <= 256]
    assert len(set(small)) >= 5, "the texts should use several byte ids"
    counted = {i: small.count(i) for i in set(small)}
    values = sorted(counted)

    def counts() -> list[int]:
        return [sys.getrefcount(v) for v in values]

    # The collector is off while counting: collecting other garbage (a cycle holding some
    # of these ints, from any earlier test) would move their counts in between.
    gc.collect()
    gc.disable()
    try:
        before = counts()
        more = encode(byte_tok, texts)
        during = counts()
        del more
        after = counts()
    finally:
        gc.enable()
    raised = [now - was for now, was in zip(during, before, strict=True)]
    immortal = sys.version_info >= (3, 12)
    assert raised == ([0] * len(values) if immortal else [counted[v] for v in values])
    assert after == before


def _handler_name(array: object) -> str | None:
    try:
        from numpy._core.multiarray import get_handler_name
    except ImportError:  # NumPy 1
        from numpy.core.multiarray import get_handler_name
    return get_handler_name(array)


def test_a_short_texts_array_owns_its_data_like_any_array(byte_tok) -> None:
    np = pytest.importorskip("numpy")
    text = "low lower newest"
    want = byte_tok.encode(text)
    array = byte_tok.encode_to_numpy(text)
    assert array.tolist() == want
    assert array.dtype == np.uint32 and array.flags.c_contiguous and array.flags.writeable
    assert array.flags.owndata and array.base is None
    if platform.python_implementation() == "CPython" and np.lib.NumpyVersion(
        np.__version__
    ) >= np.lib.NumpyVersion("1.22.0"):
        # Its data is allocated by subword, and freed by the handler the array keeps.
        assert _handler_name(array) == "subword_small_arrays"
    array[0] = 7
    array.resize(40, refcheck=False)
    assert array[0] == 7 and array[1 : len(want)].tolist() == want[1:]
    assert not array[len(want) :].any()
    assert pickle.loads(pickle.dumps(array)).tolist() == array.tolist()
    empty = byte_tok.encode_to_numpy("")
    assert empty.shape == (0,) and empty.dtype == np.uint32 and empty.flags.owndata


def test_large_results_keep_their_ids_while_their_buffers_are_reused(byte_tok) -> None:
    """A text of over 2 MiB gets a buffer of ids kept from an earlier large result once
    that result is gone (src/pages.rs): no live array, view or list may see another
    text's ids, and a reused buffer must not show its old ids past the new ones."""
    np = pytest.importorskip("numpy")
    words = " ".join(TEXTS).split()
    rng = random.Random(5)
    texts = [
        " ".join(rng.choice(words) + rng.choice("xyz.,") for _ in range(n))
        for n in (520_000, 590_000, 550_000)
    ]
    want = [byte_tok.encode(t) for t in texts]  # lists give their buffers back too
    # Each result has 4 MiB of ids (the least kept) and at most an id for two bytes of
    # text (the most a kept buffer may hold for a text of that size): buffers are kept
    # and reused, and three sizes make a reused one grow or hold more than it needs.
    assert all(1 << 20 <= len(w) <= len(t) // 2 for w, t in zip(want, texts))
    assert len({len(w) for w in want}) == 3

    first = byte_tok.encode_to_numpy(texts[0])
    view = first[5:500]
    del first  # the view keeps the ids alive: nothing is given back yet
    second = byte_tok.encode_to_numpy(texts[1])
    assert view.tolist() == want[0][5:500]
    del view  # now the first buffer is kept for the next large text
    third = byte_tok.encode_to_numpy(texts[2])
    second[:] = 0  # a result's ids are the caller's to change
    del second
    again = [byte_tok.encode_to_numpy(t) for t in texts]
    assert third.tolist() == want[2]
    for array, ids in zip(again, want):
        assert array.dtype == np.uint32 and array.flags.c_contiguous and array.flags.writeable
        assert array.tolist() == ids
    assert byte_tok.encode(texts[1]) == want[1]
    del again, third
    gc.collect()
    assert pickle.loads(pickle.dumps(byte_tok.encode_to_numpy(texts[2]))).tolist() == want[2]


def test_large_batches_keep_their_ids_while_their_buffers_are_reused(byte_tok) -> None:
    """A batch of over 4 MiB of ids is joined into a buffer kept from an earlier large
    result (src/pages.rs), on one thread or shared; the join writes every id without
    clearing the buffer first, so a reused buffer must hold exactly the new ids."""
    np = pytest.importorskip("numpy")
    words = " ".join(TEXTS).split()
    rng = random.Random(7)
    batches = []
    for n in (26_000, 29_000, 27_500):
        words_of = (rng.choice(words) + rng.choice("xyz.,") for _ in range(20 * n))
        line = iter(words_of)
        batches.append([" ".join(itertools.islice(line, 20)) + "\n" for _ in range(n)])
    want = [byte_tok.encode_batch(b, num_threads=1) for b in batches]
    flat = [[i for ids in w for i in ids] for w in want]
    # Each batch has 4 MiB of ids (the least kept), and three sizes.
    assert all(1 << 20 <= len(f) for f in flat) and len({len(f) for f in flat}) == 3

    def check(got, k: int) -> None:
        ids, offsets = got
        assert ids.dtype == np.uint32 and ids.flags.c_contiguous and ids.flags.writeable
        assert ids.tolist() == flat[k]
        assert offsets.tolist() == [0, *itertools.accumulate(len(w) for w in want[k])]

    for threads in (1, 2):
        first = byte_tok.encode_batch_to_numpy(batches[0], num_threads=threads)
        view = first[0][5:500]
        del first  # the view keeps the ids alive
        second = byte_tok.encode_batch_to_numpy(batches[1], num_threads=threads)
        assert view.tolist() == flat[0][5:500]
        del view  # the first buffer is kept now
        third = byte_tok.encode_batch_to_numpy(batches[2], num_threads=threads)
        second[0][:] = 0  # a result's ids are the caller's to change
        del second
        again = [byte_tok.encode_batch_to_numpy(b, num_threads=threads) for b in batches]
        check(third, 2)
        for k, got in enumerate(again):
            check(got, k)
        del again, third
        assert byte_tok.encode_batch(batches[1], num_threads=threads) == want[1]
        # A single text's result takes the same buffers.
        joined = "".join(batches[2])
        assert byte_tok.encode_to_numpy(joined).tolist() == byte_tok.encode(joined)


_SMALL_ARRAYS_CHECKED = """
import pickle, threading
import numpy as np
import subword
tok = subword.train(iter(["low lower newest widest"] * 50), kind="byte", num_merges=20)
made = [tok.encode_to_numpy(f"low {i} lower") for i in range(2000)]
views = [a[1:] for a in made[:100]]
for a in made[100:200]:
    a.resize(64, refcheck=False)
copies = [pickle.loads(pickle.dumps(a)) for a in made[:50]]
joined = np.concatenate(made)
def free_some(arrays):
    arrays.clear()
half = made[1000:]
del made[1000:]
t = threading.Thread(target=free_some, args=(half,))
t.start(); t.join(timeout=60)
del made, views, copies
print(len(joined))
"""


@pytest.mark.skipif(platform.python_implementation() != "CPython", reason="CPython's debug hooks")
def test_short_arrays_are_freed_by_the_allocator_that_made_them() -> None:
    # Python's debug hooks stop the process if memory is given to an allocator that did
    # not make it: arrays made, viewed, resized, pickled, joined, then freed on the making
    # thread and on another.
    pytest.importorskip("numpy")
    import subprocess

    env = {**os.environ, "PYTHONMALLOC": "debug"}
    out = subprocess.run(
        [sys.executable, "-c", _SMALL_ARRAYS_CHECKED],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) > 2000


@pytest.mark.parametrize("num_threads", [None, 1, 2])
def test_batches_take_any_sequence_of_str_and_name_a_text_that_is_not(
    byte_tok, num_threads
) -> None:
    texts = ["low lower", "newer wider", "a new day"]
    want = [byte_tok.encode(t) for t in texts]
    for sequence in (texts, tuple(texts), iter(texts), (t for t in texts)):
        assert byte_tok.encode_batch(sequence, num_threads=num_threads) == want
    for bad, kind in ((["a", 3], "int"), (["a", "b", None], "NoneType"), ([b"x"], "bytes")):
        index = len(bad) - 1
        calls = (byte_tok.encode_batch, byte_tok.encode_batch_to_numpy, byte_tok.count_batch)
        for call in calls:
            with pytest.raises(TypeError, match=f"text {index} of the batch is {kind}, not str"):
                call(bad, num_threads=num_threads)


class _Text(str):
    pass


@pytest.mark.parametrize("num_threads", [1, 2])
def test_batches_take_str_subclasses_refuse_one_str_and_keep_no_reference(
    byte_tok, num_threads
) -> None:
    texts = [_Text("low lower"), "newer wider " * 3000, _Text("a new day")]
    want = [byte_tok.encode(str(t)) for t in texts]
    counts = [sys.getrefcount(t) for t in texts]
    assert byte_tok.encode_batch(texts, num_threads=num_threads) == want
    flat, offsets = byte_tok.encode_batch_to_numpy(texts, num_threads=num_threads)
    assert flat.tolist() == [i for ids in want for i in ids]
    assert offsets.tolist()[-1] == len(flat)
    assert byte_tok.count_batch(texts, num_threads=num_threads) == [len(w) for w in want]
    # The core held each text while it read it, and let go of every one after.
    assert [sys.getrefcount(t) for t in texts] == counts
    calls = (byte_tok.encode_batch, byte_tok.encode_batch_to_numpy, byte_tok.count_batch)
    for call in calls:
        with pytest.raises(TypeError, match="not one str"):
            call("low lower", num_threads=num_threads)


@pytest.mark.parametrize("num_threads", [1, 2])
def test_a_refused_batch_gives_back_every_text_it_took(byte_tok, num_threads) -> None:
    # The texts before the bad item were taken (each with a reference of the core's own)
    # when the bad one is found: the error must give all of them back, whatever sequence
    # held them. Distinct strs, more than the core reads ahead, so its look-ahead runs.
    texts = [f"text number {i} low lower" for i in range(100)]
    counts = [sys.getrefcount(t) for t in texts]
    calls = (byte_tok.encode_batch, byte_tok.encode_batch_to_numpy, byte_tok.count_batch)
    makers = (lambda: texts + [7], lambda: (*texts, 7), lambda: iter(texts + [7]))
    for call in calls:
        for make in makers:
            with pytest.raises(TypeError, match="text 100 of the batch is int, not str"):
                call(make(), num_threads=num_threads)
            # The sequence made for the call is gone; only the core could still hold a text.
            assert [sys.getrefcount(t) for t in texts] == counts
    # And a batch that is taken whole gives them back after encoding.
    assert byte_tok.count_batch(texts, num_threads=num_threads) == [
        len(byte_tok.encode(t)) for t in texts
    ]
    assert [sys.getrefcount(t) for t in texts] == counts


# A list of at least 4,096 texts on two or more threads is encoded while its texts are read
# (`encode_arriving` in src/bindings/texts.rs): runs are handed to the helpers as they are
# read, and the calling thread joins in after the last.
ARRIVING = [f"{i} low lower newer {'wid' * (i % 7)}er" for i in range(12_000)]


@pytest.mark.parametrize("num_threads", [None, 1, 2, 3])
def test_a_list_read_while_it_is_encoded_gives_each_texts_ids_in_order(
    byte_tok, num_threads
) -> None:
    texts = list(ARRIVING)
    texts[5] = "lower newer wider " * 50_000  # a run of its own
    texts[6] = texts[-1] = ""
    texts[7] = _Text("a subclass of str")
    want = [byte_tok.encode(t) for t in texts]
    # The texts made here (not the empty str, which the interpreter shares).
    own = [t for t in texts[:50] if t]
    counts = [sys.getrefcount(t) for t in own]
    flat, offsets = byte_tok.encode_batch_to_numpy(texts, num_threads=num_threads)
    assert len(offsets) == len(texts) + 1
    assert [flat[a:b].tolist() for a, b in zip(offsets[:-1], offsets[1:])] == want
    assert [sys.getrefcount(t) for t in own] == counts


@pytest.mark.parametrize("num_threads", [None, 2, 3])
def test_a_list_read_while_it_is_encoded_names_its_first_bad_text_and_keeps_no_text(
    byte_tok, num_threads
) -> None:
    texts = list(ARRIVING)
    counts = [sys.getrefcount(t) for t in texts]
    # A forbidden token in two texts far apart: the earlier is named.
    texts[11_001] = f"x {SPECIAL}"
    texts[99] = f"y {SPECIAL}"
    with pytest.raises(InvalidInputError, match="text 99 of the batch"):
        byte_tok.encode_batch_to_numpy(texts, num_threads=num_threads)
    # An item that is not a str, found while runs before it are being encoded.
    texts[99] = texts[11_001] = "z"
    texts[10_000] = 7  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="text 10000 of the batch is int, not str"):
        byte_tok.encode_batch_to_numpy(texts, num_threads=num_threads)
    texts = list(ARRIVING)
    assert [sys.getrefcount(t) for t in texts] == counts


def test_the_core_refuses_one_str_as_a_batch_and_names_a_text_that_is_not_str(
    byte_tok,
) -> None:
    core = byte_tok._core
    with pytest.raises(TypeError, match="not one str"):
        core.encode_batch("low lower", None, None, 1)
    with pytest.raises(TypeError, match="text 1 of the batch is int, not str"):
        core.encode_batch_to_numpy(("a", 1), None, None, 1)
    with pytest.raises(TypeError, match="not iterable"):
        core.encode_batch(7, None, None, 1)
    assert core.encode_batch(iter(["low", "lower"]), None, None, 1) == [
        byte_tok.encode("low"),
        byte_tok.encode("lower"),
    ]


def test_a_batch_keeps_its_texts_while_another_thread_frees_them(byte_tok) -> None:
    # The core reads every text without the GIL. Here the caller's list is the only other
    # holder of its strs, and another thread empties it meanwhile, then reuses the memory
    # with strs of every small size. Non-ASCII texts: their UTF-8 lives in a small block
    # of Python's allocator, which it hands out again at once. Without the core's own
    # reference to each text, this reads freed memory (seen: wrong ids, or a segmentation
    # fault, with a build that borrowed the caller's list instead). A long
    # switch interval: the other thread runs once the call has let go of the GIL (arrays:
    # for all of the encoding), after it took the texts.
    def texts() -> list[str]:
        return [f"{i} low café lower newer " * 4 for i in range(20000)]

    want = [i for t in texts() for i in byte_tok.encode(t)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(5.0)
    try:
        for _ in range(2):
            batch = texts()
            started, done = threading.Event(), threading.Event()

            def churn(
                batch: list[str] = batch,
                started: threading.Event = started,
                done: threading.Event = done,
            ) -> None:
                started.wait(timeout=30)
                batch.clear()
                for _ in range(200):
                    if done.is_set():
                        return
                    junk = ["#" * (k % 700) for k in range(20000)]
                    del junk

            thread = threading.Thread(target=churn)
            thread.start()
            try:
                started.set()
                got, _ = byte_tok.encode_batch_to_numpy(batch, num_threads=2)
            finally:
                done.set()
                thread.join(timeout=60)
            assert batch == []  # the other thread did run
            assert got.tolist() == want
    finally:
        sys.setswitchinterval(interval)
