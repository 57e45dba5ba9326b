#!/usr/bin/env bash
# Installs what the tests need and runs every check, the same on a laptop and in CI:
#   1. builds the package once, as an abi3 wheel (one wheel for every Python >= 3.10);
#   2. a virtualenv in .venv (the default python3) gets that wheel, its test extras and the
#      peer libraries used as oracles;
#   3. formatting, lints and type checks: cargo fmt, clippy, ruff, mypy;
#   4. cargo test, the same for AArch64 under qemu-user (scripts/test_aarch64.sh), then the
#      whole pytest suite on the default Python;
#   5. the smoke subset (`pytest -m smoke`) on every other supported Python pyenv has
#      (3.10 to 3.13), each in its own virtualenv with the same wheel.
# Arguments go to the full pytest run (e.g. `bash scripts/test.sh -x -k nmt`).
# SUBWORD_SMOKE=0 skips step 5.
set -euo pipefail
cd "$(dirname "$0")/.."
# Nothing here reads the terminal.
exec < <(:)

PYTHON=${PYTHON:-python3}
VENV=${SUBWORD_VENV:-.venv}
if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
PY="$VENV/bin/python"
"$PY" -m pip install --quiet --upgrade pip
"$PY" -m pip install --quiet "maturin>=1.5,<2"

# Headless Chromium and its driver for the lab's browser test (tests/test_lab_browser.py).
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "== apt-get install chromium chromium-driver"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
    else
        echo "chromium/chromedriver missing: the browser test will skip (fail under CI=true)"
    fi
fi

echo "== build the wheel"
rm -rf target/wheels-ci
"$VENV/bin/maturin" build --release --quiet --interpreter "$PY" --out target/wheels-ci
WHEEL=$(ls target/wheels-ci/subword-*.whl)
echo "$WHEEL"
"$PY" -m pip install --quiet "$WHEEL[test]"
"$PY" -m pip install --quiet --force-reinstall --no-deps "$WHEEL"
# CLIP's reference tokenizer; its dependencies (torch, torchvision) are not needed for it.
"$PY" -m pip install --quiet --no-deps "clip-anytorch>=2.5,<3"
# Llama 3's tokenizer.model and reference tokenizer (tiktoken with its regex and specials);
# the package's other dependencies (the model code's) are not needed for it.
"$PY" -m pip install --quiet --no-deps --only-binary :all: "llama-models>=0.3,<1"
# SentencePiece's own test model and text, which only its sdist ships (not built, only read).
"$PY" scripts/fetch_sentencepiece_tests.py

echo "== format, lint, types"
cargo fmt --all -- --check
cargo clippy --quiet --all-targets -- -D warnings
cargo clippy --quiet --features python -- -D warnings
PY_DIRS=""
for dir in python tests benchmarks examples scripts; do
    if [ -d "$dir" ]; then PY_DIRS="$PY_DIRS $dir"; fi
done
"$VENV/bin/ruff" check --no-cache $PY_DIRS
"$VENV/bin/ruff" format --no-cache --check $PY_DIRS
"$VENV/bin/mypy" --no-error-summary

echo "== cargo test"
cargo test --quiet

echo "== cargo clippy and test for AArch64 (NEON), under qemu-user"
bash scripts/test_aarch64.sh

echo "== pytest ($("$PY" -c 'import sys; print(sys.version.split()[0])'), full suite)"
# Run from tests' parent with the installed package (not the source tree) on the path.
"$PY" -m pytest -q -p no:cacheprovider "$@"

if [ "${SUBWORD_SMOKE:-1}" != "0" ]; then
    MAIN=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
    for version in $(pyenv versions --bare 2>/dev/null | grep -E '^3\.1[0-9]+\.[0-9]+$' || true); do
        minor=${version%.*}
        if [ "$minor" = "$MAIN" ]; then continue; fi
        interpreter=$(PYENV_VERSION=$version pyenv which python)
        smoke_venv=".venv-smoke/$minor"
        if [ ! -x "$smoke_venv/bin/python" ]; then
            "$interpreter" -m venv "$smoke_venv"
        fi
        echo "== pytest ($version, smoke subset)"
        "$smoke_venv/bin/python" -m pip install --quiet --upgrade pip
        "$smoke_venv/bin/python" -m pip install --quiet "pytest>=7,<10" "hypothesis>=6.100,<7" "numpy>=1.21"
        "$smoke_venv/bin/python" -m pip install --quiet --force-reinstall --no-deps "$WHEEL"
        "$smoke_venv/bin/python" -m pytest -q -p no:cacheprovider -m smoke tests/test_smoke.py
    done
fi
