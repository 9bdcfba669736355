#!/bin/bash
# NOT RUN: session 21's last try (14:01 UTC) was refused for too little device time left. cliL =
# the CLI built from 2cc34c1 + docs/data/device-logs/2026-12-07-s21-kmeans-lane-screen-unverified.patch
# (sm_90, -DKERNELLAB_GUI=OFF), stripped and xz-compressed into .devdeps/pack/cliL.xz; run as
# run(kind nvidia-h200, carry [".devdeps/pack"]) bash .devdeps/pack/s21d.sh
# Session 21, call D (issue 15, k-means): L = 2cc34c1 + the staged near-tie screen a lane per
# candidate (KERNELLAB_PRUNED_LANE_SCREEN=0: the committed screen, lanes over the dimensions).
# verify kmeans, A/B to the fixed point, memcheck and racecheck, the screen's durations.
set -u
mkdir -p /tmp/kl
xz -dc .devdeps/pack/cliL.xz > /tmp/kl/L && chmod +x /tmp/kl/L
R=/tmp/r21d; mkdir -p $R
pack() { tar -C /tmp -cJf $OUT/call21d.tar.xz r21d; }
cp .devdeps/pack/s21d.sh $R/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
t() { echo "== $(date +%T) $*" >> $R/log.txt; }
t verify-km; timeout 60 /tmp/kl/L verify --family kmeans > $R/verify-km.txt 2>&1; echo "rc=$?" >> $R/verify-km.txt
pack
KM="run kmeans --n 1000000 --k 100 --d 200 --init first --stop fixed-point --max-iter 300 --reps 3 --no-verify"
runkm() { local name=$1 var=$2; t $name; timeout 40 /tmp/kl/L $KM --variant $var --json $R/km-$name.json > $R/km-$name.txt 2>&1; echo "rc=$?" >> $R/km-$name.txt; xz -9 $R/km-$name.json; }
runkm lane1 best,pruned; KERNELLAB_PRUNED_LANE_SCREEN=0 runkm old1 pruned
runkm lane2 pruned; KERNELLAB_PRUNED_LANE_SCREEN=0 runkm old2 pruned
pack
t sanitizers; KERNELLAB_CLI=/tmp/kl/L OUT=$R/v scripts/device-run.sh 90@memcheck:--family+kmeans 90@racecheck:--family+kmeans > $R/v.txt 2>&1
pack
PK="run kmeans --n 1000000 --k 100 --d 200 --init first --stop fixed-point --max-iter 300 --variant pruned --reps 1 --warmup 0 --no-verify"
for m in 1 0; do t ncu-$m; KERNELLAB_PRUNED_LANE_SCREEN=$m timeout 40 ncu --metrics gpu__time_duration.sum,smsp__inst_executed.sum --csv --print-units base -k regex:prunedTie /tmp/kl/L $PK > $R/ncu-screen-$m.csv 2>> $R/err.txt; echo "ncu $m rc=$?" >> $R/err.txt; xz -9 $R/ncu-screen-$m.csv; done
t done
pack
