"""subword learn-bpe / apply-bpe against subword-nmt 0.3.8, side by side, on whole files.

    python benchmarks/nmt_speed.py ../shared/corpora/en-kjv.txt ... [--symbols 10000]

Both run as commands (`subword-nmt ...` and `subword ...`, interpreter start-up included,
bytecode cached), one after the other on the same input; their outputs are compared byte
for byte. Prints a Markdown table: wall time and CPU time (user + system, all threads) of
each, and the ratios. On a shared machine wall time follows the load, CPU time much less.
`--repeat N` runs every command N times, interleaved (subword-nmt, subword, subword-nmt,
...), and keeps each one's fastest wall and CPU time: on a shared machine other work only
ever adds time. `--baseline CMD` times another build of `subword` (an older one, installed
in another environment) in the same rounds. `--apply-only` times apply-bpe alone, with
codes learned by subword (identical codes, as the full run shows), for inputs too large to
wait for subword-nmt's learning.
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
    parser.add_argument(
        "--baseline",
        metavar="COMMAND",
        help="another `subword` command (an older build) timed in the same rounds",
    )
    args = parser.parse_args()
    # name → command; "subword-nmt" first, "subword" last.
    tools = {"subword-nmt": "subword-nmt"}
    if args.baseline:
        tools["baseline"] = args.baseline
    tools["subword"] = "subword"
    for command in tools.values():
        if shutil.which(command) is None:
            sys.exit(f"{command} is not on PATH (pip install subword-nmt==0.3.8 and this package)")
    for command in tools.values():  # warm up: imports cached, bytecode written
        for step in ("learn-bpe", "apply-bpe"):
            timed([command, step, "--help"])
    ours = [name for name in tools if name != "subword-nmt"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        for corpus in args.corpora:
            size = corpus.stat().st_size / 1e6
            codes = {name: t / f"{name}.codes" for name in tools}
            out = {name: t / f"{name}.out" for name in tools}
            learners = ["subword"] if args.apply_only else list(tools)
            learn = fastest(
                args.repeat,
                {
                    name: [tools[name], "learn-bpe", "-i", str(corpus), "-o", str(codes[name])]
                    + ["-s", str(args.symbols)]
                    + (["-q"] if name != "subword-nmt" else [])
                    for name in learners
                },
            )
            if args.apply_only:
                codes["subword-nmt"].write_bytes(codes["subword"].read_bytes())
            apply = fastest(
                args.repeat,
                {
                    name: [tools[name], "apply-bpe", "-c", str(codes["subword-nmt"])]
                    + ["-i", str(corpus), "-o", str(out[name])]
                    for name in tools
                },
            )
            steps = [("apply-bpe", apply, out)]
            if not args.apply_only:
                steps.insert(0, (f"learn-bpe -s {args.symbols}", learn, codes))
            for step, times, files in steps:
                nmt = times["subword-nmt"]
                cells = [f"{nmt[0]:.2f} / {nmt[1]:.2f}"]
                for name in ours:
                    w, c = times[name]
                    same = files[name].read_bytes() == files["subword-nmt"].read_bytes()
                    cells.append(
                        f"{w:.2f} / {c:.2f} | {nmt[0] / w:.0f}× / {nmt[1] / c:.0f}× | "
                        f"{'identical' if same else 'DIFFERENT'}"
                    )
                rows.append(f"| {corpus.name} ({size:.1f} MB) | {step} | {' | '.join(cells)} |")
            print(*rows[-len(steps) :], sep="\n", file=sys.stderr)
    header = ["input", "command", "subword-nmt s (wall / CPU)"]
    for name in ours:
        header += [f"{name} s (wall / CPU)", "ratio (wall / CPU)", "output"]
    print("| " + " | ".join(header) + " |")
    print("|---|---|---:|" + "---:|---:|---|" * len(ours))
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
