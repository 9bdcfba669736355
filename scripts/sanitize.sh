#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The loaders' and parsers' test suites (ctest label "loaders") in an ASan + UBSan build made with
# Debian's clang, CUDA and the window off. Any sanitizer report fails the run. The same build
# directory (build-sanitize/) also holds the libFuzzer targets (scripts/fuzz.sh).
#   scripts/sanitize.sh            configure, build, run
# Environment: KERNELLAB_SANITIZE_DIR (default build-sanitize).
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${KERNELLAB_SANITIZE_DIR:-build-sanitize}"
flags="-fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=undefined"
flags+=" -fno-omit-frame-pointer -g -O1"
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="" \
  -DKERNELLAB_CUDA=OFF -DKERNELLAB_GUI=OFF -DKERNELLAB_FUZZ=ON >/dev/null
cmake --build "$dir" --parallel "$(nproc)" --target kl_loader_tests
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:allocator_may_return_null=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
cd "$dir"
ctest -L loaders --output-on-failure --timeout 900
