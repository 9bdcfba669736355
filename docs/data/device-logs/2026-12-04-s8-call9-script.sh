#!/bin/bash
# Session 8 call 9 (issue 15), the code as committed: exactFix and the pruned near-tie kernel share
# the batched double distances; a warm iteration after half the labels changed sums every point
# by label. The pruned run to convergence (JSON), bench best (JSON), verify / memcheck /
# racecheck of k-means.
set -u
bash .devdeps/pack/unpack.sh
C=/tmp/kl/cli
timeout 60 $C run kmeans --n 1000000 --k 100 --d 200 --init first --variant best,pruned --reps 3 \
  --json $OUT/pruned-run.json > $OUT/pruned-run.txt 2>&1
echo "rc=$?" >> $OUT/pruned-run.txt
export KERNELLAB_CLI=$C
scripts/device-run.sh 170@bench-best:--n+1000000+--reps+3#json 100@verify:--family+kmeans 120@memcheck:--family+kmeans 140@racecheck:--family+kmeans
xz -6 $OUT/bench-best.json $OUT/pruned-run.json 2>/dev/null
