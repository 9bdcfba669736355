#!/bin/bash
# Session 11 call 1 (issue 15): the committed code (old) against this session's (new) on one card:
# k-means runs (new verified); verify kmeans, memcheck and racecheck of kmeans; bench best (JSON);
# per-kernel durations of the new pruned k-means. The tarball is rewritten after every stage.
set -u
bash .devdeps/pack/unpack.sh
xz -dc .devdeps/pack/cli-old.xz > /tmp/kl/old && chmod +x /tmp/kl/old
N=/tmp/kl/cli; O=/tmp/kl/old
R=/tmp/r; mkdir -p $R
DEST=$OUT
pack() { tar -C /tmp -cJf $DEST/call1.tar.xz r; }
cp .devdeps/pack/call1.sh $R/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
KM="run kmeans --n 1000000 --k 100 --d 200 --init first --variant best,pruned --reps 3"
timeout 90 $N $KM --json $R/km-new.json > $R/km-new.txt 2>&1; echo "rc=$?" >> $R/km-new.txt
timeout 60 $O $KM --no-verify > $R/km-old.txt 2>&1; echo "rc=$?" >> $R/km-old.txt
pack
export KERNELLAB_CLI=$N OUT=$R
scripts/device-run.sh 30@verify:--family+kmeans 60@memcheck:--family+kmeans 100@racecheck:--family+kmeans > $R/device-run.txt 2>&1
pack
P="run kmeans --n 1000000 --k 100 --d 200 --init first --variant pruned --reps 1 --warmup 0 --no-verify"
timeout 80 ncu --metrics gpu__time_duration.sum --csv --print-units base $N $P > $R/km-new-ncu.csv 2>> $R/err.txt
echo "new durations rc=$?" >> $R/err.txt
pack
mkdir -p $R/b; OUT=$R/b scripts/device-run.sh 170@bench-best:--n+1000000+--reps+3#json > $R/b/device-run.txt 2>&1
pack
