#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# On a GPU server, from the project root, after building build-gpu/ (.devdeps/build-gpu.sh or the
# README's GPU commands): device facts, verify, compute-sanitizer memcheck and racecheck on the
# verify suite, and benchmarks. Logs go to $OUT (default ./device-out), at most 8 files.
# Usage: scripts/device-run.sh [step...]   steps: facts verify memcheck racecheck bench-<family>
set -uo pipefail
out=${OUT:-device-out}
mkdir -p "$out"
cli=${KERNELLAB_CLI:-build-gpu/gpu/kernellab-cli}
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(facts verify memcheck racecheck bench-transpose)
summary="$out/summary.txt"
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }
note "device-run $(date -u +%Y-%m-%dT%H:%M:%SZ) steps: ${steps[*]}"
for step in "${steps[@]}"; do
  t0=$(date +%s)
  case "$step" in
    facts)
      { nvidia-smi; nvcc --version; "$cli" devices; } >"$out/facts.txt" 2>&1
      note "facts: rc=$?"
      ;;
    verify)
      "$cli" verify >"$out/verify.txt" 2>&1
      note "verify: rc=$? $(tail -1 "$out/verify.txt")"
      ;;
    memcheck|racecheck)
      # The quick list keeps sanitizer time bounded; every variant and launch shape is still in it.
      compute-sanitizer --tool "$step" --error-exitcode 9 "$cli" verify --quick \
        >"$out/sanitizer-$step.txt" 2>&1
      note "$step: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer-$step.txt" | tail -1)"
      ;;
    bench-*)
      fam=${step#bench-}
      "$cli" bench "$fam" --json "$out/bench-$fam.json" >"$out/bench-$fam.txt" 2>"$out/bench-$fam.err"
      note "bench $fam: rc=$?"
      tail -c 6000 "$out/bench-$fam.txt"
      ;;
    *)
      note "unknown step $step"
      ;;
  esac
  note "  ($step took $(( $(date +%s) - t0 )) s)"
done
cat "$summary"
