#!/bin/bash
# Session 24, call B (issue 15): where N's time goes. N with at most 1, 2, 4, 8 centers a pass
# (KERNELLAB_KCENTERS_BATCH), M beside; then Nsight Compute's time per launch of one N run.
set -u
mkdir -p /tmp/kl
xz -dc .devdeps/pack/clis24.tar.xz | tar -C /tmp/kl -xf - && chmod +x /tmp/kl/M /tmp/kl/N
R=/tmp/r24b; mkdir -p $R
pack() { tar -C /tmp -cJf $OUT/call24b.tar.xz r24b; }
cp .devdeps/pack/s24b.sh $R/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
t() { echo "== $(date +%T) $*" >> $R/log.txt; }
KC="run kcenters --n 1000000 --k 100 --d 200 --reps 3 --no-verify --variant pruned"
for B in 1 2 4 8; do t b$B; KERNELLAB_KCENTERS_BATCH=$B timeout 40 /tmp/kl/N $KC > $R/kc-b$B.txt 2>&1; done
t M; timeout 40 /tmp/kl/M $KC > $R/kc-M.txt 2>&1
pack
t ncu
timeout 100 ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum -k regex:"kcenters|sketch" --launch-count 210 --csv /tmp/kl/N run kcenters --n 1000000 --k 100 --d 200 --variant pruned --reps 1 --no-verify > $R/ncu-N.csv 2> $R/ncu-N.err
echo "rc=$?" >> $R/ncu-N.err; xz -9 $R/ncu-N.csv
t done
pack
