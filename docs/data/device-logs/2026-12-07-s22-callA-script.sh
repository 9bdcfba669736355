#!/bin/bash
# Session 22, call A (issue 15). L = f3bc635 + docs/data/device-logs/2026-12-07-s21-kmeans-lane-screen-unverified.patch
# (k-means near-tie screen a lane per candidate; KERNELLAB_PRUNED_LANE_SCREEN=0 gives the committed
# screen; L's k-centers is the committed eager pass). K = f3bc635 + the session-21 lazy k-centers
# patch with the warp catch-up's distances in registers (KERNELLAB_KCENTERS_WARP_UNITS = fewest
# units a scan step lists for warps to take one each; 100000 = block catch-ups only) and pass 0
# aimed at the top 1 % of units by bound from a histogram (KERNELLAB_KCENTERS_TOP units; 0 = each
# block's top unit, session 17's rule).
set -u
mkdir -p /tmp/kl
xz -dc .devdeps/pack/cliL.xz > /tmp/kl/L && chmod +x /tmp/kl/L
xz -dc .devdeps/pack/cliK.xz > /tmp/kl/K && chmod +x /tmp/kl/K
R=/tmp/r22a; mkdir -p $R
pack() { tar -C /tmp -cJf $OUT/call22a.tar.xz r22a; }
cp .devdeps/pack/s22a.sh $R/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
t() { echo "== $(date +%T) $*" >> $R/log.txt; }
t verify-km; timeout 60 /tmp/kl/L verify --family kmeans > $R/verify-km.txt 2>&1; echo "rc=$?" >> $R/verify-km.txt
pack
KM="run kmeans --n 1000000 --k 100 --d 200 --init first --stop fixed-point --max-iter 300 --reps 3 --no-verify"
runkm() { local name=$1 var=$2; t $name; timeout 40 /tmp/kl/L $KM --variant $var --json $R/km-$name.json > $R/km-$name.txt 2>&1; echo "rc=$?" >> $R/km-$name.txt; xz -9 $R/km-$name.json; }
runkm lane1 best,pruned; KERNELLAB_PRUNED_LANE_SCREEN=0 runkm old1 pruned
runkm lane2 pruned; KERNELLAB_PRUNED_LANE_SCREEN=0 runkm old2 pruned
pack
t verify-kc; timeout 60 /tmp/kl/K verify --family kcenters > $R/verify-kc.txt 2>&1; echo "rc=$?" >> $R/verify-kc.txt
KERNELLAB_KCENTERS_WARP_UNITS=1 timeout 60 /tmp/kl/K verify --family kcenters > $R/verify-kc-w1.txt 2>&1; echo "rc=$?" >> $R/verify-kc-w1.txt
KC="run kcenters --n 1000000 --k 100 --d 200 --reps 3 --no-verify"
runkc() { local name=$1 bin=$2; shift 2; t kc-$name; timeout 40 /tmp/kl/$bin $KC "$@" > $R/kc-$name.txt 2>&1; echo "rc=$?" >> $R/kc-$name.txt; }
runkc H L --variant best,pruned
KERNELLAB_KCENTERS_WARP_UNITS=1 runkc Kt K --variant pruned
KERNELLAB_KCENTERS_WARP_UNITS=2 runkc Kt2 K --variant pruned
KERNELLAB_KCENTERS_WARP_UNITS=1 KERNELLAB_KCENTERS_TOP=1250 runkc Kt4p K --variant pruned
KERNELLAB_KCENTERS_WARP_UNITS=1 KERNELLAB_KCENTERS_TOP=0 runkc K0 K --variant pruned
KERNELLAB_KCENTERS_WARP_UNITS=100000 KERNELLAB_KCENTERS_TOP=0 runkc K0off K --variant pruned
runkc H2 L --variant pruned
runkc blobH L --variant best,pruned --shape blobs --noise 0.99999
KERNELLAB_KCENTERS_WARP_UNITS=1 runkc blobKt K --variant pruned --shape blobs --noise 0.99999
pack
if grep -q H200 $R/facts.txt && grep -q "rc=0" $R/verify-km.txt; then
  t bench; timeout 230 /tmp/kl/L bench best --n 1000000 --reps 3 --json $R/bench-best.json > $R/bench.txt 2>&1; echo "rc=$?" >> $R/bench.txt
  [ -f $R/bench-best.json ] && xz -9 $R/bench-best.json
  pack
fi
t sanitizers; KERNELLAB_CLI=/tmp/kl/L OUT=$R/v scripts/device-run.sh 90@memcheck:--family+kmeans 90@racecheck:--family+kmeans > $R/v.txt 2>&1
grep -q "rc=0" $R/verify-kc.txt && KERNELLAB_KCENTERS_WARP_UNITS=1 KERNELLAB_CLI=/tmp/kl/K OUT=$R/vk scripts/device-run.sh 90@memcheck:--family+kcenters 90@racecheck:--family+kcenters > $R/vk.txt 2>&1
pack
t done
pack
