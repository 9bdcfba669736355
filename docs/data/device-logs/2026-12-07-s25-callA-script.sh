#!/bin/bash
# Prepared in session 24 for the next session's first call (issue 15). M = the committed kernels
# (25beec8's CUDA); P = the patch docs/data/device-logs/2026-12-07-s24-several-centers-a-pass-
# verified-slower-then-reworked-not-run.patch applied to e3b3909 (several centers a pass, the pass
# an instance per width, one histogram atomic per bin per warp, plan rows through L2, 3 blocks per
# SM, the plan staging 32 listed rows a block in shared memory; KERNELLAB_KCENTERS_PLAN_ROWS=0 gives
# a thread per row as before). (N3, session 24's intermediate build, was lost with that checkout: not run.)
# Order: verify P; time P, M, N3 alternated; P at 1, 2, 4, 8 centers a pass; Nsight Compute of
# P's first pass (where its time goes); sanitizers; bench best.
set -u
mkdir -p /tmp/kl
xz -dc .devdeps/pack/clis25.tar.xz | tar -C /tmp/kl -xf - && chmod +x /tmp/kl/*
R=/tmp/r25a; mkdir -p $R
pack() { tar -C /tmp -cJf $OUT/call25a.tar.xz r25a; }
cp .devdeps/pack/s25a.sh $R/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
t() { echo "== $(date +%T) $*" >> $R/log.txt; }
t verify-P; timeout 120 /tmp/kl/P verify --family kcenters > $R/verify-P.txt 2>&1; echo "rc=$?" >> $R/verify-P.txt
pack
KC="run kcenters --n 1000000 --k 100 --d 200 --reps 3 --no-verify --variant pruned"
for b in P M P M; do t $b; timeout 40 /tmp/kl/$b $KC >> $R/kc-$b.txt 2>&1; done
for B in 1 2 4; do t P-b$B; KERNELLAB_KCENTERS_BATCH=$B timeout 40 /tmp/kl/P $KC > $R/kc-P-b$B.txt 2>&1; done
t P-rows0; KERNELLAB_KCENTERS_PLAN_ROWS=0 timeout 40 /tmp/kl/P $KC > $R/kc-P-rows0.txt 2>&1
t verify-P-rows0; KERNELLAB_KCENTERS_PLAN_ROWS=0 timeout 120 /tmp/kl/P verify --family kcenters > $R/verify-P-rows0.txt 2>&1; echo "rc=$?" >> $R/verify-P-rows0.txt
t blob; for b in P M; do timeout 40 /tmp/kl/$b $KC --shape blobs --noise 0.99999 > $R/kc-blob-$b.txt 2>&1; done
pack
t ncu-pass
timeout 120 ncu --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --section MemoryWorkloadAnalysis -k regex:kcentersPrunedKernel --launch-skip 1 --launch-count 1 /tmp/kl/P run kcenters --n 1000000 --k 100 --d 200 --variant pruned --reps 1 --no-verify > $R/ncu-P-pass.txt 2>&1
t ncu-times
timeout 100 ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum,smsp__inst_executed.sum -k regex:"kcenters|sketch" --launch-count 210 --csv /tmp/kl/P run kcenters --n 1000000 --k 100 --d 200 --variant pruned --reps 1 --no-verify > $R/ncu-P.csv 2> $R/ncu-P.err
xz -9 $R/ncu-P.csv
pack
if grep -q " 0 failed" $R/verify-P.txt; then
  t sanitizers; KERNELLAB_CLI=/tmp/kl/P OUT=$R/v scripts/device-run.sh 90@memcheck:--family+kcenters 90@racecheck:--family+kcenters > $R/v.txt 2>&1
  pack
  t bench; timeout 200 /tmp/kl/P bench best --n 1000000 --reps 3 --json $R/bench-best.json > $R/bench.txt 2>&1; echo "rc=$?" >> $R/bench.txt
  [ -f $R/bench-best.json ] && xz -9 $R/bench-best.json
fi
t done
pack
