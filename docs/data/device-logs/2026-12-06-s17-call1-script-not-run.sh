#!/bin/bash
# Session 17 call 1 (issue 15, k-centers): Head = ba24164 (committed: eager launches + 8-bit
# sketch), L = the lazy pruned k-centers (no sketch). In order of need: verify kcenters of L, seed
# data and one broad cloud A/B, the full verify, memcheck and racecheck of L, bench best of L on an
# H200 (when L verified), ncu durations of L, a second A/B pair and L with 2 blocks per SM.
set -u
mkdir -p /tmp/kl
for b in Head L; do xz -dc .devdeps/pack/cli$b.xz > /tmp/kl/$b && chmod +x /tmp/kl/$b; done
R=/tmp/r1; mkdir -p $R
pack() { tar -C /tmp -cJf $OUT/call1.tar.xz r1; }
cp .devdeps/pack/call1.sh $R/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
t() { echo "== $(date +%T) $*" >> $R/log.txt; }
t verify-kc; timeout 60 /tmp/kl/L verify --family kcenters > $R/verify-kc.txt 2>&1; echo "rc=$?" >> $R/verify-kc.txt
KC="run kcenters --n 1000000 --k 100 --d 200 --variant best,pruned --reps 3 --no-verify"
runkc() { local name=$1 bin=$2; t $name; timeout 40 /tmp/kl/$bin $KC $EXTRA > $R/kc-$name.txt 2>&1; echo "rc=$?" >> $R/kc-$name.txt; }
EXTRA=""
runkc Head1 Head; runkc L1 L
EXTRA="--shape blobs --noise 0.99999"
runkc blobHead Head; runkc blobL L
pack
if grep -q H200 $R/facts.txt && grep -q " 0 failed" $R/verify-kc.txt; then
  t bench; timeout 150 /tmp/kl/L bench best --n 1000000 --reps 3 --json $R/bench-best.json > $R/bench.txt 2>&1; echo "rc=$?" >> $R/bench.txt
  [ -f $R/bench-best.json ] && xz -9 $R/bench-best.json
  pack
fi
t verify; KERNELLAB_CLI=/tmp/kl/L OUT=$R/v scripts/device-run.sh 100@verify 30@memcheck:--family+kcenters 90@racecheck:--family+kcenters > $R/v.txt 2>&1
pack
PC="run kcenters --n 1000000 --k 100 --d 200 --variant pruned --reps 1 --warmup 0 --no-verify"
t ncu; timeout 40 ncu --metrics gpu__time_duration.sum --csv --print-units base /tmp/kl/L $PC > $R/ncu-kc-L.csv 2>> $R/err.txt
echo "ncu rc=$?" >> $R/err.txt; xz -9 $R/ncu-kc-L.csv
pack
EXTRA=""
runkc Head2 Head; runkc L2 L
t L2sm; KERNELLAB_KCENTERS_BLOCKS_PER_SM=2 timeout 40 /tmp/kl/L $KC > $R/kc-L2sm.txt 2>&1
t done
pack
