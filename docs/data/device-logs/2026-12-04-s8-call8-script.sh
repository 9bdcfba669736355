#!/bin/bash
# Session 8 final call (issue 15): the committed CLI. bench best (JSON), the pruned k-means to
# convergence beside best (JSON, per iteration), verify of k-means (and with the wgmma assign
# forced: the shared decision code changed), memcheck and racecheck of k-means.
set -u
bash .devdeps/pack/unpack.sh
C=/tmp/kl/cli
timeout 60 $C run kmeans --n 1000000 --k 100 --d 200 --init first --variant best,pruned --reps 3 \
  --json $OUT/pruned-run.json > $OUT/pruned-run.txt 2>&1
echo "rc=$?" >> $OUT/pruned-run.txt
KERNELLAB_KMEANS_ASSIGN=wgmma timeout 100 $C verify --family kmeans > $OUT/verify-wgmma.txt 2>&1
echo "rc=$?" >> $OUT/verify-wgmma.txt
export KERNELLAB_CLI=$C
scripts/device-run.sh 10@facts 170@bench-best:--n+1000000+--reps+3#json 100@verify:--family+kmeans 120@memcheck:--family+kmeans 140@racecheck:--family+kmeans
xz -6 $OUT/bench-best.json $OUT/pruned-run.json 2>/dev/null
tail -2 $OUT/verify-wgmma.txt >> $OUT/summary.txt
