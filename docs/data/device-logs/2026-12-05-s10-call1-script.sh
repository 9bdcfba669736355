#!/bin/bash
# Session 10 call 1 (issue 15): staged loads in the near-tie / exact distances, the tightening two
# points at a time with its metadata prefetched, the pruned k-centers' tail and prefetch.
# Runs verified, per-kernel durations, Nsight Compute on the kernels that set the floor.
set -u
bash .devdeps/pack/unpack.sh
C=/tmp/kl/cli
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/facts.txt 2>&1
timeout 90 $C run kmeans --n 1000000 --k 100 --d 200 --init first --variant best,pruned --reps 3 \
  --json $OUT/km-run.json > $OUT/km-run.txt 2>&1
echo "rc=$?" >> $OUT/km-run.txt
timeout 60 $C run kcenters --n 1000000 --k 100 --d 200 --variant best,pruned --reps 3 \
  --json $OUT/kc-run.json > $OUT/kc-run.txt 2>&1
echo "rc=$?" >> $OUT/kc-run.txt
timeout 150 ncu --metrics gpu__time_duration.sum --csv --print-units base \
  $C run kmeans --n 1000000 --k 100 --d 200 --init first --variant pruned --reps 1 --warmup 0 --no-verify \
  > $OUT/km-ncu-durations.csv 2> $OUT/ncu-err.txt
echo "durations rc=$?" >> $OUT/ncu-err.txt
timeout 120 ncu --set full --import-source yes -k regex:"prunedTieKernel|prunedTightenKernel|kmeansTf32AssignKernel" \
  --launch-skip 45 --launch-count 3 -o $OUT/km-full \
  $C run kmeans --n 1000000 --k 100 --d 200 --init first --variant pruned --reps 1 --warmup 0 --no-verify \
  > $OUT/km-ncu-full-run.txt 2>> $OUT/ncu-err.txt
ncu -i $OUT/km-full.ncu-rep --print-details all > $OUT/km-ncu-full.txt 2>&1
ncu -i $OUT/km-full.ncu-rep --page source --csv --print-source cuda > $OUT/km-ncu-source.csv 2>&1
echo "km full rc=$?" >> $OUT/ncu-err.txt
timeout 120 ncu --set full --import-source yes -k regex:kcentersPrunedKernel --launch-skip 10 --launch-count 1 \
  $C run kcenters --n 1000000 --k 100 --d 200 --variant pruned --reps 1 --warmup 0 --no-verify \
  > $OUT/kc-ncu-full-j10.txt 2>> $OUT/ncu-err.txt
echo "kc j10 rc=$?" >> $OUT/ncu-err.txt
timeout 120 ncu --set full --import-source yes -k regex:kcentersPrunedKernel --launch-skip 60 --launch-count 1 -o $OUT/kc-full-j60 \
  $C run kcenters --n 1000000 --k 100 --d 200 --variant pruned --reps 1 --warmup 0 --no-verify \
  > $OUT/kc-ncu-j60-run.txt 2>> $OUT/ncu-err.txt
ncu -i $OUT/kc-full-j60.ncu-rep --print-details all > $OUT/kc-ncu-full-j60.txt 2>&1
ncu -i $OUT/kc-full-j60.ncu-rep --page source --csv --print-source cuda > $OUT/kc-ncu-source-j60.csv 2>&1
echo "kc j60 rc=$?" >> $OUT/ncu-err.txt
xz -6 $OUT/km-run.json $OUT/kc-run.json $OUT/km-ncu-durations.csv $OUT/*.ncu-rep $OUT/*source*.csv
ls -la $OUT
