#!/bin/bash
# Session 21, call B (issue 15, k-means). H = the committed CLI, L = H + the pruned TF32 decision's
# list places reserved once per row pair and both lists (one 64-bit atomic). verify kmeans of L,
# memcheck and racecheck (k-means), A/B to Lloyd's fixed point, Nsight Compute of the TF32 assign's
# first two launches (best and pruned), and on an H200 bench best of L when verified.
set -u
mkdir -p /tmp/kl
for b in H L; do xz -dc .devdeps/pack/cli$b.xz > /tmp/kl/$b && chmod +x /tmp/kl/$b; done
R=/tmp/r21b; mkdir -p $R
pack() { tar -C /tmp -cJf $OUT/call21b.tar.xz r21b; }
cp .devdeps/pack/s21b.sh $R/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
t() { echo "== $(date +%T) $*" >> $R/log.txt; }
t verify-km; timeout 60 /tmp/kl/L verify --family kmeans > $R/verify-km.txt 2>&1; echo "rc=$?" >> $R/verify-km.txt
pack
KM="run kmeans --n 1000000 --k 100 --d 200 --init first --stop fixed-point --max-iter 300 --reps 3 --no-verify"
runkm() { local name=$1 bin=$2 var=$3; t $name; timeout 40 /tmp/kl/$bin $KM --variant $var --json $R/km-$name.json > $R/km-$name.txt 2>&1; echo "rc=$?" >> $R/km-$name.txt; xz -9 $R/km-$name.json; }
runkm L1 L best,pruned; runkm H1 H best,pruned; runkm L2 L pruned; runkm H2 H pruned
pack
t sanitizers; KERNELLAB_CLI=/tmp/kl/L OUT=$R/v scripts/device-run.sh 90@memcheck:--family+kmeans 90@racecheck:--family+kmeans > $R/v.txt 2>&1
pack
t ncu-assign; timeout 90 ncu --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis -k regex:kmeansTf32AssignKernel -c 6 /tmp/kl/L run kmeans --n 1000000 --k 100 --d 200 --init first --max-iter 3 --variant best,pruned --reps 1 --warmup 0 --no-verify > $R/ncu-assign.txt 2>> $R/err.txt
echo "ncu rc=$?" >> $R/err.txt; xz -9 $R/ncu-assign.txt
pack
if grep -q H200 $R/facts.txt && grep -q " 0 failed" $R/verify-km.txt; then
  t bench; timeout 200 /tmp/kl/L bench best --n 1000000 --reps 3 --json $R/bench-best.json > $R/bench.txt 2>&1; echo "rc=$?" >> $R/bench.txt
  [ -f $R/bench-best.json ] && xz -9 $R/bench-best.json
fi
t done
pack
