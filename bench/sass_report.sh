#!/usr/bin/env bash
# SASS report of one compiled example: instruction counts of the kinds that
# show which hardware paths a kernel uses, and ptxas's register, shared
# memory and spill report. Needs ptxas and cuobjdump (CUDA toolkit).
#   bench/sass_report.sh EXAMPLE SCHEDULE [DB|knobs=...] [CHIP]
# e.g. bench/sass_report.sh examples/matmul_relu_4096_f16.mlir \
#        schedules/matmul_relu_mma.mlir schedules/tuned/matmul_relu_mma-h100.json
set -euo pipefail
ex=${1:?example}; sched=${2:?schedule}; sel=${3:-}; chip=${4:-sm_90}
T=${TESSEL:-/tmp/tessel}/bin
[ -x "$T/tessel-opt" ] || T=build/bin
cuda=${CUDA_HOME:-/usr/local/cuda}/bin
tmp=$(mktemp -d)
opt="schedule=$sched"
case "$sel" in
  "") ;;
  knobs=*) opt="$opt $sel" ;;
  *) opt="$opt db=$sel" ;;
esac
"$T/tessel-opt" "$ex" --tessel-apply-schedule="$opt" --tessel-lower-to-ptx="chip=$chip" \
  --tessel-export-kernels=dir="$tmp" -o /dev/null
ptx=$(ls "$tmp"/*.ptx)
"$cuda/ptxas" -arch="$chip" -v "$ptx" -o "$tmp/k.cubin" 2>&1 | grep -E "registers|spill"
"$cuda/cuobjdump" --dump-sass "$tmp/k.cubin" > "$tmp/k.sass"
echo "example: $ex"
echo "schedule: $sched ${sel:+($sel)}"
python3 -c 'import json, sys
for l in json.load(open(sys.argv[1]))["launches"]:
    print("block:", l["block"], "dynamic shared memory:", l["dynamic_shared_memory"], "bytes")' "$tmp"/*.launch.json
for op in HGMMA UTMALDG UTMAPF SYNCS WARPGROUP HMMA LDSM LDGSTS LDGDEPBAR DEPBAR LDG STG STS LDS LDL STL BAR; do
  printf '%-10s %s\n' "$op" "$(grep -cE "[[:space:]]$op(\.|[[:space:]])" "$tmp/k.sass" || true)"
done
rm -rf "$tmp"
