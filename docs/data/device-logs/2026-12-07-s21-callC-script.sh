#!/bin/bash
# Session 21, call C (issue 15): the session's final code (L = 9a2a8eb + the TF32 decision's list
# places reserved once per row pair): bench best (the targets' ratios), then Nsight Compute
# details of one late pruned iteration's near-tie screen and bounds test (for the next step).
set -u
mkdir -p /tmp/kl
xz -dc .devdeps/pack/cliL.xz > /tmp/kl/L && chmod +x /tmp/kl/L
R=/tmp/r21c; mkdir -p $R
pack() { tar -C /tmp -cJf $OUT/call21c.tar.xz r21c; }
cp .devdeps/pack/s21c.sh $R/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
t() { echo "== $(date +%T) $*" >> $R/log.txt; }
t bench; timeout 230 /tmp/kl/L bench best --n 1000000 --reps 3 --json $R/bench-best.json > $R/bench.txt 2>&1; echo "rc=$?" >> $R/bench.txt
[ -f $R/bench-best.json ] && xz -9 $R/bench-best.json
pack
KM="run kmeans --n 1000000 --k 100 --d 200 --init first --stop fixed-point --max-iter 300 --variant pruned --reps 1 --warmup 0 --no-verify"
t ncu; timeout 100 ncu --set full -k regex:"prunedTieScreenKernel|prunedBoundsTightenKernel|prunedTieKernel" --launch-skip 60 -c 3 /tmp/kl/L $KM > $R/ncu-late.txt 2>> $R/err.txt
echo "ncu rc=$?" >> $R/err.txt; xz -9 $R/ncu-late.txt
t done
pack
