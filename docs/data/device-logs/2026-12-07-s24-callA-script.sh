#!/bin/bash
# Session 24, call A (issue 15). M = the committed kernels (25beec8's CUDA, HEAD's); N = several
# centers a pass (a plan launch per center picks the next ones from the points above a threshold
# while that is provably right; one pass over all points per batch).
set -u
mkdir -p /tmp/kl
xz -dc .devdeps/pack/clis24.tar.xz | tar -C /tmp/kl -xf - && chmod +x /tmp/kl/M /tmp/kl/N
R=/tmp/r24a; mkdir -p $R
pack() { tar -C /tmp -cJf $OUT/call24a.tar.xz r24a; }
cp .devdeps/pack/s24a.sh $R/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
t() { echo "== $(date +%T) $*" >> $R/log.txt; }
t verify-kc; timeout 120 /tmp/kl/N verify --family kcenters > $R/verify-kc.txt 2>&1; echo "rc=$?" >> $R/verify-kc.txt
pack
KC="run kcenters --n 1000000 --k 100 --d 200 --reps 3"
runkc() { local name=$1 bin=$2; shift 2; t kc-$name; timeout 60 /tmp/kl/$bin $KC --json $R/kc-$name.json "$@" > $R/kc-$name.txt 2>&1; echo "rc=$?" >> $R/kc-$name.txt; [ -f $R/kc-$name.json ] && xz -9 $R/kc-$name.json; }
runkc N1 N --variant best,pruned
runkc M1 M --variant pruned --no-verify
runkc N2 N --variant pruned --no-verify
runkc M2 M --variant pruned --no-verify
runkc blobN N --variant best,pruned --shape blobs --noise 0.99999
runkc blobM M --variant pruned --shape blobs --noise 0.99999 --no-verify
pack
if grep -q " 0 failed" $R/verify-kc.txt; then
  t sanitizers; KERNELLAB_CLI=/tmp/kl/N OUT=$R/v scripts/device-run.sh 90@memcheck:--family+kcenters 90@racecheck:--family+kcenters > $R/v.txt 2>&1
  pack
  t bench; timeout 200 /tmp/kl/N bench best --n 1000000 --reps 3 --json $R/bench-best.json > $R/bench.txt 2>&1; echo "rc=$?" >> $R/bench.txt
  [ -f $R/bench-best.json ] && xz -9 $R/bench-best.json
fi
t done
pack
