#!/bin/bash
# Session 10 call 2 (issue 15): the committed code (old) against this session's (new) on the same
# card: k-centers and k-means runs, per-kernel durations of both pruned k-means, Nsight Compute
# of the new pruned k-centers at center 60. Everything in one tarball.
set -u
bash .devdeps/pack/unpack.sh
mkdir -p /tmp/kl && xz -dc .devdeps/pack/cli-old.xz > /tmp/kl/old && chmod +x /tmp/kl/old
N=/tmp/kl/cli; O=/tmp/kl/old
R=/tmp/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
KC="run kcenters --n 1000000 --k 100 --d 200 --variant best,pruned --reps 3"
KM="run kmeans --n 1000000 --k 100 --d 200 --init first --variant best,pruned --reps 3"
timeout 60 $N $KC --json $R/kc-new.json > $R/kc-new.txt 2>&1; echo "rc=$?" >> $R/kc-new.txt
timeout 60 $O $KC --no-verify > $R/kc-old.txt 2>&1; echo "rc=$?" >> $R/kc-old.txt
timeout 90 $N $KM --json $R/km-new.json > $R/km-new.txt 2>&1; echo "rc=$?" >> $R/km-new.txt
timeout 60 $O $KM --no-verify > $R/km-old.txt 2>&1; echo "rc=$?" >> $R/km-old.txt
P="run kmeans --n 1000000 --k 100 --d 200 --init first --variant pruned --reps 1 --warmup 0 --no-verify"
timeout 120 ncu --metrics gpu__time_duration.sum --csv --print-units base $N $P > $R/km-new-ncu.csv 2>> $R/err.txt
echo "new durations rc=$?" >> $R/err.txt
timeout 120 ncu --metrics gpu__time_duration.sum --csv --print-units base $O $P > $R/km-old-ncu.csv 2>> $R/err.txt
echo "old durations rc=$?" >> $R/err.txt
timeout 90 ncu --section SpeedOfLight --section WorkloadDistribution --section WarpStateStats -k regex:kcentersPrunedKernel \
  --launch-skip 60 --launch-count 1 $N run kcenters --n 1000000 --k 100 --d 200 --variant pruned --reps 1 --warmup 0 --no-verify \
  > $R/kc-new-ncu-j60.txt 2>> $R/err.txt
echo "kc ncu rc=$?" >> $R/err.txt
tar -C /tmp -cJf $OUT/call2.tar.xz r
