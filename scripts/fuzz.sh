#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs every libFuzzer target of the loaders and parsers (tests/fuzz) for a while, starting from
# the seed corpora in tests/fuzz/corpus/<target>/. New inputs go to a scratch folder, never into
# the tree; a crash leaves its input in $KERNELLAB_FUZZ_ARTIFACTS and fails the run.
#   scripts/fuzz.sh                 60 s per target (what CI runs: 6 targets, about 6 minutes)
#   KERNELLAB_FUZZ_SECONDS=3600 scripts/fuzz.sh        an hour each (docs/input-files.md)
#   KERNELLAB_FUZZ_JOBS=8 ...       parallel jobs per target (libFuzzer -fork)
# Builds in build-sanitize/ (see scripts/sanitize.sh), with ASan and UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
dir="${KERNELLAB_SANITIZE_DIR:-build-sanitize}"
seconds="${KERNELLAB_FUZZ_SECONDS:-60}"
jobs="${KERNELLAB_FUZZ_JOBS:-1}"
artifacts="${KERNELLAB_FUZZ_ARTIFACTS:-$dir/fuzz-artifacts}"
flags="-fsanitize=address,undefined,fuzzer-no-link -fno-sanitize-recover=undefined"
flags+=" -fno-omit-frame-pointer -g -O1"
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="" \
  -DKERNELLAB_CUDA=OFF -DKERNELLAB_GUI=OFF -DKERNELLAB_FUZZ=ON >/dev/null
cmake --build "$dir" --parallel "$(nproc)" --target kl_fuzz_targets
mkdir -p "$artifacts"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
failed=0
for target in fuzz_points_csv fuzz_points_npy fuzz_knn_image fuzz_request fuzz_results \
    fuzz_worker_frames; do
  mkdir -p "$scratch/$target"
  echo "fuzz: $target for ${seconds} s"
  extra=()
  [ "$jobs" -gt 1 ] && extra+=("-fork=$jobs")
  # -rss_limit_mb: an input that makes a loader allocate beyond its own checks is a finding.
  if ! "$dir/tests/fuzz/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -max_len=65536 -print_final_stats=1 -artifact_prefix="$artifacts/$target-" "${extra[@]}" \
      "$scratch/$target" "$root/tests/fuzz/corpus/$target" 2>"$scratch/$target.log"; then
    tail -n 60 "$scratch/$target.log"
    echo "fuzz: $target FAILED; the input is in $artifacts"
    failed=1
  else
    grep -E "stat::number_of_executed_units|stat::new_units_added" "$scratch/$target.log" || true
  fi
done
exit "$failed"
