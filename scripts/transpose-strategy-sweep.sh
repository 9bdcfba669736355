#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every applicable strategy of the best transpose at the issue-18 shapes, forced one at a time
# (KERNELLAB_TRANSPOSE_STRATEGY), each verified and timed against cudaMemcpy D2D of its own run.
# The tile strategy's runs also time copy and padded (the seed's ceiling and tile).
# Usage: KERNELLAB_CLI=... scripts/transpose-strategy-sweep.sh [reps]
set -uo pipefail
cli=${KERNELLAB_CLI:-build/gpu/kernellab-cli}
reps=${1:-20}
declare -A strategies=(
  [8192x8192]="tile aligned-tile"
  [2048x32768]="tile aligned-tile"
  [8191x8193]="tile aligned-tile"
  [1000000x200]="tile staged-cols aligned-tile"
  [200x1000000]="tile staged-rows aligned-tile"
  [3x1000000]="tile staged-rows narrow-width"
  [16x1000000]="tile staged-rows narrow-width"
  [1000000x3]="tile staged-cols narrow-height"
)
for size in 8192x8192 2048x32768 8191x8193 1000000x200 200x1000000 3x1000000 16x1000000 1000000x3; do
  for s in ${strategies[$size]}; do
    variants=best
    [ "$s" = tile ] && variants=copy,padded,best
    echo "== $size strategy $s"
    KERNELLAB_TRANSPOSE_STRATEGY=$s "$cli" run transpose --size "$size" --variant "$variants" \
      --reps "$reps" --warmup 3 2>/dev/null | grep -E '^(copy|padded|best|Ceiling)|FAIL|rror'
  done
done
