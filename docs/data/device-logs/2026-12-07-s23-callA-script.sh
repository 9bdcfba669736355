#!/bin/bash
# Session 23, call A (issue 15). H = the committed kernels (CLI of e6d235b; its CUDA is HEAD's).
# L = HEAD + the integer sketch test: one step for every dimension, the point's codes against the
# new center's own codes (sum x^2 - 2 x c + c^2 by dp4a), bound step sqrt(S) - e(x) - e(c).
# F = L with KERNELLAB_KCENTERS_FUSED_ENCODE=1 (the first center's pass codes the sketch);
# S = F with KERNELLAB_KCENTERS_RANGE_SAMPLE=8 (the sketch's range from every 8th run of points);
# T = S with KERNELLAB_KCENTERS_SKETCH_LIST=1 (the triangle's survivors listed per block, their
# sketches shared evenly by the block's threads).
set -u
mkdir -p /tmp/kl
xz -dc .devdeps/pack/clis.tar.xz | tar -C /tmp/kl -xf - && chmod +x /tmp/kl/H /tmp/kl/L
R=/tmp/r23a; mkdir -p $R
pack() { tar -C /tmp -cJf $OUT/call23a.tar.xz r23a; }
cp .devdeps/pack/s23a.sh $R/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
t() { echo "== $(date +%T) $*" >> $R/log.txt; }
ON="KERNELLAB_KCENTERS_FUSED_ENCODE=1 KERNELLAB_KCENTERS_RANGE_SAMPLE=8 KERNELLAB_KCENTERS_SKETCH_LIST=1"
t verify-kc; timeout 90 /tmp/kl/L verify --family kcenters > $R/verify-kc.txt 2>&1; echo "rc=$?" >> $R/verify-kc.txt
t verify-kc-T; env $ON timeout 90 /tmp/kl/L verify --family kcenters > $R/verify-kc-T.txt 2>&1; echo "rc=$?" >> $R/verify-kc-T.txt
pack
KC="run kcenters --n 1000000 --k 100 --d 200 --reps 3 --no-verify"
runkc() { local name=$1 bin=$2 envs=$3; shift 3; t kc-$name; env $envs timeout 60 /tmp/kl/$bin $KC --json $R/kc-$name.json "$@" > $R/kc-$name.txt 2>&1; echo "rc=$?" >> $R/kc-$name.txt; xz -9 $R/kc-$name.json; }
N0="KERNELLAB_NONE=0"
F="KERNELLAB_KCENTERS_FUSED_ENCODE=1"
S="KERNELLAB_KCENTERS_FUSED_ENCODE=1 KERNELLAB_KCENTERS_RANGE_SAMPLE=8"
for rep in 1 2; do
  if [ $rep = 1 ]; then runkc H$rep H "$N0" --variant best,pruned; else runkc H$rep H "$N0" --variant pruned; fi
  runkc L$rep L "$N0" --variant pruned
  runkc F$rep L "$F" --variant pruned
  runkc S$rep L "$S" --variant pruned
  runkc T$rep L "$ON" --variant pruned
done
runkc blobH H "$N0" --variant best,pruned --shape blobs --noise 0.99999
runkc blobL L "$N0" --variant pruned --shape blobs --noise 0.99999
runkc blobT L "$ON" --variant pruned --shape blobs --noise 0.99999
pack
ms() { awk '$1=="pruned"{s+=$2;n++} END{if(n) printf "%.4f", s/n; else print 999}' "$@"; }
BEST="" ; BESTMS=$(ms $R/kc-L1.txt $R/kc-L2.txt)
if grep -q "0 failed" $R/verify-kc-T.txt; then
  for v in F S T; do m=$(ms $R/kc-${v}1.txt $R/kc-${v}2.txt); awk -v a=$m -v b=$BESTMS 'BEGIN{exit !(a<b)}' && { BEST=$v; BESTMS=$m; }; done
fi
case "$BEST" in F) E="$F";; S) E="$S";; T) E="$ON";; *) E="KERNELLAB_NONE=0";; esac
echo "chosen '$BEST' ($E) L=$(ms $R/kc-L1.txt $R/kc-L2.txt) F=$(ms $R/kc-F1.txt $R/kc-F2.txt) S=$(ms $R/kc-S1.txt $R/kc-S2.txt) T=$(ms $R/kc-T1.txt $R/kc-T2.txt) H=$(ms $R/kc-H1.txt $R/kc-H2.txt)" >> $R/log.txt
if grep -q H200 $R/facts.txt && grep -q "0 failed" $R/verify-kc.txt; then
  t bench; env $E timeout 230 /tmp/kl/L bench best --n 1000000 --reps 3 --json $R/bench-best.json > $R/bench.txt 2>&1; echo "rc=$?" >> $R/bench.txt
  [ -f $R/bench-best.json ] && xz -9 $R/bench-best.json
  pack
fi
t sanitizers; KERNELLAB_CLI=/tmp/kl/L OUT=$R/v scripts/device-run.sh 120@memcheck:--family+kcenters 120@racecheck:--family+kcenters > $R/v.txt 2>&1
pack
t sanitizers-T; env $ON KERNELLAB_CLI=/tmp/kl/L OUT=$R/vs scripts/device-run.sh 120@memcheck:--family+kcenters 120@racecheck:--family+kcenters > $R/vs.txt 2>&1
pack
M=gpu__time_duration.sum,smsp__inst_executed.sum,dram__bytes_read.sum
for b in L H; do
  t ncu-$b
  timeout 100 env $E ncu --metrics $M -k regex:"kcentersPruned|sketch" --launch-count 104 --csv /tmp/kl/$b run kcenters --n 1000000 --k 100 --d 200 --variant pruned --reps 1 --no-verify > $R/ncu-$b.csv 2> $R/ncu-$b.err
  echo "rc=$?" >> $R/ncu-$b.err; xz -9 $R/ncu-$b.csv
  pack
done
t done
pack
