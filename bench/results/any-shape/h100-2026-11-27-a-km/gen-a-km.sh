#!/bin/bash
# Compiles the A [k,m] inputs at many knob points; refused points are logged.
opt=/work/main/build/bin/tessel-opt; S=/work/main/schedules/matmul_relu_wgmma.mlir
out=/tmp/akm/sweep; rm -rf $out; mkdir -p $out
n=0
for f in a-km a-km-partial a-km-4096; do
 for tm in 64 128 192 256; do for tn in 64 128 256; do for st in 4 6; do for sk in 1 2; do for p in 0 1; do for g in 1 8; do
  [ $sk = 2 ] && [ $p = 1 ] && continue
  d=$out/$f-$tm-$tn-$st-$sk-$p-$g
  if $opt /tmp/akm/$f.mlir --tessel-apply-schedule="schedule=$S knobs=tile_m=$tm,tile_n=$tn,stages=$st,split_k=$sk,persistent=$p,group_m=$g,cluster=1" --tessel-lower-to-ptx="chip=sm_90a" --tessel-export-kernels=dir=$d -o /dev/null 2> $out/err.txt; then n=$((n+1)); else echo "$f $tm $tn $st $sk $p $g: $(head -1 $out/err.txt | cut -c1-150)" >> $out/refused.txt; rm -rf $d; fi
 done; done; done; done; done; done
done
echo compiled $n; wc -l $out/refused.txt
