#!/bin/bash
# Session 15 call 1 (issue 15): A = 17de5e8 less the pruned k-means' dead centred copy (cc_),
# B = A + the near-tie screen reading the K x D centers from each block's shared memory (the
# patch built in session 14, never run). Timings without the CPU check, twice, interleaved; the
# faster build then gets verify, memcheck, racecheck and Nsight Compute durations; on an H200 also
# `bench best`. Results packed into $OUT after each step.
set -u
mkdir -p /tmp/kl
for b in A B; do xz -dc .devdeps/pack/cli$b.xz > /tmp/kl/$b && chmod +x /tmp/kl/$b; done
R=/tmp/r1; mkdir -p $R
pack() { tar -C /tmp -cJf $OUT/call1.tar.xz r1; }
cp .devdeps/pack/call1.sh $R/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $R/facts.txt 2>&1
KM="run kmeans --n 1000000 --k 100 --d 200 --init first --variant best,pruned --reps 3 --no-verify"
t() { echo "== $(date +%T) $*" >> $R/log.txt; }
for r in 1 2; do
  for b in A B; do t $b$r; timeout 30 /tmp/kl/$b $KM > $R/km-$b$r.txt 2>&1; echo "rc=$?" >> $R/km-$b$r.txt; done
done
pack
a=$(cat $R/km-A1.txt $R/km-A2.txt | awk '$1=="pruned"{s+=$2}END{print s+0}')
b=$(cat $R/km-B1.txt $R/km-B2.txt | awk '$1=="pruned"{s+=$2}END{print s+0}')
W=$(awk -v a=$a -v b=$b 'BEGIN{print (b > 0 && b < a) ? "B" : "A"}')
echo "A sum $a B sum $b winner $W" >> $R/log.txt
N=/tmp/kl/$W
t verify $W; KERNELLAB_CLI=$N OUT=$R/v scripts/device-run.sh 40@verify:--family+kmeans 30@memcheck:--family+kmeans > $R/v.txt 2>&1
pack
t racecheck $W; KERNELLAB_CLI=$N OUT=$R/rc scripts/device-run.sh 80@racecheck:--family+kmeans > $R/rc.txt 2>&1
pack
if grep -q H200 $R/facts.txt; then
  t bench $W; timeout 200 $N bench best --n 1000000 --reps 3 --json $R/bench-best.json.xz > $R/bench.txt 2>&1
  echo "rc=$?" >> $R/bench.txt
fi
pack
P="run kmeans --n 1000000 --k 100 --d 200 --init first --variant pruned --reps 1 --warmup 0 --no-verify"
t ncu $W; timeout 40 ncu --metrics gpu__time_duration.sum --csv --print-units base $N $P > $R/ncu-$W.csv 2>> $R/err.txt
echo "ncu rc=$?" >> $R/err.txt; xz -9 $R/ncu-$W.csv
pack
# k-centers (code unchanged): timing here, per-launch durations, two launches in full (--set full).
KC="run kcenters --n 1000000 --k 100 --d 200 --variant best,pruned --reps 3 --no-verify"
t kc; timeout 40 $N $KC > $R/kc.txt 2>&1; echo "rc=$?" >> $R/kc.txt
PC="run kcenters --n 1000000 --k 100 --d 200 --variant pruned --reps 1 --warmup 0 --no-verify"
t ncu kc; timeout 40 ncu --metrics gpu__time_duration.sum --csv --print-units base $N $PC > $R/ncu-kc.csv 2>> $R/err.txt
xz -9 $R/ncu-kc.csv; pack
for j in 5 60; do
  t ncu full kc $j; timeout 50 ncu --set full -k kcentersPrunedKernel --launch-skip $j --launch-count 1 --csv --page raw $N $PC > $R/ncu-kc-full-$j.csv 2>> $R/err.txt
  xz -9 $R/ncu-kc-full-$j.csv
done
pack
t done
pack
