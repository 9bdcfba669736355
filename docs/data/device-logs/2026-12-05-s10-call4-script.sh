#!/bin/bash
# Session 10 call 4 (issue 15): the committed code (old) against this session's (new) on one card:
# k-means and k-centers runs (new verified); verify of both families; bench best (JSON).
set -u
bash .devdeps/pack/unpack.sh
mkdir -p /tmp/kl && xz -dc .devdeps/pack/cli-old.xz > /tmp/kl/old && chmod +x /tmp/kl/old
N=/tmp/kl/cli; O=/tmp/kl/old
R=/tmp/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
KC="run kcenters --n 1000000 --k 100 --d 200 --variant best,pruned --reps 3"
KM="run kmeans --n 1000000 --k 100 --d 200 --init first --variant best,pruned --reps 3"
timeout 90 $N $KM --json $R/km-new.json > $R/km-new.txt 2>&1; echo "rc=$?" >> $R/km-new.txt
timeout 60 $O $KM --no-verify > $R/km-old.txt 2>&1; echo "rc=$?" >> $R/km-old.txt
timeout 60 $N $KC --json $R/kc-new.json > $R/kc-new.txt 2>&1; echo "rc=$?" >> $R/kc-new.txt
timeout 60 $O $KC --no-verify > $R/kc-old.txt 2>&1; echo "rc=$?" >> $R/kc-old.txt
DEST=$OUT; export KERNELLAB_CLI=$N OUT=$R
scripts/device-run.sh 110@verify:--family+kmeans 90@verify:--family+kcenters 170@bench-best:--n+1000000+--reps+3#json > $R/device-run.txt 2>&1
tar -C /tmp -cJf $DEST/call4.tar.xz r
