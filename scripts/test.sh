#!/usr/bin/env bash
# The project's test entry point, for people and for CI (.ci/run calls it).
#
# 1. Installs the LLVM 19 tools the tests use as oracles (llvm-mc-19, llvm-objdump-19,
#    llvm-readobj-19, ld.lld-19, clang-19), from Debian packages, only when one is missing.
# 2. Runs the whole workspace's tests in one build with the one dev profile (see Cargo.toml),
#    against the committed Cargo.lock.
#
# Works from any directory.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

if command -v llvm-mc-19 ld.lld-19 clang-19 >/dev/null 2>&1; then
    echo "==> LLVM 19 tools present (llvm-mc-19, ld.lld-19, clang-19)"
else
    echo "==> installing LLVM 19 tools (llvm-19, lld-19, clang-19)"
    sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo=(sudo)
        else
            echo "error: llvm-19, lld-19 and clang-19 are missing, and installing them needs root or sudo" >&2
            exit 1
        fi
    fi
    "${sudo[@]}" apt-get update
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y --no-install-recommends llvm-19 lld-19 clang-19
fi

echo "==> cargo test --workspace --locked"
cargo test --workspace --locked
