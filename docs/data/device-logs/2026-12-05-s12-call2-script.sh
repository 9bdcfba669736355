#!/bin/bash
# Session 12 call 2 (issue 15): the near ties' float screen as its own kernel (64 registers) before
# the double decision of what it leaves; old = the committed code. k-means runs (new verified),
# Nsight Compute durations of the tie kernels (new and old), verify/memcheck/racecheck of k-means.
set -u
bash .devdeps/pack/unpack.sh
xz -dc .devdeps/pack/cli-old.xz > /tmp/kl/old && chmod +x /tmp/kl/old
N=/tmp/kl/cli; O=/tmp/kl/old
R=/tmp/r; mkdir -p $R
DEST=$OUT
pack() { tar -C /tmp -cJf $DEST/call2.tar.xz r; }
cp .devdeps/pack/call2.sh $R/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
KM="run kmeans --n 1000000 --k 100 --d 200 --init first --variant best,pruned --reps 3"
timeout 90 $N $KM --json $R/km-new.json > $R/km-new.txt 2>&1; echo "rc=$?" >> $R/km-new.txt
timeout 60 $O $KM --no-verify > $R/km-old.txt 2>&1; echo "rc=$?" >> $R/km-old.txt
pack
P="run kmeans --n 1000000 --k 100 --d 200 --init first --variant pruned --reps 1 --warmup 0 --no-verify"
for c in N O; do
  timeout 60 ncu --metrics gpu__time_duration.sum --csv --print-units base -k regex:"prunedTie" ${!c} $P > $R/ncu-tie-$c.csv 2>> $R/err.txt
  echo "tie $c rc=$?" >> $R/err.txt
done
pack
export KERNELLAB_CLI=$N OUT=$R
scripts/device-run.sh 40@verify:--family+kmeans 30@memcheck:--family+kmeans 90@racecheck:--family+kmeans > $R/device-run.txt 2>&1
pack
