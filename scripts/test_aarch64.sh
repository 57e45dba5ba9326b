#!/usr/bin/env bash
# The Rust core's lints and tests for AArch64 (Apple silicon, Graviton), whose blocks are
# classified with NEON instead of SSE2 (`src/pretokenize/blocks.rs`): cross-compiled, and the
# tests run under qemu-user. Installs the target, a cross linker and qemu when it may (root
# with apt); otherwise skips, except under CI=true, where a missing tool fails.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=aarch64-unknown-linux-gnu

missing() {
    if [ "${CI:-}" = true ]; then
        echo "AArch64 tests: $1 (required under CI=true)" >&2
        exit 1
    fi
    echo "AArch64 tests skipped: $1"
    exit 0
}

if ! command -v qemu-aarch64 >/dev/null || ! command -v aarch64-linux-gnu-gcc >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "== apt-get install qemu-user gcc-aarch64-linux-gnu"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user gcc-aarch64-linux-gnu \
            libc6-dev-arm64-cross >/dev/null
    else
        missing "qemu-aarch64 or aarch64-linux-gnu-gcc not found (apt-get install qemu-user gcc-aarch64-linux-gnu)"
    fi
fi
if ! rustup target list --installed 2>/dev/null | grep -qx "$TARGET"; then
    rustup target add "$TARGET" || missing "rustup could not add $TARGET"
fi

export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu"
cargo clippy --quiet --target "$TARGET" --all-targets -- -D warnings
# qemu-user does not pass huge-page advice on to the host, so that test cannot see it there.
cargo test --quiet --target "$TARGET" -- \
    --skip pages::tests::a_large_buffer_is_marked_for_huge_pages_and_keeps_its_ids
