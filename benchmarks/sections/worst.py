"""Worst cases for the encoder: a long run with no whitespace, one character repeated, a
single-line JSON. Each at its size and at a tenth of it, beside normal text of the same size
(a prefix of the large English corpus), all in the same pinned process; what is reported is
the time per byte relative to the normal text. Each input is encoded once, "cold": repeating
the call would time a cache of the one giant piece in libraries that cache pieces."""

from __future__ import annotations

from collections.abc import Callable

from benchmarks import inputs
from benchmarks.config import Config
from benchmarks.encoders import REFERENCE
from benchmarks.runner import Task, run_tasks
from benchmarks.sections.encoding import peer_order

CALLS = ("whole/list", "whole/array")


def run(cfg: Config, log: Callable[[str], None]) -> dict:
    biggest = max(cfg.worst_bytes.values())
    normal = inputs.prefix(inputs.corpus("en-large.txt"), biggest, cfg.cache)
    normal_key = f"normal text (the first {biggest / inputs.MB:g} MB of en-large)"
    cases = []
    tasks = [Task(normal_key, str(normal), c, group="normal") for c in CALLS]
    for case, nbytes in cfg.worst_bytes.items():
        make = inputs.WORST_CASES[case]
        for size, tag in ((nbytes // 10, "1/10"), (nbytes, "full")):
            key = f"{case} [{tag}: {size / inputs.MB:g} MB]"
            cases.append({"case": case, "size": tag, "key": key, "bytes": size})
            path = make(size, cfg.cache)
            tasks += [Task(key, str(path), c, group=case) for c in CALLS]
    cells = []
    for peer in peer_order(cfg.worst_encoders):
        log(f"worst cases: {peer}")
        res = run_tasks(
            cfg,
            peer,
            tasks,
            pin=True,
            write_ref=peer == REFERENCE,
            timeout=cfg.worst_timeout,
            cold=True,
        )
        cells.extend(res.cells)
        if not res.load.get("ok"):
            cells.append({"peer": peer, "error": res.load.get("reason")})
    return {"normal": normal_key, "cases": cases, "cells": cells, "timeout": cfg.worst_timeout}
