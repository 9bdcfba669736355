#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The worker process on a GPU server, without a window (issue 11): the hello, a k-means run and
# a transpose with a 65,536-block schedule through `kernellab-cli worker` piped to files, each
# compared with the same request run in-process (`kernellab-cli run`), a GPU fault through the
# test hook, and the end of stdin ending a long run. Works on the CPU backend too (smaller sizes).
# Usage: scripts/worker-check.sh [path/to/kernellab-cli] [output-folder]
set -uo pipefail
cli="${1:-build-gpu/gpu/kernellab-cli}"
out="${2:-worker-check}"
mkdir -p "$out"
cd "$out" || exit 1
case "$cli" in /*) ;; *) cli="$OLDPWD/$cli" ;; esac
now() { date +%s.%N; }
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", (b - a) * 1000 }'; }

echo "== hello"
"$cli" worker --hello > hello.klw
# A stream of the hello alone ends without the worker's goodbye, so the decoder exits non-zero:
# read its text from a file (with pipefail, a pipe into grep would take that exit as "no CUDA").
"$cli" worker --decode hello.klw > hello.txt
cat hello.txt
if grep -q '"summary":"CUDA' hello.txt; then
  # The thesis's K and D at a fifth of its N (each iteration is verified against the CPU
  # reference twice: worker and in-process); a seed variant, its slowest, and the best engine.
  gpu=1; backend=cuda; n=200000; k=100; d=200; size=8192; iters=5; reps=1
  variants='"shared-coalesced", "global-interleaved", "best"'
else
  gpu=0; backend=cpu; n=100000; k=16; d=8; size=2048; iters=20; reps=2
  variants='"all"'
fi

echo "== k-means N=$n K=$k D=$d ($backend): worker stream vs in-process"
cat > km.json <<JSON
{"family": "kmeans", "variants": [$variants], "backend": "$backend", "repetitions": $reps, "warmup": 1,
 "clustering": {"n": $n, "k": $k, "d": $d, "max_iterations": $iters}}
JSON
t0=$(now); "$cli" worker --request km.json > km.klw; rc=$?; t1=$(now)
echo "worker: exit $rc, $(ms "$t0" "$t1") ms, stream $(stat -c %s km.klw) bytes"
"$cli" worker --decode km.klw --json km-worker.json > km-worker.txt; echo "decode: exit $?"
"$cli" run --request km.json --json km-direct.json > km-direct.txt; echo "in-process run: exit $?"

echo "== transpose ${size}x${size} with a recorded schedule ($backend)"
cat > t.json <<JSON
{"family": "transpose", "variants": ["naive", "tiled", "padded", "diagonal", "best"], "backend": "$backend",
 "transpose": {"width": $size, "height": $size}, "record_schedule": true, "repetitions": 5, "warmup": 1}
JSON
[ "$gpu" = 1 ] || sed -i 's/, "best"//' t.json
t0=$(now); "$cli" worker --request t.json > t.klw; rc=$?; t1=$(now)
echo "worker: exit $rc, $(ms "$t0" "$t1") ms, stream $(stat -c %s t.klw) bytes"
"$cli" worker --decode t.klw --json t-worker.json > t-worker.txt; echo "decode: exit $?"
"$cli" run --request t.json --json t-direct.json > t-direct.txt; echo "in-process run: exit $?"

if command -v python3 > /dev/null; then
  python3 - <<'PY'
import json
def runs(p): return json.load(open(p))["runs"]
for name in ("km", "t"):
    w, d = runs(name + "-worker.json")[0], runs(name + "-direct.json")[0]
    print(f"{name}: worker ok={w['ok']} in-process ok={d['ok']}, device {w['device']['name']} / {d['device']['name']}")
    for a, b in zip(w["variants"], d["variants"]):
        line = f"  {a['variant']:20s} verified {a['verification'].get('passed')} / {b['verification'].get('passed')}"
        line += f"  median {a['total']['median_ms']:.3f} / {b['total']['median_ms']:.3f} ms"
        ca, cb = a.get("clustering"), b.get("clustering")
        if ca and cb:
            same = sum(x == y for x, y in zip(ca["labels"], cb["labels"]))
            line += (f"  iterations {ca['iterations']} / {cb['iterations']}  inertia {ca['inertia']:.6g} / "
                     f"{cb['inertia']:.6g}  labels equal {same}/{len(cb['labels'])}")
        if a.get("schedule"):
            line += f"  schedule {len(a['schedule'])} / {len(b.get('schedule', []))} blocks"
        print(line)
PY
fi

echo "== GPU fault hook (KERNELLAB_GPU_FAULT=tiled)"
KERNELLAB_GPU_FAULT=tiled "$cli" worker --request t.json > fault.klw 2> fault.err
echo "worker: exit $? (on CUDA: the run reports the lost context; on the CPU: SIGABRT = 134)"
"$cli" worker --decode fault.klw | grep -E '"event":"(error|bye)"|CUDA context lost|failed' | head -5
head -c 400 fault.err

echo "== the end of stdin ends a long run (--lifeline)"
job=$(printf '{"protocol": 1, "job": 1, "command": "run", "request": %s}' "$(tr -d '\n' < km.json | sed "s/\"max_iterations\": $iters/\"max_iterations\": 300/; s/\"repetitions\": $reps/\"repetitions\": 50/")")
( echo "$job"; sleep 4; now > closed.txt ) | ( "$cli" worker --lifeline > long.klw; now > ended.txt )
echo "stdin closed after 4 s of the run; the worker ended $(ms "$(cat closed.txt)" "$(cat ended.txt)") ms later"
"$cli" worker --decode long.klw | tail -3
