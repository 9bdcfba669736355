#!/bin/bash
# Session 23, call C (issue 15), the last device seconds: check and time M (HEAD's float sketch,
# the first center's launch coding the sketch, the range from every 8th run of 128 points) beside
# H (the committed kernels); on an H200, bench best last.
set -u
mkdir -p /tmp/kl
xz -dc .devdeps/pack/clis.tar.xz | tar -C /tmp/kl -xf - H M && chmod +x /tmp/kl/H /tmp/kl/M
R=/tmp/r23c; mkdir -p $R
pack() { tar -C /tmp -cJf $OUT/call23c.tar.xz r23c; }
cp .devdeps/pack/s23c.sh $R/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
t() { echo "== $(date +%T) $*" >> $R/log.txt; }
t verify-kc; timeout 60 /tmp/kl/M verify --family kcenters > $R/verify-kc.txt 2>&1; echo "rc=$?" >> $R/verify-kc.txt
pack
KC="run kcenters --n 1000000 --k 100 --d 200 --reps 3 --no-verify"
runkc() { local name=$1 bin=$2; shift 2; t kc-$name; timeout 40 /tmp/kl/$bin $KC "$@" > $R/kc-$name.txt 2>&1; echo "rc=$?" >> $R/kc-$name.txt; }
runkc H1 H --variant best,pruned
runkc M1 M --variant pruned
runkc H2 H --variant pruned
runkc M2 M --variant best,pruned
runkc blobM M --variant best,pruned --shape blobs --noise 0.99999
pack
t sanitizers; KERNELLAB_CLI=/tmp/kl/M OUT=$R/v scripts/device-run.sh 60@memcheck:--family+kcenters 60@racecheck:--family+kcenters > $R/v.txt 2>&1
pack
if grep -q H200 $R/facts.txt && grep -q "0 failed" $R/verify-kc.txt; then
  t bench; timeout 150 /tmp/kl/M bench best --n 1000000 --reps 3 --json $R/bench-best.json > $R/bench.txt 2>&1; echo "rc=$?" >> $R/bench.txt
  [ -f $R/bench-best.json ] && xz -9 $R/bench-best.json
fi
t done
pack
