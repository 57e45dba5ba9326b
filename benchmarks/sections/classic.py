"""Classic `</w>` BPE against subword-nmt, through both command lines with the same flags:
`learn-bpe -s N -i in -o codes`, then `apply-bpe -c codes -i in -o out` (both apply the
codes subword-nmt learned, so applying is compared on equal input). Outputs must be
byte-identical; subword-nmt is pure Python, so this runs on a prefix of the corpus."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from benchmarks import inputs
from benchmarks.config import Config
from benchmarks.timing import failure_reason, run_child

TOOLS = {"subword-nmt": "subword-nmt", "subword": "subword"}


def _exe(tool: str) -> str:
    return str(Path(sys.executable).parent / TOOLS[tool])


def _available(tool: str, cache: Path) -> str | None:
    """None if `tool learn-bpe` and `tool apply-bpe` exist, else the reason."""
    if not Path(_exe(tool)).exists():
        return f"no `{TOOLS[tool]}` command in the benchmark environment"
    for cmd in ("learn-bpe", "apply-bpe"):
        res = run_child([_exe(tool), cmd, "--help"], timeout=60)
        if not res.ok:
            return f"`{TOOLS[tool]} {cmd}` is not available: " + failure_reason(res, 60)
    return None


def _first_difference(a: Path, b: Path) -> str | None:
    if a.read_bytes() == b.read_bytes():
        return None
    with open(a, encoding="utf-8", errors="replace") as fa, open(b, encoding="utf-8") as fb:
        for n, (la, lb) in enumerate(zip(fa, fb), 1):
            if la != lb:
                return f"differs from subword-nmt at line {n}"
    return "differs from subword-nmt in length"


def _step(tool: str, argv: list[str], out: Path, timeout: float) -> dict:
    res = run_child([_exe(tool), *argv], timeout=timeout)
    cell = {"seconds": res.seconds, "peak_rss_mb": res.peak_rss_mb}
    if not res.ok or not out.is_file():
        cell["error"] = failure_reason(res, timeout)
    return cell


def run(cfg: Config, log: Callable[[str], None]) -> dict:
    src = inputs.prefix(inputs.corpus(cfg.classic_corpus), cfg.classic_bytes, cfg.cache)
    work = cfg.cache / "classic"
    work.mkdir(parents=True, exist_ok=True)
    status = {tool: _available(tool, cfg.cache) for tool in TOOLS}
    cells = []
    for size in cfg.classic_sizes:
        codes = {tool: work / f"codes.{tool}.{size}" for tool in TOOLS}
        for tool in TOOLS:
            cell = {"tool": tool, "step": "learn-bpe", "symbols": size}
            if status[tool]:
                cells.append({**cell, "error": f"not available: {status[tool]}"})
                continue
            log(f"classic: {tool} learn-bpe -s {size}")
            codes[tool].unlink(missing_ok=True)
            argv = ["learn-bpe", "-s", str(size), "-i", str(src), "-o", str(codes[tool])]
            cell.update(_step(tool, argv, codes[tool], cfg.train_timeout))
            if tool != "subword-nmt" and "error" not in cell:
                cell["check"] = _first_difference(codes[tool], codes["subword-nmt"]) or "identical"
            cells.append(cell)
        reference_codes = codes["subword-nmt"]
        outputs = {tool: work / f"applied.{tool}.{size}" for tool in TOOLS}
        for tool in TOOLS:
            cell = {"tool": tool, "step": "apply-bpe", "symbols": size}
            if status[tool]:
                cells.append({**cell, "error": f"not available: {status[tool]}"})
                continue
            if not reference_codes.is_file():
                cells.append({**cell, "error": "no codes from subword-nmt to apply"})
                continue
            log(f"classic: {tool} apply-bpe ({size} codes)")
            outputs[tool].unlink(missing_ok=True)
            argv = ["apply-bpe", "-c", str(reference_codes), "-i", str(src)]
            argv += ["-o", str(outputs[tool])]
            cell.update(_step(tool, argv, outputs[tool], cfg.train_timeout))
            if tool != "subword-nmt" and "error" not in cell:
                ref = outputs["subword-nmt"]
                if ref.is_file():
                    cell["check"] = _first_difference(outputs[tool], ref) or "identical"
                else:
                    cell["check"] = "unchecked (subword-nmt gave no output)"
            cells.append(cell)
    return {
        "input": {"name": src.name, "bytes": src.stat().st_size, "corpus": cfg.classic_corpus},
        "available": status,
        "cells": cells,
    }
