"""The profile-guided build's workload (`scripts/pgo_train.py`) runs on this build and every
text it encodes decodes back: a change to an API it calls would otherwise break only the
release build (`scripts/build_wheel_pgo.sh`, which `benchmarks/run.sh` uses)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.peer]

ROOT = Path(__file__).resolve().parent.parent


def test_the_pgo_workload_runs_on_this_build(
    tmp_path: Path, cl100k_path: Path, o200k_path: Path
) -> None:
    env = {**os.environ, "SUBWORD_CL100K": str(cl100k_path), "SUBWORD_O200K": str(o200k_path)}
    work = tmp_path / "work"
    res = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "pgo_train.py"), str(work)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert res.returncode == 0, res.stderr[-3000:]
    assert "pgo_train: done" in res.stdout
    # The subword-nmt commands ran to the end: codes learned, text segmented.
    assert len((work / "codes").read_text(encoding="utf-8").splitlines()) > 1000
    assert (work / "out.txt").stat().st_size > (work / "corpus.txt").stat().st_size


def test_the_pgo_build_script_is_valid_bash() -> None:
    script = ROOT / "scripts" / "build_wheel_pgo.sh"
    res = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
