#!/bin/bash
# Session 16 call 2 (issue 15, k-centers): Old = 71d645f (committed), H = Old + the point-major
# copy read only by chunks of scattered points (denseChunk), the sketch words in guarded batches
# of 8 (2 round trips at D = 200). H0 = H with KERNELLAB_KCENTERS_ROWS=0 (no copy, every chunk
# from the columns: the batching alone), Seed data twice
# interleaved, then one broad cloud; verify (all; kcenters with ROWS=0), memcheck,
# racecheck of H; ncu durations of H (seed, blobs); bench best of H on an H200.
set -u
mkdir -p /tmp/kl
for b in Old H; do xz -dc .devdeps/pack/cli$b.xz > /tmp/kl/$b && chmod +x /tmp/kl/$b; done
R=/tmp/r2; mkdir -p $R
pack() { tar -C /tmp -cJf $OUT/call2.tar.xz r2; }
cp .devdeps/pack/call2.sh $R/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
t() { echo "== $(date +%T) $*" >> $R/log.txt; }
KC="run kcenters --n 1000000 --k 100 --d 200 --variant best,pruned --reps 3 --no-verify"
runkc() { # name binary env...
  local name=$1 bin=$2; shift 2
  t $name; env "$@" timeout 40 /tmp/kl/$bin $KC $EXTRA > $R/kc-$name.txt 2>&1; echo "rc=$?" >> $R/kc-$name.txt
}
EXTRA=""
for r in 1 2; do
  runkc Old$r Old X=1
  runkc H$r H X=1
  runkc H0$r H KERNELLAB_KCENTERS_ROWS=0
done
EXTRA="--shape blobs --noise 0.99999"
runkc blobOld Old X=1
runkc blobH H X=1
runkc blobH0 H KERNELLAB_KCENTERS_ROWS=0
pack
H=/tmp/kl/H
t verify; KERNELLAB_CLI=$H OUT=$R/v scripts/device-run.sh 120@verify 30@memcheck:--family+kcenters > $R/v.txt 2>&1
KERNELLAB_KCENTERS_ROWS=0 KERNELLAB_CLI=$H OUT=$R/v0 scripts/device-run.sh 30@verify:--family+kcenters > $R/v0.txt 2>&1
pack
t racecheck; KERNELLAB_CLI=$H OUT=$R/rc scripts/device-run.sh 90@racecheck:--family+kcenters > $R/rc.txt 2>&1
pack
PC="run kcenters --n 1000000 --k 100 --d 200 --variant pruned --reps 1 --warmup 0 --no-verify"
t ncu; timeout 40 ncu --metrics gpu__time_duration.sum --csv --print-units base $H $PC > $R/ncu-kc.csv 2>> $R/err.txt
echo "ncu rc=$?" >> $R/err.txt; xz -9 $R/ncu-kc.csv
timeout 40 ncu --metrics gpu__time_duration.sum --csv --print-units base $H $PC --shape blobs --noise 0.99999 > $R/ncu-kc-blobs.csv 2>> $R/err.txt
echo "ncu blobs rc=$?" >> $R/err.txt; xz -9 $R/ncu-kc-blobs.csv
pack
grep -q H200 $R/facts.txt && t bench && timeout 150 $H bench best --n 1000000 --reps 3 --json $R/bench-best.json > $R/bench.txt 2>&1; echo "rc=$?" >> $R/bench.txt
[ -f $R/bench-best.json ] && xz -9 $R/bench-best.json
t done
pack
