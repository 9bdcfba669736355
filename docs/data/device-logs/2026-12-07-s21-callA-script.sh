#!/bin/bash
# Session 21, call A (issue 15). H = the committed CLI (eager pruned k-centers), L = the worktree:
# the lazy pruned k-centers with cp.async stages and warp mode (KERNELLAB_KCENTERS_WARP_UNITS).
# verify kcenters of L; seed data A/B (H best+pruned, L at warp 2/4/off); one broad cloud; memcheck
# and racecheck of L; verify kmeans of L; ncu durations of L's k-centers and of the pruned k-means;
# on an H200, bench best with the faster k-centers build.
set -u
mkdir -p /tmp/kl
for b in H L; do xz -dc .devdeps/pack/cli$b.xz > /tmp/kl/$b && chmod +x /tmp/kl/$b; done
R=/tmp/r21a; mkdir -p $R
pack() { tar -C /tmp -cJf $OUT/call21a.tar.xz r21a; }
cp .devdeps/pack/s21a.sh $R/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
t() { echo "== $(date +%T) $*" >> $R/log.txt; }
t verify-kc; timeout 60 /tmp/kl/L verify --family kcenters > $R/verify-kc.txt 2>&1; echo "rc=$?" >> $R/verify-kc.txt
pack
KC="run kcenters --n 1000000 --k 100 --d 200 --reps 3 --no-verify"
runkc() { local name=$1 bin=$2 var=$3; t $name; timeout 30 /tmp/kl/$bin $KC --variant $var $EXTRA > $R/kc-$name.txt 2>&1; echo "rc=$?" >> $R/kc-$name.txt; }
EXTRA=""
runkc H best,pruned H
runkc L2 L pruned
KERNELLAB_KCENTERS_WARP_UNITS=4 runkc L4 L pruned
KERNELLAB_KCENTERS_WARP_UNITS=1000000 runkc Loff L pruned
runkc H2 H pruned
pack
EXTRA="--shape blobs --noise 0.99999"
runkc blobH H pruned; runkc blobL L pruned
KERNELLAB_KCENTERS_WARP_UNITS=1000000 runkc blobLoff L pruned
pack
t sanitizers; KERNELLAB_CLI=/tmp/kl/L OUT=$R/v scripts/device-run.sh 30@memcheck:--family+kcenters 70@racecheck:--family+kcenters > $R/v.txt 2>&1
pack
t verify-km; timeout 60 /tmp/kl/L verify --family kmeans > $R/verify-km.txt 2>&1; echo "rc=$?" >> $R/verify-km.txt
pack
KM="run kmeans --n 1000000 --k 100 --d 200 --init first --stop fixed-point --max-iter 300 --reps 3 --no-verify"
runkm() { local name=$1 bin=$2 var=$3; t $name; timeout 40 /tmp/kl/$bin $KM --variant $var > $R/km-$name.txt 2>&1; echo "rc=$?" >> $R/km-$name.txt; }
runkm L L best,pruned
KERNELLAB_PRUNED_FIRST_FIX=0 runkm Lnofix L pruned
runkm H H pruned
pack
t ncu-kc; timeout 60 ncu --metrics gpu__time_duration.sum --csv --print-units base /tmp/kl/L run kcenters --n 1000000 --k 100 --d 200 --variant pruned --reps 1 --warmup 0 --no-verify > $R/ncu-kc-L.csv 2>> $R/err.txt
echo "ncu-kc rc=$?" >> $R/err.txt; xz -9 $R/ncu-kc-L.csv
pack
t ncu-km; timeout 70 ncu --metrics gpu__time_duration.sum --csv --print-units base /tmp/kl/L run kmeans --n 1000000 --k 100 --d 200 --init first --stop fixed-point --max-iter 300 --variant pruned --reps 1 --warmup 0 --no-verify > $R/ncu-km.csv 2>> $R/err.txt
echo "ncu-km rc=$?" >> $R/err.txt; xz -9 $R/ncu-km.csv
pack
med() { grep -E '^pruned' $1 | awk '{print $2}' | head -1; }
if grep -q H200 $R/facts.txt && grep -q " 0 failed" $R/verify-kc.txt; then
  B=H; l=$(med $R/kc-L2.txt); h=$(med $R/kc-H2.txt)
  if [ -n "$l" ] && [ -n "$h" ] && awk "BEGIN{exit !($l < $h)}"; then B=L; fi
  t "bench $B (L $l H $h)"; timeout 170 /tmp/kl/$B bench best --n 1000000 --reps 3 --json $R/bench-best.json > $R/bench.txt 2>&1; echo "rc=$?" >> $R/bench.txt
  [ -f $R/bench-best.json ] && xz -9 $R/bench-best.json
fi
t done
pack
