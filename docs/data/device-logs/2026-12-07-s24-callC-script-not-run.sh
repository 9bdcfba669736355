#!/bin/bash
# Session 24, call C (issue 15): N with the histogram's shared atomics one per bin per warp and
# the plan's rows kept in L2, built for 4, 3, 2 blocks per SM (64 registers with spills, 80, 121),
# beside M (the committed kernels); each verified.
set -u
mkdir -p /tmp/kl
xz -dc .devdeps/pack/clis24.tar.xz | tar -C /tmp/kl -xf - && chmod +x /tmp/kl/*
R=/tmp/r24c; mkdir -p $R
pack() { tar -C /tmp -cJf $OUT/call24c.tar.xz r24c; }
cp .devdeps/pack/s24c.sh $R/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
t() { echo "== $(date +%T) $*" >> $R/log.txt; }
KC="run kcenters --n 1000000 --k 100 --d 200 --reps 3 --no-verify --variant pruned"
for b in N3 N4 N2 M N3; do t $b; timeout 40 /tmp/kl/$b $KC >> $R/kc-$b.txt 2>&1; done
t blob; timeout 40 /tmp/kl/N3 $KC --shape blobs --noise 0.99999 > $R/kc-blobN3.txt 2>&1
pack
for b in N3 N4 N2; do t verify-$b; timeout 60 /tmp/kl/$b verify --family kcenters > $R/verify-$b.txt 2>&1; echo "rc=$?" >> $R/verify-$b.txt; done
t done
pack
