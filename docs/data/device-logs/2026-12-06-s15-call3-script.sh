#!/bin/bash
# Session 15 call 3 (issue 15, k-centers): Old = b771696 (k-centers as in session 11), New = the
# pruned k-centers launch with a block-wide queue (each block reads its queued points' floats
# together through shared memory), the triangle test's center distance bounded below by the
# distance that chose the center (exact distances only while K x D is small), the sketch's range
# pass with 16-byte loads and its encode by point and word; since call 2 a whole unit of points to
# read is read by its own warp (not queued), and each batch's labels and distances load at once. Timings without the CPU check, twice,
# interleaved; verify, memcheck, racecheck of New; Nsight Compute durations and two launches in
# full; on an H200 also `bench best`. Results packed into $OUT after each step.
set -u
mkdir -p /tmp/kl
for b in Old N; do xz -dc .devdeps/pack/cli$b.xz > /tmp/kl/$b && chmod +x /tmp/kl/$b; done
R=/tmp/r3; mkdir -p $R
pack() { tar -C /tmp -cJf $OUT/call3.tar.xz r3; }
cp .devdeps/pack/call3.sh $R/
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
if grep -q H200 $R/facts.txt; then
  t bench; timeout 200 $N bench best --n 1000000 --reps 3 --json $R/bench-best.json.xz > $R/bench.txt 2>&1
  echo "rc=$?" >> $R/bench.txt
  pack
fi
PC="run kcenters --n 1000000 --k 100 --d 200 --variant pruned --reps 1 --warmup 0 --no-verify"
t ncu; timeout 40 ncu --metrics gpu__time_duration.sum --csv --print-units base $N $PC > $R/ncu-kc.csv 2>> $R/err.txt
echo "ncu rc=$?" >> $R/err.txt; xz -9 $R/ncu-kc.csv; pack
for j in 5 60; do
  t ncu full $j; timeout 50 ncu --set full -k kcentersPrunedKernel --launch-skip $j --launch-count 1 --csv --page raw $N $PC > $R/ncu-full-$j.csv 2>> $R/err.txt
  xz -9 $R/ncu-full-$j.csv
done
t done
pack
