"""Fuzzing that stays: each target of `tests/fuzz.py` runs in a child process with a fixed
seed, a time budget and a memory limit (RLIMIT_AS), so a crash, a hang or a blow-up fails
this test with the seed and case that reproduce it. `scripts/fuzz.py` runs the same targets
for longer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fuzz import TARGETS

HERE = Path(__file__).resolve().parent
# Seconds per target in the test suite; SUBWORD_FUZZ_SECONDS overrides.
SECONDS = float(os.environ.get("SUBWORD_FUZZ_SECONDS", "20"))
MEMORY_MB = 3072
SEED = 20261123


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_fuzz_target(target: str) -> None:
    done = subprocess.run(
        [sys.executable, str(HERE / "fuzz.py"), target, str(SEED), str(SECONDS), str(MEMORY_MB)],
        capture_output=True,
        text=True,
        timeout=SECONDS + 120,
        cwd=HERE,
    )
    assert done.returncode == 0, (
        f"fuzz target {target} failed (exit {done.returncode}); reproduce with "
        f"`python tests/fuzz.py {target} {SEED} {SECONDS} {MEMORY_MB}`\n{done.stderr[-4000:]}"
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["cases"] > 0
