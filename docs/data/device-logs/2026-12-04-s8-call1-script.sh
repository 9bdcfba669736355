#!/bin/bash
# Session 8 call 1 (issue 15): the pruned k-means with TF32 decisions and warm iterations, to
# convergence beside best, per iteration; the warm threshold at 1 % and 3 %; verify of k-means.
set -u
bash .devdeps/pack/unpack.sh
C=/tmp/kl/cli
timeout 120 $C run kmeans --n 1000000 --k 100 --d 200 --init first --variant best,pruned --reps 1 \
  --json $OUT/pruned-run.json > $OUT/pruned-run.txt 2>&1
echo "rc=$?" >> $OUT/pruned-run.txt
for w in 0.03 0.003; do
  echo "=== KERNELLAB_PRUNED_WARM=$w" >> $OUT/warm.txt
  KERNELLAB_PRUNED_WARM=$w timeout 60 $C run kmeans --n 1000000 --k 100 --d 200 --init first --variant pruned --reps 2 >> $OUT/warm.txt 2>&1
done
timeout 120 $C verify --family kmeans > $OUT/verify.txt 2>&1
echo "rc=$?" >> $OUT/verify.txt
xz -6 $OUT/pruned-run.json
