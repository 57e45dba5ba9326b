"""subword learn-bpe / apply-bpe against subword-nmt 0.3.8, side by side, on whole files.

    python benchmarks/nmt_speed.py ../shared/corpora/en-kjv.txt ... [--symbols 10000]

Both run as commands (`subword-nmt ...` and `subword ...`, interpreter start-up included,
bytecode cached), one after the other on the same input; their outputs are compared byte
for byte. Prints a Markdown table: wall time and CPU time (user + system, all threads) of
each, and the ratios. On a shared machine wall time follows the load, CPU time much less.
`--repeat N` runs every command N times, interleaved (subword-nmt, subword, subword-nmt,
...), and keeps each one's fastest wall and CPU time: on a shared machine other work only
ever adds time. `--apply-only` times apply-bpe alone, with codes learned by subword
(identical codes, as the full run shows), for inputs too large to wait for subword-nmt's
learning.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Bytecode is cached as a normal installation has it (an editable install of this package
# has none, and PYTHONDONTWRITEBYTECODE would make every run compile it again).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV["TQDM_DISABLE"] = "1"


def timed(argv: list[str]) -> tuple[float, float]:
    """Runs a command; returns (wall seconds, CPU seconds of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def fastest(repeat: int, commands: dict[str, list[str]]) -> dict[str, tuple[float, float]]:
    """Each command's fastest wall and CPU time over `repeat` interleaved rounds."""
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, argv in commands.items():
            runs[name].append(timed(argv))
    return {name: (min(w for w, _ in r), min(c for _, c in r)) for name, r in runs.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="+", type=Path)
    parser.add_argument("--symbols", type=int, default=10000, help="learn-bpe -s (default 10000)")
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs per command, fastest kept (default 1)"
    )
    parser.add_argument(
        "--apply-only",
        action="store_true",
        help="time apply-bpe only (codes learned by subword alone, identical to subword-nmt's)",
    )
    args = parser.parse_args()
    for tool in ("subword-nmt", "subword"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is not on PATH (pip install subword-nmt==0.3.8 and this package)")
    for tool in ("subword-nmt", "subword"):  # warm up: imports cached, bytecode written
        for command in ("learn-bpe", "apply-bpe"):
            timed([tool, command, "--help"])
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        for corpus in args.corpora:
            size = corpus.stat().st_size / 1e6
            codes, out = {}, {}
            learners = ("subword",) if args.apply_only else ("subword-nmt", "subword")
            for tool in ("subword-nmt", "subword"):
                codes[tool], out[tool] = t / f"{tool}.codes", t / f"{tool}.out"
            learn = fastest(
                args.repeat,
                {
                    tool: [tool, "learn-bpe", "-i", str(corpus), "-o", str(codes[tool])]
                    + ["-s", str(args.symbols)]
                    + (["-q"] if tool == "subword" else [])
                    for tool in learners
                },
            )
            if args.apply_only:
                codes["subword-nmt"].write_bytes(codes["subword"].read_bytes())
            apply = fastest(
                args.repeat,
                {
                    tool: [tool, "apply-bpe", "-c", str(codes["subword-nmt"])]
                    + ["-i", str(corpus), "-o", str(out[tool])]
                    for tool in ("subword-nmt", "subword")
                },
            )
            same_codes = codes["subword-nmt"].read_bytes() == codes["subword"].read_bytes()
            same_text = out["subword-nmt"].read_bytes() == out["subword"].read_bytes()
            steps = [("apply-bpe", apply["subword-nmt"], apply["subword"], same_text)]
            if not args.apply_only:
                learned = (learn["subword-nmt"], learn["subword"], same_codes)
                steps.insert(0, (f"learn-bpe -s {args.symbols}", *learned))
            for step, nmt, ours, same in steps:
                rows.append(
                    f"| {corpus.name} ({size:.1f} MB) | {step} | "
                    f"{nmt[0]:.2f} / {nmt[1]:.2f} | {ours[0]:.2f} / {ours[1]:.2f} | "
                    f"{nmt[0] / ours[0]:.0f}× / {nmt[1] / ours[1]:.0f}× | "
                    f"{'identical' if same else 'DIFFERENT'} |"
                )
            print(*rows[-len(steps) :], sep="\n", file=sys.stderr)
    print(
        "| input | command | subword-nmt s (wall / CPU) | subword s (wall / CPU) "
        "| ratio (wall / CPU) | output |"
    )
    print("|---|---|---:|---:|---:|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
