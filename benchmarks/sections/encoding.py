"""Encoding with cl100k_base on each corpus: one thread (whole file, and line by line) in a
process pinned to one CPU, then batch calls with every core. tiktoken runs first and its
ids are the reference every other figure is checked against."""

from __future__ import annotations

from collections.abc import Callable

from benchmarks import inputs
from benchmarks.config import Config
from benchmarks.encoders import REFERENCE
from benchmarks.runner import Task, run_tasks

SINGLE = ("whole/list", "whole/array", "lines/list", "lines/array")
BATCH = ("batch/list", "batch/array")


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


def run(cfg: Config, log: Callable[[str], None]) -> dict:
    items = encode_inputs(cfg)
    loads: dict[str, dict] = {}
    cells: list[dict] = []
    for peer in peer_order(cfg.peers):
        for calls, pin in ((SINGLE, True), (BATCH, False)):
            tasks = [Task(key, path, c, group=key) for key, path in items for c in calls]
            log(f"encoding: {peer} {'one thread' if pin else 'batch'}")
            res = run_tasks(
                cfg,
                peer,
                tasks,
                pin=pin,
                write_ref=peer == REFERENCE,
                timeout=cfg.call_timeout,
            )
            if pin or peer not in loads:
                loads[peer] = res.load
            cells.extend(res.cells)
            if not res.load.get("ok"):
                log(f"  {peer}: not available: {res.load.get('reason')}")
                break
    return {
        "inputs": [{"name": k, "path": p} for k, p in items],
        "loads": loads,
        "cells": cells,
    }
