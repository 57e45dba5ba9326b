#!/usr/bin/env bash
# Installs what the tests need (a virtualenv in .venv with the package built from this
# checkout, its test extras and the peer libraries used as oracles) and runs every check:
# formatting, lints, Rust tests, Python tests. Used by .ci/run and the README.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/devnull.sh
source scripts/devnull.sh
# Nothing here reads the terminal.
exec < <(:)

PYTHON=${PYTHON:-python3}
VENV=${SUBWORD_VENV:-.venv}
if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
PY="$VENV/bin/python"
"$PY" -m pip install --quiet --upgrade pip
empty_devnull
# Builds the Rust core (release) and installs the package with its test dependencies.
"$PY" -m pip install --quiet ".[test]"
# CLIP's reference tokenizer; its dependencies (torch, torchvision) are not needed for it.
"$PY" -m pip install --quiet --no-deps "clip-anytorch>=2.5,<3"

echo "== format and lint"
cargo fmt --all -- --check
empty_devnull
cargo clippy --quiet --all-targets -- -D warnings
empty_devnull
cargo clippy --quiet --features python -- -D warnings
PY_DIRS=""
for dir in python tests benchmarks examples; do
    if [ -d "$dir" ]; then PY_DIRS="$PY_DIRS $dir"; fi
done
"$VENV/bin/ruff" check $PY_DIRS
"$VENV/bin/ruff" format --check $PY_DIRS

echo "== cargo test"
empty_devnull
cargo test --quiet

echo "== pytest"
# Run from tests' parent with the installed package (not the source tree) on the path.
"$PY" -m pytest -q -p no:cacheprovider "$@"
