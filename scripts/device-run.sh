#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# On a GPU server, from the project root, after building build-gpu/ (.devdeps/build-gpu.sh or the
# README's GPU commands): device facts, verify, compute-sanitizer memcheck and racecheck on the
# verify suite, benchmarks. Logs go to $OUT (default ./device-out), few files (the device tool
# brings back at most 8).
# Usage: scripts/device-run.sh [step...]
#   facts | verify[:ARGS] | memcheck[:ARGS] | racecheck[:ARGS] | bench-NAME[:ARGS] | run-NAME:ARGS
#   ARGS are kernellab-cli arguments with '+' for spaces (commas stay, for lists), e.g.
#   bench-kmeans:--tpb+256,1024+--max-iter+3
#   Each step may be prefixed with a time limit in seconds: 300@racecheck
#   bench/run steps append their tables to benches.txt; a '#json' suffix also writes STEP.json
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
for spec in "${steps[@]}"; do
  limit=1800
  json=0
  if [[ "$spec" == *@* ]]; then limit=${spec%%@*}; spec=${spec#*@}; fi
  if [[ "$spec" == *'#json' ]]; then json=1; spec=${spec%#json}; fi
  step=${spec%%:*}
  args=()
  if [[ "$spec" == *:* ]]; then IFS='+' read -r -a args <<<"${spec#*:}"; fi
  t0=$(date +%s)
  case "$step" in
    facts)
      { nvidia-smi; nvcc --version; "$cli" devices; } >>"$summary" 2>&1
      note "facts: rc=$?"
      ;;
    verify)
      timeout "$limit" "$cli" verify "${args[@]}" >>"$out/verify.txt" 2>&1
      note "verify ${args[*]}: rc=$? $(tail -1 "$out/verify.txt")"
      ;;
    memcheck|racecheck|synccheck|initcheck)
      # The quick list keeps sanitizer time bounded; every variant and launch shape is in it.
      timeout "$limit" compute-sanitizer --tool "$step" --error-exitcode 9 "$cli" verify --quick "${args[@]}" \
        >"$out/tmp-$step.txt" 2>&1
      rc=$?
      { echo "=== $step ${args[*]} rc=$rc"; grep -vE '^(PASS|\[)' "$out/tmp-$step.txt" | head -80;
        echo "..."; grep -vE '^(PASS|\[)' "$out/tmp-$step.txt" | tail -30; } >>"$out/sanitizers.txt"
      rm -f "$out/tmp-$step.txt"
      note "$step ${args[*]}: rc=$rc $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|SYNCCHECK SUMMARY' "$out/sanitizers.txt" | tail -1)"
      ;;
    bench-*|run-*)
      name=${step#*-}
      verb=${step%%-*}
      jsonArgs=()
      [ "$json" = 1 ] && jsonArgs=(--json "$out/$step.json")
      echo "===== $step ${args[*]}" >>"$out/benches.txt"
      timeout "$limit" "$cli" "$verb" "$name" "${args[@]}" "${jsonArgs[@]}" 2>&1 \
        | grep -vE '^\[[0-9]+%\]' >>"$out/benches.txt"
      note "$step ${args[*]}: rc=${PIPESTATUS[0]}"
      ;;
    *)
      note "unknown step $step"
      ;;
  esac
  note "  ($step took $(( $(date +%s) - t0 )) s)"
done
cat "$summary" | tail -40
