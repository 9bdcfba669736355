#!/bin/bash
# Session 7 call 1: centerPrep in K/32 blocks. A/B of the exact re-decisions' batch (1 vs 4,
# interleaved), then bench best (JSON), verify / memcheck / racecheck of k-means.
set -u
bash .devdeps/pack/unpack.sh
C=/tmp/kl/cli
x=$OUT/ab.txt
for b in 4 1 4 1; do
  echo "=== KERNELLAB_FIX_BATCH=$b" >> $x
  KERNELLAB_FIX_BATCH=$b timeout 60 $C run kmeans --n 1000000 --k 100 --d 200 --init first --max-iter 10 --variant best,cublas --reps 3 --no-verify >> $x 2>&1
done
export KERNELLAB_CLI=$C
scripts/device-run.sh 10@facts 150@bench-best:--n+1000000+--reps+3#json 60@verify:--family+kmeans 80@memcheck:--family+kmeans 100@racecheck:--family+kmeans
xz -6 $OUT/bench-best.json 2>/dev/null
tail -3 $OUT/verify.txt >> $OUT/summary.txt
grep -E "FAIL" $OUT/verify.txt | head -10 >> $OUT/summary.txt
