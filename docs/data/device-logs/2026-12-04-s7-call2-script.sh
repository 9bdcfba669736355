#!/bin/bash
# Session 7 call 2: the window (offscreen, the real app on the H200) runs every k-means variant at
# N = 1e6, K = 100, D = 200, 10 iterations, every label verified; screenshots and the PDF report.
set -u
G=.devdeps/gui/kernellab-offscreen
H=/tmp/klh
/usr/bin/time -v bash $G --history-dir $H --config .devdeps/pack/req-kmeans-1e6.json --run --view results \
  --window-size 1500x950 --screenshot $OUT/w-results.png --export-report $OUT/report.pdf --quit \
  > $OUT/window.txt 2>&1
echo "window rc=$?" | tee -a $OUT/window.txt
f=$(find $H -name '*.json*' -size +1k | head -1)
echo "history file: $f" >> $OUT/window.txt; ls -la $H >> $OUT/window.txt 2>&1
if [ -n "$f" ]; then
  bash $G --history-dir /tmp/klh2 --open "$f" --view timing --chart kernels --window-size 1500x950 \
    --screenshot $OUT/w-kernels.png --quit >> $OUT/window.txt 2>&1
  echo "timing rc=$?" >> $OUT/window.txt
  bash $G --history-dir /tmp/klh2 --open "$f" --view clusters --window-size 1500x950 \
    --screenshot $OUT/w-clusters.png --quit >> $OUT/window.txt 2>&1
  echo "clusters rc=$?" >> $OUT/window.txt
  xz -6 -c "$f" > $OUT/window-results.json.xz
fi
