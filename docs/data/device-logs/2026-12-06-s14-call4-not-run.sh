#!/bin/bash
# Session 14 call 4 (issue 15), cut to what landing needs (the session's device time nearly
# spent): the committed code (old, 2d626cd) against this session's next build (new: the near-tie
# screen reads the centers from a copy in each block's shared memory, blocks of 16 warps, as many
# as fit at once). Runs without the CPU check (the verify suite checks), verify, memcheck,
# racecheck, Nsight Compute durations; results packed into $OUT after each step.
set -u
bash .devdeps/pack/unpack.sh
xz -dc .devdeps/pack/cli-old.xz > /tmp/kl/old && chmod +x /tmp/kl/old
N=/tmp/kl/cli; O=/tmp/kl/old
R=/tmp/r4; mkdir -p $R
pack() { tar -C /tmp -cJf $OUT/call4.tar.xz r4; }
cp .devdeps/pack/call4.sh $R/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
KM="run kmeans --n 1000000 --k 100 --d 200 --init first --variant best,pruned --reps 3 --no-verify"
t() { echo "== $(date +%T) $*" >> $R/log.txt; }
t old; timeout 30 $O $KM > $R/km-old.txt 2>&1; echo "rc=$?" >> $R/km-old.txt
t new; timeout 30 $N $KM > $R/km-new.txt 2>&1; echo "rc=$?" >> $R/km-new.txt
pack
t verify new; KERNELLAB_CLI=$N OUT=$R/v scripts/device-run.sh 30@verify:--family+kmeans 30@memcheck:--family+kmeans > $R/v.txt 2>&1
pack
t racecheck new; KERNELLAB_CLI=$N OUT=$R/rc scripts/device-run.sh 70@racecheck:--family+kmeans > $R/rc.txt 2>&1
pack
t new2; timeout 30 $N $KM > $R/km-new2.txt 2>&1; echo "rc=$?" >> $R/km-new2.txt
t old2; timeout 30 $O $KM > $R/km-old2.txt 2>&1; echo "rc=$?" >> $R/km-old2.txt
pack
P="run kmeans --n 1000000 --k 100 --d 200 --init first --variant pruned --reps 1 --warmup 0 --no-verify"
t ncu new; timeout 40 ncu --metrics gpu__time_duration.sum --csv --print-units base $N $P > $R/ncu-new.csv 2>> $R/err.txt
echo "ncu rc=$?" >> $R/err.txt; xz -9 $R/ncu-new.csv
t done
pack
