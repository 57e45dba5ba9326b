#!/usr/bin/env bash
# Builds the release wheel with profile-guided optimization (PGO), the build the benchmark
# suite measures (docs/performance.md#profile-guided-build):
#   1. a wheel instrumented to count what runs (rustc -Cprofile-generate);
#   2. that wheel runs scripts/pgo_train.py (text that is none of the benchmark corpora);
#   3. llvm-profdata merges the counts;
#   4. the wheel is built again, optimized with them (rustc -Cprofile-use).
# Usage: PYTHON=benchmarks/.venv/bin/python bash scripts/build_wheel_pgo.sh OUTDIR
# PYTHON needs maturin, NumPy and the rank files of benchmarks/requirements.txt.
# LLVM_PROFDATA names the merge tool; otherwise rustup's llvm-tools (added if missing),
# then the newest llvm-profdata-N on PATH, then llvm-profdata. Exits with 3 when there is
# none, so a caller can fall back to a plain build.
set -euo pipefail
cd "$(dirname "$0")/.."
exec < <(:)

OUT=${1:?usage: build_wheel_pgo.sh OUTDIR}
PY=${PYTHON:-python3}

find_profdata() {
    if [ -n "${LLVM_PROFDATA:-}" ]; then
        echo "$LLVM_PROFDATA"
        return
    fi
    local sysroot host tool
    sysroot=$(rustc --print sysroot)
    host=$(rustc -vV | sed -n 's/^host: //p')
    tool="$sysroot/lib/rustlib/$host/bin/llvm-profdata"
    # rustup's llvm-tools matches rustc's LLVM, which moves with each Rust release; a
    # system LLVM often does not (best effort: without rustup the search goes on).
    if [ ! -x "$tool" ] && command -v rustup >/dev/null; then
        rustup component add llvm-tools >/dev/null 2>&1 || true
    fi
    if [ -x "$tool" ]; then
        echo "$tool"
        return
    fi
    tool=$(compgen -c llvm-profdata- | sort -t- -k3 -n | tail -n1 || true)
    if [ -n "$tool" ]; then
        echo "$tool"
        return
    fi
    command -v llvm-profdata || true
}

PROFDATA=$(find_profdata)
if [ -z "$PROFDATA" ]; then
    echo "build_wheel_pgo: no llvm-profdata found; install it with" \
        "'rustup component add llvm-tools' or your system's LLVM (Debian: apt-get install llvm-19)," \
        "or set LLVM_PROFDATA" >&2
    exit 3
fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
MATURIN=("$PY" -m maturin build --release --quiet --interpreter "$PY")

echo "build_wheel_pgo: 1/4 instrumented build" >&2
RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-generate=$WORK/raw" CARGO_TARGET_DIR=target/pgo-generate \
    "${MATURIN[@]}" --out "$WORK/instrumented"
"$PY" -m pip install --quiet --no-deps --target "$WORK/site" "$WORK"/instrumented/subword-*.whl

echo "build_wheel_pgo: 2/4 training run" >&2
PYTHONPATH="$WORK/site" "$PY" scripts/pgo_train.py "$WORK/train"

echo "build_wheel_pgo: 3/4 merging the counts with $PROFDATA" >&2
if ! "$PROFDATA" merge -o "$WORK/merged.profdata" "$WORK"/raw/*.profraw; then
    echo "build_wheel_pgo: $PROFDATA could not read the counts of rustc's LLVM" \
        "($(rustc -vV | sed -n 's/^LLVM version: //p')); use a matching llvm-profdata" \
        "(rustup component add llvm-tools) or set LLVM_PROFDATA" >&2
    exit 3
fi

echo "build_wheel_pgo: 4/4 optimized build" >&2
mkdir -p "$OUT"
rm -f "$OUT"/subword-*.whl
RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-use=$WORK/merged.profdata" CARGO_TARGET_DIR=target/pgo-use SUBWORD_BUILD=pgo \
    "${MATURIN[@]}" --out "$OUT"
ls "$OUT"/subword-*.whl
