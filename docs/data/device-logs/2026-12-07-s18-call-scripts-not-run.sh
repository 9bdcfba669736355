# ===== .devdeps/pack/s18c1.sh =====
#!/bin/bash
# Session 18 call 1 (issue 15, k-centers): Head = committed eager pruned k-centers (8-bit sketch),
# L = the lazy pruned k-centers (docs/data/device-logs/2026-12-06-s17-lazy-kcenters-cuda-unmeasured.patch).
# verify kcenters + kmeans of L, seed data and broad cloud A/B, bench best of L (H200 only, when
# verified), memcheck and racecheck of L (k-centers), ncu kernel durations.
set -u
mkdir -p /tmp/kl
for b in Head L; do xz -dc .devdeps/pack/cli$b.xz > /tmp/kl/$b && chmod +x /tmp/kl/$b; done
R=/tmp/r1; mkdir -p $R
pack() { tar -C /tmp -cJf $OUT/call1.tar.xz r1; }
cp .devdeps/pack/s18c1.sh $R/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
t() { echo "== $(date +%T) $*" >> $R/log.txt; }
t verify-kc; timeout 50 /tmp/kl/L verify --family kcenters > $R/verify-kc.txt 2>&1; echo "rc=$?" >> $R/verify-kc.txt
t verify-km; timeout 40 /tmp/kl/L verify --family kmeans > $R/verify-km.txt 2>&1; echo "rc=$?" >> $R/verify-km.txt
KC="run kcenters --n 1000000 --k 100 --d 200 --variant best,pruned --reps 3 --no-verify"
runkc() { local name=$1 bin=$2; t $name; timeout 30 /tmp/kl/$bin $KC $EXTRA > $R/kc-$name.txt 2>&1; echo "rc=$?" >> $R/kc-$name.txt; }
EXTRA=""
runkc Head1 Head; runkc L1 L
EXTRA="--shape blobs --noise 0.99999"
runkc blobHead Head; runkc blobL L
pack
if grep -q H200 $R/facts.txt && grep -q " 0 failed" $R/verify-kc.txt; then
  t bench; timeout 150 /tmp/kl/L bench best --n 1000000 --reps 3 --json $R/bench-best.json > $R/bench.txt 2>&1; echo "rc=$?" >> $R/bench.txt
  [ -f $R/bench-best.json ] && xz -9 $R/bench-best.json
  pack
fi
t sanitizers; KERNELLAB_CLI=/tmp/kl/L OUT=$R/v scripts/device-run.sh 30@memcheck:--family+kcenters 80@racecheck:--family+kcenters > $R/v.txt 2>&1
pack
PC="run kcenters --n 1000000 --k 100 --d 200 --variant pruned --reps 1 --warmup 0 --no-verify"
t ncu; timeout 40 ncu --metrics gpu__time_duration.sum --csv --print-units base /tmp/kl/L $PC > $R/ncu-kc-L.csv 2>> $R/err.txt
echo "ncu rc=$?" >> $R/err.txt; xz -9 $R/ncu-kc-L.csv
EXTRA=""
t L2sm; KERNELLAB_KCENTERS_BLOCKS_PER_SM=2 timeout 30 /tmp/kl/L $KC > $R/kc-L2sm.txt 2>&1
PM="run kmeans --n 1000000 --k 100 --d 200 --variant pruned --init first --reps 1 --warmup 0 --no-verify"
t ncu-km; timeout 50 ncu --metrics gpu__time_duration.sum --csv --print-units base /tmp/kl/L $PM > $R/ncu-km-L.csv 2>> $R/err.txt
echo "ncu km rc=$?" >> $R/err.txt; xz -9 $R/ncu-km-L.csv
t done
pack
# ===== .devdeps/pack/s18c2.sh =====
#!/bin/bash
# Session 18 (issue 15, k-centers; lean, little device time left): Head = committed eager pruned
# k-centers (8-bit sketch), L = the lazy pruned k-centers. verify kcenters of L, seed data A/B,
# memcheck and racecheck of L (k-centers), bench best of L (H200 only, when verified), broad cloud
# A/B, verify kmeans of L, ncu durations.
set -u
mkdir -p /tmp/kl
for b in Head L; do xz -dc .devdeps/pack/cli$b.xz > /tmp/kl/$b && chmod +x /tmp/kl/$b; done
R=/tmp/r2; mkdir -p $R
pack() { tar -C /tmp -cJf $OUT/call2.tar.xz r2; }
cp .devdeps/pack/s18c2.sh $R/
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
# ===== .devdeps/pack/s18c3.sh =====
#!/bin/bash
# Session 18 (issue 15, k-centers; the last device seconds): L = the lazy pruned k-centers, Head =
# the committed eager one. verify kcenters of L, one seed-data A/B, memcheck of L (k-centers).
set -u
mkdir -p /tmp/kl
for b in Head L; do xz -dc .devdeps/pack/cli$b.xz > /tmp/kl/$b && chmod +x /tmp/kl/$b; done
R=/tmp/r3; mkdir -p $R
pack() { tar -C /tmp -cJf $OUT/call3.tar.xz r3; }
cp .devdeps/pack/s18c3.sh $R/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
t() { echo "== $(date +%T) $*" >> $R/log.txt; }
t verify-kc; timeout 30 /tmp/kl/L verify --family kcenters > $R/verify-kc.txt 2>&1; echo "rc=$?" >> $R/verify-kc.txt
KC="run kcenters --n 1000000 --k 100 --d 200 --variant best,pruned --reps 3 --no-verify"
for b in Head L; do t $b; timeout 20 /tmp/kl/$b $KC > $R/kc-$b.txt 2>&1; echo "rc=$?" >> $R/kc-$b.txt; done
pack
t memcheck; KERNELLAB_CLI=/tmp/kl/L OUT=$R/v scripts/device-run.sh 25@memcheck:--family+kcenters+--quick > $R/v.txt 2>&1
t done
pack
