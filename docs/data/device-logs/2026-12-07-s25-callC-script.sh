#!/bin/bash
# Session 25, call C (issue 15): P = 4157bda's kernels (several centers a pass, verified in call
# 25a); F = the working tree after it: the pass's per-point 64-bit shared counter of points read (a
# compare-and-swap loop, a lane each on one address: every point of the first pass) and the plan's
# per-point slot reservation made one atomic per warp, plus the host's per-center pass record;
# F44 = F at 4 blocks per SM (64 registers) with 4 rounds a batch (37 KB of shared memory a block
# instead of 57). Verify F and F44 (k-centers); time P, F, F44 alternated on the seed's data, F and
# F44 on one broad cloud; the faster verified of F and F44 (W) then gets the whole verify suite,
# memcheck and racecheck (k-centers), bench best with its JSON, and Nsight Compute launch times.
set -u
mkdir -p /tmp/kl
xz -dc .devdeps/pack/clis25c.tar.xz | tar -C /tmp/kl -xf - && chmod +x /tmp/kl/*
R=/tmp/r25c; mkdir -p $R
pack() { tar -C /tmp -cJf $OUT/call25c.tar.xz r25c; }
cp .devdeps/pack/s25c.sh $R/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
t() { echo "== $(date +%T) $*" >> $R/log.txt; }
for b in F F44; do t verify-$b; timeout 120 /tmp/kl/$b verify --family kcenters > $R/verify-$b.txt 2>&1; echo "rc=$?" >> $R/verify-$b.txt; done
pack
KC="run kcenters --n 1000000 --k 100 --d 200 --reps 3 --no-verify --variant pruned"
for b in P F F44 P F F44; do t $b; timeout 40 /tmp/kl/$b $KC >> $R/kc-$b.txt 2>&1; done
for b in F F44; do t blob-$b; timeout 40 /tmp/kl/$b $KC --shape blobs --noise 0.99999 > $R/kc-blob-$b.txt 2>&1; done
pack
med() { grep -E '^pruned ' $R/kc-$1.txt | awk '{s+=$2; n++} END {print (n ? s/n : 1e9)}'; }
W=F
if grep -q " 0 failed" $R/verify-F44.txt && awk -v a=$(med F44) -v b=$(med F) 'BEGIN{exit !(a < b)}'; then W=F44; fi
grep -q " 0 failed" $R/verify-$W.txt || W=none
echo "W=$W (F $(med F) ms, F44 $(med F44) ms)" >> $R/log.txt
if [ $W != none ]; then
  t verify-all-$W; timeout 240 /tmp/kl/$W verify > $R/verify-all.txt 2>&1; echo "rc=$?" >> $R/verify-all.txt
  pack
  t sanitizers; KERNELLAB_CLI=/tmp/kl/$W OUT=$R/v scripts/device-run.sh 90@memcheck:--family+kcenters 90@racecheck:--family+kcenters > $R/v.txt 2>&1
  pack
  t bench; timeout 200 /tmp/kl/$W bench best --n 1000000 --reps 3 --json $R/bench-best.json > $R/bench.txt 2>&1; echo "rc=$?" >> $R/bench.txt
  [ -f $R/bench-best.json ] && xz -9 $R/bench-best.json
  pack
  t ncu-$W
  timeout 100 ncu --metrics gpu__time_duration.sum,dram__bytes_read.sum -k regex:"kcenters|sketch" --launch-count 201 --csv /tmp/kl/$W run kcenters --n 1000000 --k 100 --d 200 --variant pruned --reps 1 --no-verify > $R/ncu-$W.csv 2> $R/ncu-$W.err
  xz -9 $R/ncu-$W.csv
fi
t done
pack
