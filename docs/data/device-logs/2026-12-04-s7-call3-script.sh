#!/bin/bash
# Session 7 call 3 (issue 15, for the next session's plan): where the pruned k-means spends its
# time to Lloyd's fixed point, kernel by kernel and iteration by iteration, beside best.
set -u
bash .devdeps/pack/unpack.sh
C=/tmp/kl/cli
timeout 200 $C run kmeans --n 1000000 --k 100 --d 200 --init first --variant best,pruned --reps 1 \
  --json $OUT/pruned-run.json > $OUT/pruned-run.txt 2>&1
echo "rc=$?" >> $OUT/pruned-run.txt
xz -6 $OUT/pruned-run.json
