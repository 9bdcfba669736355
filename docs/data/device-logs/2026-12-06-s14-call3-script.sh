#!/bin/bash
# Session 14 call 3 (issue 15): the committed code (old, ac1fb7b) against this session's next build
# (new: the TF32 assign copies the centers' fragments laid out by whoever centred them, one
# 16-byte cp.async round trip where each block converted them; its units dealt to every SM's
# first warp before any SM's second; in best and pruned alike). Runs, checks, bench, Nsight
# Compute, in order of need; results packed into $OUT after each step.
set -u
bash .devdeps/pack/unpack.sh
xz -dc .devdeps/pack/cli-old.xz > /tmp/kl/old && chmod +x /tmp/kl/old
N=/tmp/kl/cli; O=/tmp/kl/old
R=/tmp/r3; mkdir -p $R
pack() { tar -C /tmp -cJf $OUT/call3.tar.xz r3; }
cp .devdeps/pack/call3.sh $R/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
KM="run kmeans --n 1000000 --k 100 --d 200 --init first --variant best,pruned --reps 3"
t() { echo "== $(date +%T) $*" >> $R/log.txt; }
t old; timeout 60 $O $KM --no-verify > $R/km-old.txt 2>&1; echo "rc=$?" >> $R/km-old.txt
t new; timeout 120 $N $KM --json $R/km-new.json > $R/km-new.txt 2>&1; echo "rc=$?" >> $R/km-new.txt
pack
t verify new; KERNELLAB_CLI=$N OUT=$R/v scripts/device-run.sh 40@verify:--family+kmeans 30@memcheck:--family+kmeans > $R/v.txt 2>&1
pack
t verify new warm0; KERNELLAB_PRUNED_WARM=0 KERNELLAB_CLI=$N OUT=$R/v-w0 scripts/device-run.sh 40@verify:--family+kmeans 30@memcheck:--family+kmeans > $R/v-w0.txt 2>&1
t racecheck new; KERNELLAB_CLI=$N OUT=$R/rc scripts/device-run.sh 90@racecheck:--family+kmeans > $R/rc.txt 2>&1
pack
t new2; timeout 60 $N $KM --no-verify > $R/km-new2.txt 2>&1; echo "rc=$?" >> $R/km-new2.txt
t old2; timeout 60 $O $KM --no-verify > $R/km-old2.txt 2>&1; echo "rc=$?" >> $R/km-old2.txt
pack
P="run kmeans --n 1000000 --k 100 --d 200 --init first --variant pruned --reps 1 --warmup 0 --no-verify"
t ncu new; timeout 90 ncu --metrics gpu__time_duration.sum --csv --print-units base $N $P > $R/ncu-new.csv 2>> $R/err.txt
echo "ncu rc=$?" >> $R/err.txt; xz -9 $R/ncu-new.csv
pack
t bench; timeout 240 $N bench best --n 1000000 --reps 3 --json $R/bench-best.json > $R/bench-best.txt 2>&1; echo "rc=$?" >> $R/bench-best.txt
pack
t ncu full tf32; timeout 60 ncu --set full --import-source no -k regex:kmeansTf32AssignKernel --launch-skip 37 --launch-count 1 -o $R/tf32 $N $P > $R/tf32.log 2>&1
echo "tf32 rc=$?" >> $R/err.txt
ncu --import $R/tf32.ncu-rep --page details --csv > $R/tf32-details.csv 2>> $R/err.txt
rm -f $R/tf32.ncu-rep
t done
pack
