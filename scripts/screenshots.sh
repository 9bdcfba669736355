#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Retakes the window screenshots of docs/images/ under Xvfb, with a private home so the user's
# settings and history are untouched. Usage: scripts/screenshots.sh [build-dir]
# The Clusters pictures need a clustering result: a k-means run when the build has the
# clustering kernels, otherwise the k-centers result tst_clusters_page writes (run ctest first).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
app="$build/app/kernellab"
out=docs/images
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
shoot() {  # shoot HOME_NAME OUTPUT ARGS...
  local home="$work/$1" png="$2"
  shift 2
  mkdir -p "$home"
  HOME="$home" XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" \
    xvfb-run -a -s "-screen 0 1600x1000x24" "$app" --window-size 1500x950 "$@" --screenshot "$out/$png" --quit
}
cat > "$work/transpose.json" <<'JSON'
{"schema_version": 1, "request": {"family": "transpose", "variants": ["all"],
 "transpose": {"width": 2048, "height": 2048}, "repetitions": 5, "warmup": 1}}
JSON
cat > "$work/kcenters.json" <<'JSON'
{"schema_version": 1, "request": {"family": "kcenters", "clustering": {"n": 1000000, "k": 100, "d": 200}}}
JSON
cat > "$work/kmeans.json" <<'JSON'
{"schema_version": 1, "request": {"family": "kmeans", "variants": ["all"], "repetitions": 3, "warmup": 1,
 "clustering": {"n": 20000, "k": 6, "d": 3, "shape": "blobs", "noise_fraction": 0.02}}}
JSON
cat > "$work/preview.json" <<'JSON'
{"schema_version": 1, "request": {"family": "kmeans",
 "clustering": {"n": 200000, "k": 6, "d": 8, "shape": "blobs", "noise_fraction": 0.02}}}
JSON

shoot sweep timing-time.png --config "$work/transpose.json" --sweep tpb=64,128,256,512,1024 --run --chart time
shoot sweep timing-bandwidth.png --chart bandwidth
shoot sweep timing-fraction.png --chart fraction
shoot sweep timing-sweep.png --chart sweep
shoot sweep results-table.png --view results
shoot published timing-kcenters-published.png --config "$work/kcenters.json" --chart time --log-scale
shoot preview clusters-preview.png --config "$work/preview.json" --view clusters
if ! shoot kmeans clusters.png --config "$work/kmeans.json" --run --view clusters 2>/dev/null; then
  demo="$build/tests/tmp/kcenters-demo.json"
  [ -f "$demo" ] || { echo "screenshots.sh: no clustering kernels and no $demo (run ctest -R tst_clusters_page)" >&2; exit 1; }
  cat > "$work/demo.json" <<'JSON'
{"schema_version": 1, "request": {"family": "kcenters", "seed": 7,
 "clustering": {"n": 20000, "k": 6, "d": 3, "shape": "blobs", "noise_fraction": 0.02}}}
JSON
  shoot demo clusters.png --config "$work/demo.json" --open "$demo" --view clusters
fi
ls -l "$out"
