#!/bin/bash
# Session 25, call D (issue 15): where the committed pruned k-centers (F44 = 064cfbd's kernels)
# spends its launches, at the source line: Nsight Compute's source counters (warp stall sampling)
# and warp states of the first center's pass (sketch coding), a wide pass (launch 23: centers
# 16-23), a late pass (launch 86, which reads 168 MB yet took 213 us) and an in-batch plan.
set -u
mkdir -p /tmp/kl
xz -dc .devdeps/pack/clis25d.tar.xz | tar -C /tmp/kl -xf - && chmod +x /tmp/kl/*
R=/tmp/r25d; mkdir -p $R
pack() { tar -C /tmp -cJf $OUT/call25d.tar.xz r25d; }
cp .devdeps/pack/s25d.sh $R/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
t() { echo "== $(date +%T) $*" >> $R/log.txt; }
# The build's line info names /work/main/...: point it here so the CUDA source resolves.
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
APP="/tmp/kl/F44 run kcenters --n 1000000 --k 100 --d 200 --variant pruned --reps 1 --warmup 0 --no-verify"
prof() {  # prof NAME KERNEL-REGEX SKIP
  t ncu-$1
  timeout 150 ncu --section SourceCounters --section WarpStateStats --section SchedulerStats \
    --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis --section SpeedOfLight \
    --import-source yes -k regex:$2 --launch-skip $3 --launch-count 1 -o $R/$1 -f $APP > $R/$1-run.txt 2>&1
  ncu -i $R/$1.ncu-rep --print-details all > $R/$1-details.txt 2>&1
  ncu -i $R/$1.ncu-rep --page source --csv --print-source cuda > $R/$1-source-cuda.csv 2>&1
  ncu -i $R/$1.ncu-rep --page source --csv --print-source sass > $R/$1-source-sass.csv 2>&1
  xz -9 $R/$1-source-*.csv
  rm -f $R/$1.ncu-rep
  pack
}
prof encode kcentersPrunedKernel 0
prof late kcentersPrunedKernel 86
prof wide kcentersPrunedKernel 23
prof plan kcentersPlanKernel 60
t done
pack
