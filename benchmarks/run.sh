#!/usr/bin/env bash
# The one command for the benchmarks: makes the benchmark's own environment
# (benchmarks/.venv), installs the peers pinned in benchmarks/requirements.txt and subword
# built from this checkout (release), then runs the suite. Arguments go to the suite:
#   bash benchmarks/run.sh --quick        # minutes
#   bash benchmarks/run.sh                # the full run (about an hour; see benchmarks/README.md)
# BENCH_SKIP_BUILD=1 reuses the subword already installed in the environment.
set -euo pipefail
cd "$(dirname "$0")/.."
exec < <(:)

PYTHON=${PYTHON:-python3}
VENV=${BENCH_VENV:-benchmarks/.venv}
if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
PY="$VENV/bin/python"
"$PY" -m pip install --quiet --upgrade pip
"$PY" -m pip install --quiet -r benchmarks/requirements.txt
if [ -z "${BENCH_SKIP_BUILD:-}" ]; then
    # The release wheel is built with profile-guided optimization when an llvm-profdata is
    # at hand (scripts/build_wheel_pgo.sh), else as `pip install .` builds it; RESULTS.md
    # says which (BENCH_PGO=0 asks for the plain build).
    echo "benchmarks: building subword from $(pwd) (release)" >&2
    "$PY" -m pip install --quiet "maturin>=1.5,<2"
    if [ "${BENCH_PGO:-1}" != 0 ] \
        && PYTHON="$PY" bash scripts/build_wheel_pgo.sh target/wheels-bench; then
        "$PY" -m pip install --quiet --force-reinstall --no-deps target/wheels-bench/subword-*.whl
    else
        echo "benchmarks: plain release build (no profile-guided build; see above)" >&2
        "$PY" -m pip install --quiet --force-reinstall --no-deps .
    fi
fi
exec "$PY" -m benchmarks.suite "$@"
