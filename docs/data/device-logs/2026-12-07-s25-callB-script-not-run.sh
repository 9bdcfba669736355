#!/bin/bash
# Session 25, call B (issue 15): P = 4157bda's kernels (several centers a pass, verified in call
# 25a); R = P with the pass's per-point 64-bit shared counter of points read (a compare-and-swap
# loop, a lane each on one address: every point of the first pass) and the plan's per-point slot
# reservation made one atomic per warp; R44 = R at 4 blocks per SM (64 registers) with 4 rounds a
# batch (37 KB of shared memory a block instead of 57). Verify R and R44; time P, R, R44
# alternated on the seed's data and one broad cloud; Nsight Compute per-launch times of both.
set -u
mkdir -p /tmp/kl
xz -dc .devdeps/pack/clis25b.tar.xz | tar -C /tmp/kl -xf - && chmod +x /tmp/kl/*
R=/tmp/r25b; mkdir -p $R
pack() { tar -C /tmp -cJf $OUT/call25b.tar.xz r25b; }
cp .devdeps/pack/s25b.sh $R/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
t() { echo "== $(date +%T) $*" >> $R/log.txt; }
for b in R R44; do t verify-$b; timeout 120 /tmp/kl/$b verify --family kcenters > $R/verify-$b.txt 2>&1; echo "rc=$?" >> $R/verify-$b.txt; done
pack
KC="run kcenters --n 1000000 --k 100 --d 200 --reps 3 --no-verify --variant pruned"
for b in P R R44 P R R44; do t $b; timeout 40 /tmp/kl/$b $KC >> $R/kc-$b.txt 2>&1; done
for b in P R R44; do t blob-$b; timeout 40 /tmp/kl/$b $KC --shape blobs --noise 0.99999 > $R/kc-blob-$b.txt 2>&1; done
pack
for b in R R44; do
  t ncu-$b
  timeout 100 ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum -k regex:"kcenters|sketch" --launch-count 201 --csv /tmp/kl/$b run kcenters --n 1000000 --k 100 --d 200 --variant pruned --reps 1 --no-verify > $R/ncu-$b.csv 2> $R/ncu-$b.err
  xz -9 $R/ncu-$b.csv
done
t done
pack
