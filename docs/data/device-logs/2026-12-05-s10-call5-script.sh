#!/bin/bash
# Session 10 call 5 (issue 15): memcheck and racecheck of k-means and k-centers (this session's
# code), and the warm-iteration threshold swept (KERNELLAB_PRUNED_WARM), each run verified.
set -u
bash .devdeps/pack/unpack.sh
N=/tmp/kl/cli
R=/tmp/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
DEST=$OUT; export KERNELLAB_CLI=$N OUT=$R
scripts/device-run.sh 120@memcheck:--family+kmeans 150@racecheck:--family+kmeans 90@memcheck:--family+kcenters 120@racecheck:--family+kcenters > $R/device-run.txt 2>&1
for w in 0.003 0.01 0.02 0.05 0.1; do
  KERNELLAB_PRUNED_WARM=$w timeout 60 $N run kmeans --n 1000000 --k 100 --d 200 --init first --variant pruned --reps 3 \
    > $R/warm-$w.txt 2>&1
  echo "warm $w rc=$? $(grep -E '^pruned ' $R/warm-$w.txt | cut -c1-60) $(grep -o 'yes (1000000[^;]*' $R/warm-$w.txt | head -1)" >> $R/warm.txt
done
timeout 90 ncu --metrics gpu__time_duration.sum --csv --print-units base -k regex:"prunedTieKernel|prunedTightenKernel|exactFixKernel" \
  $N run kmeans --n 1000000 --k 100 --d 200 --init first --variant best,pruned --reps 1 --warmup 0 --no-verify > $R/ncu-tie.csv 2>&1
tar -C /tmp -cJf $DEST/call5.tar.xz r
