"""Encoding with each encoding (cl100k_base, o200k_base) on each corpus: one thread (whole
file, line by line, and the batch call on one thread for a few peers) in a process pinned to
one CPU, then batch calls with every core, and the fixed cost of a call (one call per line on
one-word lines). tiktoken runs first and its ids are the reference every other figure is
checked against."""

from __future__ import annotations

from collections.abc import Callable

from benchmarks import inputs
from benchmarks.config import Config
from benchmarks.encoders import REFERENCE
from benchmarks.runner import Task, run_tasks

SINGLE = ("whole/list", "whole/array", "lines/list", "lines/array", "whole/decode", "lines/decode")
BATCH = ("batch/list", "batch/array")
BATCH1 = ("batch1/list", "batch1/array")
PER_CALL = ("lines/list", "lines/array")
PER_CALL_KEY = "one-word lines"


def encode_inputs(cfg: Config) -> list[tuple[str, str]]:
    """(table name, file) for each corpus, cut to cfg.encode_bytes when set."""
    files = (
        [inputs.corpus(n) for n in cfg.encode_corpora] if cfg.encode_corpora else inputs.corpora()
    )
    out = []
    for path in files:
        if cfg.encode_bytes:
            path = inputs.prefix(path, cfg.encode_bytes, cfg.cache)
        out.append((path.name.split(".")[0], str(path)))
    return out


def peer_order(names: tuple[str, ...]) -> list[str]:
    """The reference first (always, so that every figure can be checked), then the rest."""
    return [REFERENCE] + [n for n in names if n != REFERENCE]


def run_encoding(cfg: Config, log: Callable[[str], None], encoding: str) -> dict:
    items = encode_inputs(cfg)
    per_call = str(inputs.one_word_lines(cfg.percall_lines, cfg.cache))
    loads: dict[str, dict] = {}
    cells: list[dict] = []
    for peer in peer_order(cfg.peers):
        single = SINGLE + (BATCH1 if peer in cfg.batch1_peers else ())
        for calls, pin in ((single, True), (BATCH, False)):
            tasks = [Task(key, path, c, group=key) for key, path in items for c in calls]
            if pin:
                tasks += [Task(PER_CALL_KEY, per_call, c, group=PER_CALL_KEY) for c in PER_CALL]
            log(f"encoding {encoding}: {peer} {'one thread' if pin else 'batch'}")
            res = run_tasks(
                cfg,
                peer,
                tasks,
                pin=pin,
                write_ref=peer == REFERENCE,
                timeout=cfg.call_timeout,
                encoding=encoding,
            )
            if pin or peer not in loads:
                loads[peer] = res.load
            cells.extend(res.cells)
            if not res.load.get("ok"):
                log(f"  {peer}: not available: {res.load.get('reason')}")
                break
    return {
        "encoding": encoding,
        "inputs": [{"name": k, "path": p} for k, p in items],
        "per_call": {"name": PER_CALL_KEY, "path": per_call, "lines": cfg.percall_lines},
        "loads": loads,
        "cells": cells,
    }


def run(cfg: Config, log: Callable[[str], None]) -> dict:
    """{encoding name: that encoding's inputs, peer loads and cells}."""
    return {name: run_encoding(cfg, log, name) for name in cfg.encodings}
