#!/bin/bash
# Session 16 call 1 (issue 15): Old = 71d645f (committed), N = Old + point-major rows, batched
# sketch words, the per-unit 4-bit sketch (uncommitted). kcenters A/B on the seed data (Old, N8 =
# N without the unit sketch, NU = N default, NU13 = N with 13-word batches), twice interleaved;
# broad blob Old/NU; k-means warm-share sweep on Old; verify (all, and kcenters with each
# setting), memcheck, racecheck of N; ncu durations; bench best of N if the device is an H200.
set -u
mkdir -p /tmp/kl
for b in Old N; do xz -dc .devdeps/pack/cli$b.xz > /tmp/kl/$b && chmod +x /tmp/kl/$b; done
R=/tmp/r1; mkdir -p $R
pack() { tar -C /tmp -cJf $OUT/call1.tar.xz r1; }
cp .devdeps/pack/call1.sh $R/
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
  runkc N8$r N KERNELLAB_KCENTERS_UNIT_SKETCH=0
  runkc NU$r N X=1
  runkc NU13$r N KERNELLAB_KCENTERS_SKETCH_BATCH=13
done
EXTRA="--shape blobs --noise 0.99999"
runkc blobOld Old X=1
runkc blobNU N X=1
runkc blobN8 N KERNELLAB_KCENTERS_UNIT_SKETCH=0
pack
KM="run kmeans --n 1000000 --k 100 --d 200 --init first --reps 3 --no-verify"
t kmbest; timeout 60 /tmp/kl/Old $KM --variant best,pruned > $R/km-best.txt 2>&1; echo "rc=$?" >> $R/km-best.txt
for w in 0 0.003 0.03 0.1 0.3; do
  t km$w; KERNELLAB_PRUNED_WARM=$w timeout 60 /tmp/kl/Old $KM --variant pruned > $R/km-w$w.txt 2>&1; echo "rc=$?" >> $R/km-w$w.txt
done
pack
N=/tmp/kl/N
t verify; KERNELLAB_CLI=$N OUT=$R/v scripts/device-run.sh 120@verify 30@memcheck:--family+kcenters > $R/v.txt 2>&1
KERNELLAB_KCENTERS_SKETCH_BATCH=13 KERNELLAB_CLI=$N OUT=$R/v13 scripts/device-run.sh 30@verify:--family+kcenters > $R/v13.txt 2>&1
KERNELLAB_KCENTERS_UNIT_SKETCH=0 KERNELLAB_CLI=$N OUT=$R/v8 scripts/device-run.sh 30@verify:--family+kcenters > $R/v8.txt 2>&1
pack
t racecheck; KERNELLAB_CLI=$N OUT=$R/rc scripts/device-run.sh 90@racecheck:--family+kcenters > $R/rc.txt 2>&1
pack
PC="run kcenters --n 1000000 --k 100 --d 200 --variant pruned --reps 1 --warmup 0 --no-verify"
t ncu; timeout 40 ncu --metrics gpu__time_duration.sum --csv --print-units base $N $PC > $R/ncu-kc.csv 2>> $R/err.txt
echo "ncu rc=$?" >> $R/err.txt; xz -9 $R/ncu-kc.csv
pack
if grep -q H200 $R/facts.txt; then
  t bench; timeout 150 $N bench best --n 1000000 --reps 3 --json $R/bench-best.json > $R/bench.txt 2>&1; echo "rc=$?" >> $R/bench.txt
  xz -9 $R/bench-best.json
fi
t done
pack
