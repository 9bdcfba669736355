#!/bin/bash
# Session 13 call 2 (issue 15), PREPARED BUT NOT RUN (the session's device time was spent on refused
# starts): where a pruned iteration's short-list kernels wait, on the committed code. Nsight
# Compute full sections of one late-iteration launch each of the TF32 decision (a list of
# ~10,000 points), the near-tie screen and the geometry kernel. Expects the CLI of the committed
# code xz-compressed as .devdeps/pack/cli-old.xz (carry .devdeps/pack); results in $OUT.
set -u
mkdir -p /tmp/kl && xz -dc .devdeps/pack/cli-old.xz > /tmp/kl/old && chmod +x /tmp/kl/old
O=/tmp/kl/old
R=/tmp/r2; mkdir -p $R
pack() { tar -C /tmp -cJf $OUT/call2.tar.xz r2; }
cp "$0" $R/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
P="run kmeans --n 1000000 --k 100 --d 200 --init first --variant pruned --reps 1 --warmup 0 --no-verify"
# Each kernel runs once per iteration: launch index 37 is iteration 38 of 40, a late pruned one.
for K in kmeansTf32AssignKernel prunedTieScreenKernel prunedCenterGeometryKernel; do
  timeout 120 ncu --set full --import-source no -k regex:$K --launch-skip 37 --launch-count 1 -o $R/$K $O $P > $R/$K.log 2>&1
  echo "$K rc=$?" >> $R/rc.txt
  ncu --import $R/$K.ncu-rep --page details --csv > $R/$K-details.csv 2>> $R/rc.txt
  ncu --import $R/$K.ncu-rep --page raw --csv > $R/$K-raw.csv 2>> $R/rc.txt
  rm -f $R/$K.ncu-rep
  pack
done
