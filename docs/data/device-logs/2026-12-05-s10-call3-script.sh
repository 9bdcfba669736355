#!/bin/bash
# Session 10 call 3 (issue 15): Nsight Compute of the pruned k-means' near-tie and TF32 kernels at
# iteration 20 (full set, SASS source page), for the next step.
set -u
bash .devdeps/pack/unpack.sh
N=/tmp/kl/cli
R=/tmp/r; mkdir -p $R
P="run kmeans --n 1000000 --k 100 --d 200 --init first --variant pruned --reps 1 --warmup 0 --no-verify"
for k in prunedTieKernel kmeansTf32AssignKernel; do
  timeout 120 ncu --set full --import-source yes -k regex:$k --launch-skip 19 --launch-count 1 -o $R/$k $N $P > $R/$k-run.txt 2>&1
  echo "$k rc=$?" >> $R/err.txt
  ncu -i $R/$k.ncu-rep --print-details all > $R/$k.txt 2>&1
  ncu -i $R/$k.ncu-rep --page source --csv --print-source sass > $R/$k-sass.csv 2>&1
  ncu -i $R/$k.ncu-rep --page source --csv --print-source cuda,sass > $R/$k-cuda-sass.csv 2>&1
done
tar -C /tmp -cJf $OUT/call3.tar.xz r
