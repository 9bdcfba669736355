#!/bin/bash
# Session 8 call 2 (issue 15): near ties by the candidate masks (exactFixKernel), to convergence
# beside best per iteration; verify of k-means.
set -u
bash .devdeps/pack/unpack.sh
C=/tmp/kl/cli
timeout 60 $C run kmeans --n 1000000 --k 100 --d 200 --init first --variant best,pruned --reps 1 \
  --json $OUT/pruned-run.json > $OUT/pruned-run.txt 2>&1
echo "rc=$?" >> $OUT/pruned-run.txt
timeout 150 $C verify --family kmeans > $OUT/verify.txt 2>&1
echo "rc=$?" >> $OUT/verify.txt
xz -6 $OUT/pruned-run.json
