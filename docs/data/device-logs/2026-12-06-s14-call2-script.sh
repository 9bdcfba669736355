#!/bin/bash
# Session 14 call 2 (issue 15): the committed code (old) against this session's build (new: the
# score and the move in one launch at the end of each iteration, the pruned iterations' centred
# copy around the start's mean and their moves from that launch's last block, no geometry
# kernel in pruned iterations; the bounds test loading every unit first; no prunedExactKernel
# launch for tame data) and the same build with session 12's 8-candidate screen
# (KERNELLAB_PRUNED_SCREEN=8: s8). Runs, checks, Nsight Compute, in order of need; results packed
# into $OUT after each step.
set -u
bash .devdeps/pack/unpack.sh
xz -dc .devdeps/pack/cli-old.xz > /tmp/kl/old && chmod +x /tmp/kl/old
N=/tmp/kl/cli; O=/tmp/kl/old
R=/tmp/r2; mkdir -p $R
pack() { tar -C /tmp -cJf $OUT/call2.tar.xz r2; }
cp .devdeps/pack/call2.sh $R/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
KM="run kmeans --n 1000000 --k 100 --d 200 --init first --variant best,pruned --reps 3"
t() { echo "== $(date +%T) $*" >> $R/log.txt; }
t old; timeout 60 $O $KM --no-verify > $R/km-old.txt 2>&1; echo "rc=$?" >> $R/km-old.txt
t new; timeout 120 $N $KM --json $R/km-new.json > $R/km-new.txt 2>&1; echo "rc=$?" >> $R/km-new.txt
pack
t verify new; KERNELLAB_CLI=$N OUT=$R/v scripts/device-run.sh 40@verify:--family+kmeans 30@memcheck:--family+kmeans > $R/v.txt 2>&1
pack
t s8; KERNELLAB_PRUNED_SCREEN=8 timeout 120 $N $KM --json $R/km-s8.json > $R/km-s8.txt 2>&1; echo "rc=$?" >> $R/km-s8.txt
pack
t verify new warm0; KERNELLAB_PRUNED_WARM=0 KERNELLAB_CLI=$N OUT=$R/v-w0 scripts/device-run.sh 40@verify:--family+kmeans 30@memcheck:--family+kmeans > $R/v-w0.txt 2>&1
t racecheck new; KERNELLAB_CLI=$N OUT=$R/rc scripts/device-run.sh 90@racecheck:--family+kmeans > $R/rc.txt 2>&1
pack
t new2; timeout 60 $N $KM --no-verify > $R/km-new2.txt 2>&1; echo "rc=$?" >> $R/km-new2.txt
t s82; KERNELLAB_PRUNED_SCREEN=8 timeout 60 $N $KM --no-verify > $R/km-s82.txt 2>&1; echo "rc=$?" >> $R/km-s82.txt
t old2; timeout 60 $O $KM --no-verify > $R/km-old2.txt 2>&1; echo "rc=$?" >> $R/km-old2.txt
pack
t verify s8; KERNELLAB_PRUNED_SCREEN=8 KERNELLAB_CLI=$N OUT=$R/v-s8 scripts/device-run.sh 40@verify:--family+kmeans 30@memcheck:--family+kmeans > $R/v-s8.txt 2>&1
pack
P="run kmeans --n 1000000 --k 100 --d 200 --init first --variant pruned --reps 1 --warmup 0 --no-verify"
t ncu new; timeout 90 ncu --metrics gpu__time_duration.sum --csv --print-units base $N $P > $R/ncu-new.csv 2>> $R/err.txt
echo "ncu rc=$?" >> $R/err.txt; xz -9 $R/ncu-new.csv
pack
t ncu s8; KERNELLAB_PRUNED_SCREEN=8 timeout 90 ncu --metrics gpu__time_duration.sum --csv --print-units base $N $P > $R/ncu-s8.csv 2>> $R/err.txt
echo "ncu rc=$?" >> $R/err.txt; xz -9 $R/ncu-s8.csv
pack
for K in kmeansTf32AssignKernel prunedTieScreenKernel prunedBoundsTightenKernel; do
  t ncu full $K; timeout 60 ncu --set full --import-source no -k regex:$K --launch-skip 37 --launch-count 1 -o $R/$K $N $P > $R/$K.log 2>&1
  echo "$K rc=$?" >> $R/err.txt
  ncu --import $R/$K.ncu-rep --page details --csv > $R/$K-details.csv 2>> $R/err.txt
  rm -f $R/$K.ncu-rep
  pack
done
t done
pack
