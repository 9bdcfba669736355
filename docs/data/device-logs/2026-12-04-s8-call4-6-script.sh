#!/bin/bash
# Session 8 call 3 (issue 15): every kernel's duration (Nsight Compute, gpu__time_duration) in one
# pruned k-means run to convergence, to see the pruned iterations' floor kernel by kernel.
set -u
bash .devdeps/pack/unpack.sh
C=/tmp/kl/cli
timeout 240 ncu --metrics gpu__time_duration.sum --csv --print-units base \
  $C run kmeans --n 1000000 --k 100 --d 200 --init first --variant pruned --reps 1 --warmup 0 --no-verify \
  > $OUT/ncu-durations.csv 2> $OUT/ncu-err.txt
echo "rc=$?" >> $OUT/ncu-err.txt
xz -6 $OUT/ncu-durations.csv
