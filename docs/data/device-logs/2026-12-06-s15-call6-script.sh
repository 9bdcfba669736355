#!/bin/bash
# Session 15 call 6 (issue 15, k-centers): Old = 7f2228c, New = Old + a coarse first sketch (the
# codes' high nibbles, 32 dimensions per 16-byte word, its own error bound): a point the triangle
# test keeps is tested on it (one batch of loads); the ones it keeps are queued and read their
# 8-bit sketch a chunk of 32 per warp, then the floats as before. Timings without the CPU check,
# twice, interleaved; verify, memcheck, racecheck of New; Nsight Compute durations. Results
# packed into $OUT after each step.
set -u
mkdir -p /tmp/kl
for b in Old N; do xz -dc .devdeps/pack/cli$b.xz > /tmp/kl/$b && chmod +x /tmp/kl/$b; done
R=/tmp/r6; mkdir -p $R
pack() { tar -C /tmp -cJf $OUT/call6.tar.xz r6; }
cp .devdeps/pack/call6.sh $R/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
KC="run kcenters --n 1000000 --k 100 --d 200 --variant best,pruned --reps 3 --no-verify"
t() { echo "== $(date +%T) $*" >> $R/log.txt; }
for r in 1 2; do
  for b in Old N; do t $b$r; timeout 30 /tmp/kl/$b $KC > $R/kc-$b$r.txt 2>&1; echo "rc=$?" >> $R/kc-$b$r.txt; done
done
pack
N=/tmp/kl/N
t verify; KERNELLAB_CLI=$N OUT=$R/v scripts/device-run.sh 60@verify:--family+kcenters 40@memcheck:--family+kcenters > $R/v.txt 2>&1
pack
t racecheck; KERNELLAB_CLI=$N OUT=$R/rc scripts/device-run.sh 90@racecheck:--family+kcenters > $R/rc.txt 2>&1
pack
PC="run kcenters --n 1000000 --k 100 --d 200 --variant pruned --reps 1 --warmup 0 --no-verify"
t ncu; timeout 40 ncu --metrics gpu__time_duration.sum --csv --print-units base $N $PC > $R/ncu-kc.csv 2>> $R/err.txt
echo "ncu rc=$?" >> $R/err.txt; xz -9 $R/ncu-kc.csv
t done
pack
