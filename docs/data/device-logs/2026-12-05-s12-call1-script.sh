#!/bin/bash
# Session 12 call 1 (issue 15): the committed code (old) against this session's (new: the near
# ties' float screen, the sketch in two batches) on one card: k-means and k-centers runs (new verified); verify, memcheck and racecheck of both
# families; Nsight Compute durations of the changed kernels; bench best (JSON).
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
KC="run kcenters --n 1000000 --k 100 --d 200 --variant best,pruned --reps 3"
timeout 90 $N $KM --json $R/km-new.json > $R/km-new.txt 2>&1; echo "rc=$?" >> $R/km-new.txt
timeout 60 $O $KM --no-verify > $R/km-old.txt 2>&1; echo "rc=$?" >> $R/km-old.txt
timeout 60 $N $KC --json $R/kc-new.json > $R/kc-new.txt 2>&1; echo "rc=$?" >> $R/kc-new.txt
timeout 60 $O $KC --no-verify > $R/kc-old.txt 2>&1; echo "rc=$?" >> $R/kc-old.txt
pack
export KERNELLAB_CLI=$N OUT=$R
scripts/device-run.sh 40@verify:--family+kmeans 40@verify:--family+kcenters 30@memcheck:--family+kmeans 30@memcheck:--family+kcenters 90@racecheck:--family+kmeans 70@racecheck:--family+kcenters > $R/device-run.txt 2>&1
pack
P="run kmeans --n 1000000 --k 100 --d 200 --init first --variant pruned --reps 1 --warmup 0 --no-verify"
Q="run kcenters --n 1000000 --k 100 --d 200 --variant pruned --reps 1 --warmup 0 --no-verify"
for c in N O; do
  timeout 60 ncu --metrics gpu__time_duration.sum --csv --print-units base -k regex:"prunedTieKernel" ${!c} $P > $R/ncu-tie-$c.csv 2>> $R/err.txt
  echo "tie $c rc=$?" >> $R/err.txt
done
for c in N O; do
  timeout 60 ncu --metrics gpu__time_duration.sum --csv --print-units base -k regex:"kcentersPrunedKernel" ${!c} $Q > $R/ncu-kc-$c.csv 2>> $R/err.txt
  echo "kc $c rc=$?" >> $R/err.txt
done
pack
mkdir -p $R/b; OUT=$R/b scripts/device-run.sh 170@bench-best:--n+1000000+--reps+3#json > $R/b/device-run.txt 2>&1
pack
