"""Hostile input for the encoder: one letter repeated, random letters (of both cases, and
lower-case only), digits, spaces, newlines, emoji, a single-line JSON, each in one call
(and at a tenth of its size in the full run, to see growth), beside normal text of the
same size (a prefix of the large English corpus). Each (input, call) runs in a fresh
pinned process that records the call's time and its peak memory above what the process held
before it (`timing.call_with_rss`). What is reported is the time per byte relative to the
normal text, and peak bytes per input byte.
Each input is encoded once, "cold": repeating the call would time a cache of the one giant
piece in libraries that cache pieces."""

from __future__ import annotations

from collections.abc import Callable

from benchmarks import inputs
from benchmarks.config import Config
from benchmarks.encoders import REFERENCE
from benchmarks.runner import Task, run_tasks
from benchmarks.sections.encoding import peer_order

CALLS = ("whole/list", "whole/array")


def run(cfg: Config, log: Callable[[str], None]) -> dict:
    nbytes = cfg.worst_bytes
    normal = inputs.prefix(inputs.corpus("en-large.txt"), nbytes, cfg.cache)
    normal_key = f"normal text (the first {nbytes / inputs.MB:g} MB of en-large)"
    cases = []
    tasks = [Task(normal_key, str(normal), c) for c in CALLS]
    sizes = ((nbytes // 10, "1/10"), (nbytes, "full")) if cfg.worst_tenth else ((nbytes, "full"),)
    for case in cfg.worst_cases:
        make = inputs.WORST_CASES[case]
        for size, tag in sizes:
            key = f"{case} [{tag}: {size / inputs.MB:g} MB]"
            cases.append({"case": case, "size": tag, "key": key, "bytes": size})
            path = make(size, cfg.cache)
            tasks += [Task(key, str(path), c) for c in CALLS]
    cells = []
    for peer in peer_order(cfg.worst_encoders):
        log(f"worst cases: {peer} ({len(tasks)} processes)")
        for task in tasks:  # a fresh process per call: its memory figure is its own
            res = run_tasks(
                cfg,
                peer,
                [task],
                pin=True,
                write_ref=peer == REFERENCE,
                timeout=cfg.worst_timeout,
                cold=True,
                encoding=cfg.worst_encoding,
                rss=True,
            )
            cells.extend(res.cells)
            if not res.load.get("ok"):
                cells.append({"peer": peer, "error": res.load.get("reason")})
                break
    return {
        "normal": normal_key,
        "encoding": cfg.worst_encoding,
        "cases": cases,
        "cells": cells,
        "timeout": cfg.worst_timeout,
    }
