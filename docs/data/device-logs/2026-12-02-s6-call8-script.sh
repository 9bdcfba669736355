#!/bin/bash
# Session 6 call 8, the final code: bench best (N = 1e6) with its JSON first (the result this
# session is for), then verify, memcheck and racecheck of the k-means family (its
# kernels are the ones this session changed), bench transpose.
set -u
bash .devdeps/pack/unpack.sh
export KERNELLAB_CLI=/tmp/kl/cli
x=$OUT/extra.txt
scripts/device-run.sh 10@facts 150@bench-best:--n+1000000+--reps+3#json 60@verify:--family+kmeans 80@memcheck:--family+kmeans 100@racecheck:--family+kmeans 40@bench-transpose#json
xz -6 $OUT/bench-best.json 2>/dev/null
tail -3 $OUT/verify.txt >> $x
grep -E "FAIL" $OUT/verify.txt | head -10 >> $x
