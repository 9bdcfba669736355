# Session 19 (2026-12-07): the device call scripts. s19.sh ran once (call 1, H100, 03:59 UTC) with the
# lazy k-centers before the alignment fix; s19m.sh (after the fix) never ran: every later start was refused.
# cliHead = the committed CLI (eager pruned k-centers), cliL = the CLI built with the patch
# docs/data/device-logs/2026-12-07-s19-lazy-kcenters-cuda-aligned-unverified.patch (sm_90, -DKERNELLAB_GUI=OFF),
# stripped and xz-compressed into .devdeps/pack/; run as: run(kind nvidia-h200, carry [".devdeps/pack"]) bash .devdeps/pack/s19m.sh

######## .devdeps/pack/s19.sh
#!/bin/bash
# Session 19 (issue 15, k-centers): Head = committed eager pruned
# k-centers (8-bit sketch), L = the lazy pruned k-centers. verify kcenters of L, seed data A/B,
# memcheck and racecheck of L (k-centers), bench best of L (H200 only, when verified), broad cloud
# A/B, verify kmeans of L, ncu durations.
set -u
mkdir -p /tmp/kl
for b in Head L; do xz -dc .devdeps/pack/cli$b.xz > /tmp/kl/$b && chmod +x /tmp/kl/$b; done
R=/tmp/r19; mkdir -p $R
pack() { tar -C /tmp -cJf $OUT/call19b.tar.xz r19; }
cp .devdeps/pack/s19.sh $R/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
t() { echo "== $(date +%T) $*" >> $R/log.txt; }
t verify-kc; timeout 40 /tmp/kl/L verify --family kcenters > $R/verify-kc.txt 2>&1; echo "rc=$?" >> $R/verify-kc.txt
KC="run kcenters --n 1000000 --k 100 --d 200 --variant best,pruned --reps 3 --no-verify"
runkc() { local name=$1 bin=$2; t $name; timeout 25 /tmp/kl/$bin $KC $EXTRA > $R/kc-$name.txt 2>&1; echo "rc=$?" >> $R/kc-$name.txt; }
EXTRA=""
runkc Head1 Head; runkc L1 L
pack
t sanitizers; KERNELLAB_CLI=/tmp/kl/L OUT=$R/v scripts/device-run.sh 25@memcheck:--family+kcenters 60@racecheck:--family+kcenters > $R/v.txt 2>&1
pack
if grep -q H200 $R/facts.txt && grep -q " 0 failed" $R/verify-kc.txt; then
  t bench; timeout 150 /tmp/kl/L bench best --n 1000000 --reps 3 --json $R/bench-best.json > $R/bench.txt 2>&1; echo "rc=$?" >> $R/bench.txt
  [ -f $R/bench-best.json ] && xz -9 $R/bench-best.json
  pack
fi
EXTRA="--shape blobs --noise 0.99999"
runkc blobHead Head; runkc blobL L
t verify-km; timeout 40 /tmp/kl/L verify --family kmeans > $R/verify-km.txt 2>&1; echo "rc=$?" >> $R/verify-km.txt
pack
PC="run kcenters --n 1000000 --k 100 --d 200 --variant pruned --reps 1 --warmup 0 --no-verify"
t ncu; timeout 40 ncu --metrics gpu__time_duration.sum --csv --print-units base /tmp/kl/L $PC > $R/ncu-kc-L.csv 2>> $R/err.txt
echo "ncu rc=$?" >> $R/err.txt; xz -9 $R/ncu-kc-L.csv
t done
pack

######## .devdeps/pack/s19m.sh
#!/bin/bash
# Session 19, minimal (issue 15, little device time left): L = the lazy pruned k-centers with the
# alignment fix, Head = the committed eager one. verify kcenters of L, memcheck and racecheck, then
# on an H200 `bench best` (the targets), on an H100 the seed's data and one broad cloud A/B.
set -u
mkdir -p /tmp/kl
for b in Head L; do xz -dc .devdeps/pack/cli$b.xz > /tmp/kl/$b && chmod +x /tmp/kl/$b; done
R=/tmp/r19; mkdir -p $R
pack() { tar -C /tmp -cJf $OUT/call19m.tar.xz r19; }
cp .devdeps/pack/s19m.sh $R/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
t() { echo "== $(date +%T) $*" >> $R/log.txt; }
t verify-kc; timeout 40 /tmp/kl/L verify --family kcenters > $R/verify-kc.txt 2>&1; echo "rc=$?" >> $R/verify-kc.txt
pack
t sanitizers; KERNELLAB_CLI=/tmp/kl/L OUT=$R/v scripts/device-run.sh 25@memcheck:--family+kcenters 60@racecheck:--family+kcenters > $R/v.txt 2>&1
pack
KC="run kcenters --n 1000000 --k 100 --d 200 --variant best,pruned --reps 3 --no-verify"
runkc() { local name=$1 bin=$2; t $name; timeout 25 /tmp/kl/$bin $KC $EXTRA > $R/kc-$name.txt 2>&1; echo "rc=$?" >> $R/kc-$name.txt; pack; }
if grep -q H200 $R/facts.txt && grep -q " 0 failed" $R/verify-kc.txt; then
  t bench; timeout 170 /tmp/kl/L bench best --n 1000000 --reps 3 --json $R/bench-best.json > $R/bench.txt 2>&1; echo "rc=$?" >> $R/bench.txt
  [ -f $R/bench-best.json ] && xz -9 $R/bench-best.json
  pack
fi
EXTRA=""; runkc L1 L; runkc Head1 Head
EXTRA="--shape blobs --noise 0.99999"; runkc blobL L; runkc blobHead Head
t done
pack
