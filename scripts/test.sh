#!/usr/bin/env bash
# The project's test entry point, for people and for CI (.ci/run calls it).
#
# 1. Installs, from Debian packages and only when missing, the LLVM 19 tools the tests use as
#    oracles (llvm-mc-19, llvm-objdump-19, llvm-readobj-19, ld.lld-19, clang-19), and the HSA
#    runtime with its header (libhsa-runtime64-1, libhsa-runtime-dev), against which the
#    `--device gpu` tests check gcnc's and gcnc-hsa's HSA declarations and the no-GPU path, and
#    build the C programs that run on gcnc-hsa's software agent (with `cc`, or clang-19 when
#    there is no `cc`).
# 2. Runs the whole workspace's tests in one build with the one dev profile (see Cargo.toml),
#    against the committed Cargo.lock.
#
# Works from any directory.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

missing=()
if command -v llvm-mc-19 ld.lld-19 clang-19 >/dev/null 2>&1; then
    echo "==> LLVM 19 tools present (llvm-mc-19, ld.lld-19, clang-19)"
else
    missing+=(llvm-19 lld-19 clang-19)
fi
if dpkg -s libhsa-runtime64-1 libhsa-runtime-dev >/dev/null 2>&1; then
    echo "==> HSA runtime present (libhsa-runtime64.so.1, hsa/hsa.h)"
else
    missing+=(libhsa-runtime64-1 libhsa-runtime-dev)
fi
if [ ${#missing[@]} -gt 0 ]; then
    echo "==> installing ${missing[*]}"
    sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo=(sudo)
        else
            echo "error: ${missing[*]} are missing, and installing them needs root or sudo" >&2
            exit 1
        fi
    fi
    "${sudo[@]}" apt-get update
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y --no-install-recommends "${missing[@]}"
fi

echo "==> cargo test --workspace --locked"
cargo test --workspace --locked

# The library builds for an embedder without the program's dependencies (clap, the terminal
# crates) and without the HSA runtime's loader, as gcnc/Cargo.toml's `cli` and `gpu` features
# promise.
echo "==> cargo check -p gcnc --lib --no-default-features --locked"
cargo check -p gcnc --lib --no-default-features --locked

# The documentation builds without a warning (broken or private links included).
echo "==> cargo doc --workspace --no-deps (warnings are errors)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked
