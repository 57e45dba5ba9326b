"""Shared test fixtures: where the golden fixtures and corpora live.

The shared folder holds data that is not part of the repository. Its location comes from
SUBWORD_SHARED (default: `shared/` beside the repository), the corpora from SUBWORD_CORPORA
(default: `<shared>/corpora`). When they are missing, tests that need them are skipped, except
under CI (CI=true), where a missing fixture is a failure rather than a silent skip.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


def shared_dir() -> Path:
    env = os.environ.get("SUBWORD_SHARED")
    return Path(env) if env else REPO_ROOT.parent / "shared"


def corpora_path() -> Path:
    env = os.environ.get("SUBWORD_CORPORA")
    return Path(env) if env else shared_dir() / "corpora"


def require(path: Path, variable: str) -> Path:
    """`path` if it exists; otherwise skip (or fail under CI) naming the variable to set."""
    if path.exists():
        return path
    message = f"{path} not found (set {variable})"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="session")
def golden() -> dict:
    """The seeds' worked examples, from <shared>/golden/seeds.json."""
    path = require(shared_dir() / "golden" / "seeds.json", "SUBWORD_SHARED")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


@pytest.fixture(scope="session")
def corpora_dir() -> Path:
    """The folder of shared corpora."""
    return require(corpora_path(), "SUBWORD_CORPORA")
