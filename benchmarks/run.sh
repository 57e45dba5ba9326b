#!/usr/bin/env bash
# The one command for the benchmarks: makes the benchmark's own environment
# (benchmarks/.venv), installs the peers pinned in benchmarks/requirements.txt and subword
# built from this checkout (release), then runs the suite. Arguments go to the suite:
#   bash benchmarks/run.sh --quick        # minutes
#   bash benchmarks/run.sh                # the full run (~40 min; see benchmarks/README.md)
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
    echo "benchmarks: building subword from $(pwd) (release)" >&2
    "$PY" -m pip install --quiet --force-reinstall --no-deps .
fi
exec "$PY" -m benchmarks.suite "$@"
