#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Retakes the window screenshots of docs/images/ under Xvfb, with a private home so the user's
# settings and history are untouched. Usage: scripts/screenshots.sh [build-dir] [only]
# With `only` (a pattern such as 'window_*' or 'gantt_*'), only the matching pictures are taken.
# The Clusters pictures need a clustering result: a k-means run when the build has the
# clustering kernels, otherwise the k-centers result tst_clusters_page writes (run ctest first).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
only="${2:-*}"
app="$build/app/kernellab"
out=docs/images
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
report() {  # report HOME_NAME NAME ARGS...: docs/sample-report/NAME.pdf and NAME.html
  local home="$work/$1" name="$2"
  shift 2
  [[ "$name" == $only || "sample-report" == $only ]] || return 0
  mkdir -p "$home" docs/sample-report
  for ext in pdf html; do
    HOME="$home" XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" \
      xvfb-run -a -s "-screen 0 1600x1000x24" "$app" --window-size 1500x950 "$@" \
      --export-report "docs/sample-report/$name.$ext" --quit
  done
}
shoot() {  # shoot HOME_NAME OUTPUT ARGS...
  local home="$work/$1" png="$2"
  shift 2
  # shellcheck disable=SC2053
  [[ "$png" == $only ]] || return 0
  mkdir -p "$home"
  HOME="$home" XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" \
    xvfb-run -a -s "-screen 0 1600x1000x24" "$app" --window-size 1500x950 "$@" --screenshot "$out/$png" --quit
}
cat > "$work/transpose.json" <<'JSON'
{"schema_version": 2, "request": {"family": "transpose", "variants": ["all"],
 "transpose": {"width": 2048, "height": 2048}, "repetitions": 5, "warmup": 1}}
JSON
cat > "$work/kcenters.json" <<'JSON'
{"schema_version": 2, "request": {"family": "kcenters", "clustering": {"n": 1000000, "k": 100, "d": 200}}}
JSON
cat > "$work/kmeans.json" <<'JSON'
{"schema_version": 2, "request": {"family": "kmeans", "variants": ["all"], "repetitions": 3, "warmup": 1,
 "clustering": {"n": 20000, "k": 6, "d": 3, "shape": "blobs", "noise_fraction": 0.02, "init": "kmeans++"}}}
JSON
cat > "$work/transpose-one.json" <<'JSON'
{"schema_version": 2, "request": {"family": "transpose", "variants": ["all"],
 "transpose": {"width": 2048, "height": 2048}, "repetitions": 3, "warmup": 1}}
JSON
cat > "$work/knn.json" <<'JSON'
{"schema_version": 2, "request": {"family": "knn", "variants": ["all"], "repetitions": 3, "warmup": 1,
 "knn": {"rows": 377, "cols": 329, "components": 1, "window": 14, "k": 8}}}
JSON
cat > "$work/preview.json" <<'JSON'
{"schema_version": 2, "request": {"family": "kmeans",
 "clustering": {"n": 200000, "k": 6, "d": 8, "shape": "blobs", "noise_fraction": 0.02}}}
JSON

shoot sweep timing-time.png --config "$work/transpose.json" --sweep tpb=64,128,256,512,1024 --run --chart time
shoot sweep timing-bandwidth.png --chart bandwidth
shoot sweep timing-fraction.png --chart fraction
shoot sweep timing-sweep.png --chart sweep
shoot sweep results-table.png --view results
report sweep transpose-sweep-cpu
shoot published timing-kcenters-published.png --config "$work/kcenters.json" --chart time --log-scale
shoot preview clusters-preview.png --config "$work/preview.json" --view clusters
# The model tabs: a transpose run made here, the H200 recording of docs/data, a KNN run.
h200=docs/data/h200-transpose-4096-schedule.json
shoot models window_schedule.png --config "$work/transpose-one.json" --run --view schedule-model
shoot models window_access.png --view access
shoot h200 gantt_view_h200.png --open "$h200" --view gantt --gantt-sms 16
shoot h200 gantt_view_h200_all.png --open "$h200" --view gantt --gantt-sms 0
shoot h200 window_occupancy.png --open "$h200" --view occupancy
# The pruned k-centers' reads per center, from session 25's `bench best` on an H100 (the seed's
# data and one broad cloud).
shoot s25 timing-coordinates-read.png --open docs/data/h100-bench-best-2026-12-07-s25.json.xz \
  --chart coordinates-read
shoot knn window_knn.png --config "$work/knn.json" --run --view knn
if ! shoot kmeans clusters.png --config "$work/kmeans.json" --run --view clusters 2>/dev/null; then
  demo="$build/tests/tmp/kcenters-demo.json"
  [ -f "$demo" ] || { echo "screenshots.sh: no clustering kernels and no $demo (run ctest -R tst_clusters_page)" >&2; exit 1; }
  cat > "$work/demo.json" <<'JSON'
{"schema_version": 2, "request": {"family": "kcenters", "seed": 7,
 "clustering": {"n": 20000, "k": 6, "d": 3, "shape": "blobs", "noise_fraction": 0.02}}}
JSON
  shoot demo clusters.png --config "$work/demo.json" --open "$demo" --view clusters
fi
shoot kmeans timing-kmeans.png --chart time
report kmeans kmeans-cpu
# The GPU-server pictures (targets_dialog.png, window_ssh_*.png): the window driven against a
# loopback sshd that the program starts itself (needs openssh-server).
if [[ "targets_dialog.png" == $only || "window_ssh_live.png" == $only ]]; then
  mkdir -p "$work/ssh"
  HOME="$work/ssh" XDG_CONFIG_HOME="$work/ssh/config" XDG_DATA_HOME="$work/ssh/data" \
    xvfb-run -a -s "-screen 0 1600x1000x24" "$build/tests/kl_targets_screenshots" "$out"
fi
ls -l "$out"
