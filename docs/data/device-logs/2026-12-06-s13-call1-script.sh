#!/bin/bash
# Session 13 call 1 (issue 15): the committed code (old) against this session's (new: the geometry
# kernel reading the centers from shared memory; the pruned iterations' lists on the CUDA cores,
# KERNELLAB_PRUNED_LIST=cuda2|cuda4|cuda8, default cuda4; tf32: the lists by the TF32 products as
# before). k-means runs, verify/memcheck/racecheck, Nsight Compute durations, in order of need.
set -u
bash .devdeps/pack/unpack.sh
xz -dc .devdeps/pack/cli-old.xz > /tmp/kl/old && chmod +x /tmp/kl/old
N=/tmp/kl/cli; O=/tmp/kl/old
R=/tmp/r; mkdir -p $R
pack() { tar -C /tmp -cJf $OUT/call1.tar.xz r; }
cp .devdeps/pack/call1.sh $R/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
KM="run kmeans --n 1000000 --k 100 --d 200 --init first --variant best,pruned --reps 3"
t() { echo "== $(date +%T) $*" >> $R/log.txt; }
export KERNELLAB_CLI=$N
t old; timeout 60 $O $KM --no-verify > $R/km-old.txt 2>&1; echo "rc=$?" >> $R/km-old.txt
t new; timeout 120 $N $KM --json $R/km-new.json > $R/km-new.txt 2>&1; echo "rc=$?" >> $R/km-new.txt
pack
t tf32; KERNELLAB_PRUNED_LIST=tf32 timeout 60 $N $KM --no-verify > $R/km-tf32.txt 2>&1; echo "rc=$?" >> $R/km-tf32.txt
t verify; OUT=$R/v scripts/device-run.sh 40@verify:--family+kmeans 30@memcheck:--family+kmeans > $R/v.txt 2>&1
t verify warm0; KERNELLAB_PRUNED_LIST_START=1 KERNELLAB_PRUNED_WARM=0 OUT=$R/v-w0 scripts/device-run.sh 40@verify:--family+kmeans 30@memcheck:--family+kmeans > $R/v-w0.txt 2>&1
pack
t racecheck; OUT=$R/rc scripts/device-run.sh 90@racecheck:--family+kmeans > $R/rc.txt 2>&1
pack
for L in cuda2 cuda8; do
  t $L; KERNELLAB_PRUNED_LIST=$L timeout 60 $N $KM --no-verify > $R/km-$L.txt 2>&1; echo "rc=$?" >> $R/km-$L.txt
done
for S in 0.02 0.05; do
  t share$S; KERNELLAB_PRUNED_LIST_SHARE=$S timeout 60 $N $KM --no-verify > $R/km-share$S.txt 2>&1; echo "rc=$?" >> $R/km-share$S.txt
done
t start; KERNELLAB_PRUNED_LIST_START=1 timeout 60 $N $KM --no-verify > $R/km-start.txt 2>&1; echo "rc=$?" >> $R/km-start.txt
pack
t ncu
P="run kmeans --n 1000000 --k 100 --d 200 --init first --variant pruned --reps 1 --warmup 0 --no-verify"
timeout 90 ncu --metrics gpu__time_duration.sum --csv --print-units base $N $P > $R/ncu-new.csv 2>> $R/err.txt
echo "ncu rc=$?" >> $R/err.txt
pack
for W in 0.003 0.03; do
  t warm$W; KERNELLAB_PRUNED_WARM=$W timeout 60 $N $KM --no-verify > $R/km-w$W.txt 2>&1; echo "rc=$?" >> $R/km-w$W.txt
done
t old2; timeout 60 $O $KM --no-verify > $R/km-old2.txt 2>&1; echo "rc=$?" >> $R/km-old2.txt
pack
t verify warm0-tf32start; KERNELLAB_PRUNED_WARM=0 OUT=$R/v-w0b scripts/device-run.sh 40@verify:--family+kmeans > $R/v-w0b.txt 2>&1
for L in tf32 cuda2 cuda8; do
  t verify $L; KERNELLAB_PRUNED_LIST=$L OUT=$R/v-$L scripts/device-run.sh 40@verify:--family+kmeans 30@memcheck:--family+kmeans > $R/v-$L.txt 2>&1
done
t done
pack
