#!/bin/bash
# Session 15 call 5 (issue 15, k-centers): Old = 7f2228c (call 4's build), New = Old + no serial
# tail: every block of launch j folds launch j - 1's block candidates itself (the new center, its
# radius), reads the center from the points and (while centers x D <= 8192) measures its exact
# distances to the earlier centers; only the last launch keeps a last block (the final radius).
# Timings without the CPU check, twice, interleaved; verify, memcheck, racecheck of New; `bench
# best` (plain JSON, compressed here afterwards); Nsight Compute durations and two launches in
# full. Results packed into $OUT after each step.
set -u
mkdir -p /tmp/kl
for b in Old N; do xz -dc .devdeps/pack/cli$b.xz > /tmp/kl/$b && chmod +x /tmp/kl/$b; done
R=/tmp/r5; mkdir -p $R
pack() { tar -C /tmp -cJf $OUT/call5.tar.xz r5; }
cp .devdeps/pack/call5.sh $R/
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
t bench; timeout 220 $N bench best --n 1000000 --reps 3 --json $R/bench-best.json > $R/bench.txt 2>&1
echo "rc=$?" >> $R/bench.txt; xz -9 -T8 $R/bench-best.json
pack
PC="run kcenters --n 1000000 --k 100 --d 200 --variant pruned --reps 1 --warmup 0 --no-verify"
t ncu; timeout 40 ncu --metrics gpu__time_duration.sum --csv --print-units base $N $PC > $R/ncu-kc.csv 2>> $R/err.txt
echo "ncu rc=$?" >> $R/err.txt; xz -9 $R/ncu-kc.csv; pack
for j in 5 60; do
  t ncu full $j; timeout 50 ncu --set full -k kcentersPrunedKernel --launch-skip $j --launch-count 1 --csv --page raw $N $PC > $R/ncu-full-$j.csv 2>> $R/err.txt
  xz -9 $R/ncu-full-$j.csv
done
t done
pack
