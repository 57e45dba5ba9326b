"""A longer fuzzing campaign over the targets of `tests/fuzz.py`, for a maintainer to run
(the test suite runs each target for 20 seconds with one seed):

    .venv/bin/python scripts/fuzz.py --minutes 60            # all targets, split evenly
    .venv/bin/python scripts/fuzz.py --minutes 5 --target loaders --seed 7

Each round runs one target in a child process with a fresh seed, a time slice and a memory
limit; a failing round prints the command that reproduces it and the campaign goes on. The
summary (cases per target, failures) is printed at the end as a Markdown table, the form the
README's reliability section quotes.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "tests"
sys.path.insert(0, str(TESTS))

from fuzz import TARGETS  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=60.0, help="whole campaign")
    parser.add_argument("--target", choices=sorted(TARGETS), action="append")
    parser.add_argument("--seed", type=int, help="first seed (default: from the clock)")
    parser.add_argument("--slice", type=float, default=60.0, help="seconds per round")
    parser.add_argument("--memory-mb", type=int, default=3072)
    args = parser.parse_args()
    targets = args.target or sorted(TARGETS)
    seeds = random.Random(args.seed if args.seed is not None else time.time_ns())
    cases = dict.fromkeys(targets, 0)
    failures: list[str] = []
    deadline = time.monotonic() + args.minutes * 60
    while time.monotonic() < deadline:
        for target in targets:
            left = deadline - time.monotonic()
            if left <= 1:
                break
            seconds = min(args.slice, left)
            seed = seeds.randrange(2**31)
            argv = [
                sys.executable,
                str(TESTS / "fuzz.py"),
                target,
                str(seed),
                str(seconds),
                str(args.memory_mb),
            ]
            done = subprocess.run(
                argv, capture_output=True, text=True, cwd=TESTS, timeout=seconds + 300
            )
            if done.returncode == 0:
                cases[target] += json.loads(done.stdout.strip().splitlines()[-1])["cases"]
            else:
                last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
                failures.append(f"{target} seed {seed}: {last}")
                print(
                    f"FAILED: python tests/fuzz.py {target} {seed} {seconds} "
                    f"{args.memory_mb}\n  {last}",
                    file=sys.stderr,
                )
    print("| target | inputs | failures |\n|---|---:|---:|")
    for target in targets:
        found = sum(f.startswith(target + " ") for f in failures)
        print(f"| {target} | {cases[target]:,} | {found} |")
    for failure in failures:
        print(f"- {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
