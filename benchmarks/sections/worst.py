"""Hostile input for the encoder: one letter repeated, random letters (of both cases, and
lower-case only), digits, spaces, newlines, emoji, a single-line JSON, each in one call
(and at a tenth of its size in the full run, to see growth), beside normal text of the
same size (a prefix of the large English corpus). Each (input, call) runs in `worst_repeats`
fresh pinned processes, each recording the call's time and its peak memory above what the
process held before it (`timing.call_with_rss`); the median time and the largest peak are
kept, since one cold call on a shared host swings by a third between runs. What is
reported is the time per byte relative to the normal text, and peak bytes per input byte.
A process encodes its input once, "cold": repeating the call would time a cache of the one giant
piece in libraries that cache pieces."""

from __future__ import annotations

import statistics
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
        log(f"worst cases: {peer} ({len(tasks)} calls, {cfg.worst_repeats} processes each)")
        for task in tasks:  # a fresh process per call: its memory figure is its own
            runs, failed = [], None
            for attempt in range(cfg.worst_repeats):
                res = run_tasks(
                    cfg,
                    peer,
                    [task],
                    pin=True,
                    write_ref=peer == REFERENCE and attempt == 0,
                    timeout=cfg.worst_timeout,
                    cold=True,
                    encoding=cfg.worst_encoding,
                    rss=True,
                )
                runs.extend(res.cells)
                if not res.load.get("ok"):
                    failed = res.load.get("reason")
                    break
                if not res.cells or "seconds" not in res.cells[-1]:
                    break  # an error or a timeout is not repeated
            if runs:
                cells.append(combine_runs(runs))
            if failed is not None:
                cells.append({"peer": peer, "error": failed})
                break
    return {
        "normal": normal_key,
        "encoding": cfg.worst_encoding,
        "cases": cases,
        "cells": cells,
        "timeout": cfg.worst_timeout,
        "repeats": cfg.worst_repeats,
    }


def combine_runs(runs: list[dict]) -> dict:
    """One cell from the processes of one (input, call): the run of median time, with every
    run's seconds and the largest peak memory of them. A run that failed stands alone."""
    if "seconds" not in runs[-1]:
        return runs[-1]
    median = statistics.median_low(r["seconds"] for r in runs)
    cell = dict(next(r for r in runs if r["seconds"] == median))
    cell["runs"] = [r["seconds"] for r in runs]
    added = [r["rss_added_bytes"] for r in runs if r.get("rss_added_bytes") is not None]
    if added:
        cell["rss_added_bytes"] = max(added)
        cell["rss_added_runs"] = added
    return cell
