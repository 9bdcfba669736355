#!/bin/bash
# Session 8 call 6 (issue 15): tightening 4 points per warp pass, the near ties' candidates in
# one stream; to convergence beside best, verify of k-means, every kernel's duration (ncu).
set -u
bash .devdeps/pack/unpack.sh
C=/tmp/kl/cli
timeout 60 $C run kmeans --n 1000000 --k 100 --d 200 --init first --variant best,pruned --reps 1 \
  --json $OUT/pruned-run.json > $OUT/pruned-run.txt 2>&1
echo "rc=$?" >> $OUT/pruned-run.txt
timeout 150 $C verify --family kmeans > $OUT/verify.txt 2>&1
echo "rc=$?" >> $OUT/verify.txt
timeout 100 ncu --metrics gpu__time_duration.sum --csv --print-units base \
  $C run kmeans --n 1000000 --k 100 --d 200 --init first --variant pruned --reps 1 --warmup 0 --no-verify \
  > $OUT/ncu-durations.csv 2> $OUT/ncu-err.txt
xz -6 $OUT/pruned-run.json $OUT/ncu-durations.csv
