#!/usr/bin/env bash
# Device session for issue 14 (any shape): unpack the bundle, then run the
# steps named on the command line, writing results to OUT.
#
#   bench/any_shape_session.sh OUT STEP...
#
# Steps: check64 (the wgmma 64x64 knob point on the shapes where it failed),
# partial (partial tiles in all schedules at two knob points each),
# unaligned (rows that are not 16-byte aligned, all schedules), fixed (the
# issue's shapes through tessel.matmul_relu, timed against cuBLASLt),
# any:I/N (slice I of N of the 300 shapes), sweep-wgmma, sweep-read, sweep-simt,
# sweep-mma (every knob point at one shape), sanitize-read, pytest, lit, anchors (untuned
# vs tuned on ANCHORS.md's shapes), named (the issue's shapes against
# cuBLASLt), rows16 (rows on 16- but not 32-byte boundaries against their
# twins), compare:NAME (bench/compare_variants.py on bench/cases/NAME.json),
# copies:TAG (20 shapes with copied operands: times and kernel split).
set -uo pipefail
out=$1; shift
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
. "$here/bench/unpack_bundle.sh"
T=/tmp/tessel/tessel/bin
export PYTHONPATH=/tmp/tessel/tessel/python PYTHONUNBUFFERED=1
export TESSEL_CACHE=/tmp/tessel-cache TESSEL_HOME=/tmp/tessel/tessel
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$out/env.txt" 2>&1
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)" >> "$out/env.txt" 2>&1
check() { python3 "$here/bench/check_shapes.py" --tools $T "$@"; }
# sanitize NAME M N K SCHEDULE KNOBS [tessel-run options]: one kernel (f16,
# or $DT) under compute-sanitizer's memcheck and synccheck, to OUT/NAME-TOOL.txt.
sanitize() {
  local name=$1 m=$2 n=$3 k=$4 schedule=$5 knobs=$6; shift 6
  local d=/tmp/$name; mkdir -p $d
  python3 -c "import sys; sys.path.insert(0,'$here/python'); from tessel.workload import matmul_relu_ir; open('$d/in.mlir','w').write(matmul_relu_ir($m,$n,$k,'${DT:-f16}'))"
  $T/tessel-opt $d/in.mlir --tessel-apply-schedule="schedule=$schedule knobs=$knobs" \
    --tessel-lower-to-ptx=chip=sm_90a --tessel-export-kernels=dir=$d/k -o /dev/null
  for tool in memcheck synccheck; do
    timeout 120 compute-sanitizer --tool $tool --print-limit 5 $T/tessel-run $d/k/matmul_relu.launch.json \
      "$@" --warmup-ms 0 --rep-ms 0.01 2>&1 | tail -25 | tee "$out/$name-$tool.txt"
  done
}
W="$here/schedules/matmul_relu_wgmma.mlir"
M="$here/schedules/matmul_relu_mma.mlir"
S="$here/schedules/matmul_relu_simt.mlir"
# The wgmma schedule with every misaligned operand read by the producer
# warpgroup (bench/cases/read-misaligned.json uses it).
R=/tmp/read-misaligned-rows.mlir
sed 's/^        cluster %cluster swap_ab %swap_ab$/        cluster %cluster swap_ab %swap_ab {read_misaligned_rows_max_k = 1000000 : i64}/' "$W" > $R
# ... and with every such operand copied first.
C=/tmp/copy-misaligned-rows.mlir
sed 's/^        cluster %cluster swap_ab %swap_ab$/        cluster %cluster swap_ab %swap_ab {read_misaligned_rows_max_k = 0 : i64}/' "$W" > $C
# ... and with B's rows on 16- but not 32-byte boundaries copied at any
# size (A's are always read in place; bench/cases/residue-1000.json).
sed 's/^        cluster %cluster swap_ab %swap_ab$/        cluster %cluster swap_ab %swap_ab {copy_16b_rows_from = 0 : i64}/' "$W" > /tmp/copy-16b-rows.mlir
# ... or read in place at any size (bench/cases/copy-16b-rows.json).
sed 's/^        cluster %cluster swap_ab %swap_ab$/        cluster %cluster swap_ab %swap_ab {copy_16b_rows_from = 1000000000 : i64}/' "$W" > /tmp/inplace-16b-rows.mlir
for f in $R $C /tmp/copy-16b-rows.mlir /tmp/inplace-16b-rows.mlir; do
  cmp -s "$W" "$f" && { echo "bench/any_shape_session.sh: the schedule's rewrite op changed; fix the seds" >&2; exit 1; }
done
# The SIMT schedule without its copies of misaligned rows (bench/cases/simt-copy.json).
sed 's/min_elements 65536/min_elements 1000000000000/' "$S" > /tmp/simt-no-copy.mlir
for step in "$@"; do
  echo "== $step $(date +%T)"
  case $step in
    check64)
      ks=()
      for st in 2 3 4 5 6; do for g in 1 8; do ks+=(--knobs tile_m=64,tile_n=64,stages=$st,group_m=$g); done; done
      check --chip sm_90a --schedule $W --shapes 2048x2048x512,8192x3072x768 --dtypes f16 "${ks[@]}" \
        --knobs tile_m=64,tile_n=128,stages=6,group_m=8 --knobs tile_m=128,tile_n=64,stages=6,group_m=8 \
        --out "$out/check64.json" 2>&1 | tail -30 ;;
    partial)
      # Partial tiles in all three schedules at two knob points each.
      odd=1000x1000x1000,77x1000x320,4096x4096x4000,64x4096x4096,16x4096x4096,1x8x8,8x8x8,200x136x72,520x392x200
      check --chip sm_90a --schedule $W --shapes $odd --dtypes f16,bf16 \
        --knobs tile_m=128,tile_n=128,stages=4,group_m=8 --knobs tile_m=64,tile_n=256,stages=3,group_m=1 \
        --out "$out/partial-wgmma.json" 2>&1 | tail -6
      check --chip sm_90 --schedule $M --shapes $odd --dtypes f16,bf16 \
        --knobs tile_m=128,tile_n=128,tile_k=32,warp_m=64,warp_n=64,stages=3,padding=8,group_m=8,stage_output=0 \
        --knobs tile_m=64,tile_n=64,tile_k=16,warp_m=32,warp_n=32,stages=2,padding=8,group_m=1,stage_output=1 \
        --out "$out/partial-mma.json" 2>&1 | tail -6
      check --chip sm_90 --schedule $S --shapes $odd,7x13x5,1x1x1,997x1009x1013,2000x3000x1500 --dtypes f32,f16 \
        --knobs tile_m=64,tile_n=128,tile_k=8,thread_m=4,thread_n=8 \
        --knobs tile_m=32,tile_n=64,tile_k=16,thread_m=2,thread_n=4 \
        --out "$out/partial-simt.json" 2>&1 | tail -6 ;;
    unaligned)
      u=4095x4097x4099,2000x3000x1500,77x33x19,1x3x5,997x1009x1013
      check --chip sm_90a --schedule $W --shapes $u --dtypes f16,bf16 --out "$out/unaligned-wgmma.json" 2>&1 | tail -6
      check --chip sm_90 --schedule $M --shapes $u --dtypes f16 --extra "defaults=rule" --out "$out/unaligned-mma.json" 2>&1 | tail -6
      check --chip sm_90 --schedule $S --shapes $u --dtypes f32,f16 --out "$out/unaligned-simt.json" 2>&1 | tail -6 ;;
    fixed)
      timeout 580 python3 "$here/bench/any_shape.py" --count 24 --out "$out/fixed" 2>&1 | tail -40 ;;
    any:*)
      part=${step#any:}
      timeout 590 python3 "$here/bench/any_shape.py" --part $part --out "$out/any-${part/\//of}" 2>&1 | tail -25 ;;
    sweep-wgmma)
      check --chip sm_90a --schedule $W --shapes 2000x2056x264 --dtypes f16 --sweep --run-jobs 8 --out "$out/sweep-wgmma.json" 2>&1 | tail -12 ;;
    sweep-read)
      # Every wgmma knob point with misaligned operands read in the kernel.
      check --chip sm_90a --schedule $R --shapes 520x390x263,77x33x19,130x70x1001 --dtypes f16 --sweep --run-jobs 8 \
        --out "$out/sweep-read.json" 2>&1 | tail -12 ;;
    sweep-simt)
      check --chip sm_90 --schedule $S --shapes 200x136x72 --dtypes f32 --sweep --run-jobs 8 --out "$out/sweep-simt.json" 2>&1 | tail -12 ;;
    sweep-mma)
      # The structural knobs; group_m (block order) and padding held.
      check --chip sm_90 --schedule $M --shapes 200x136x72 --dtypes f16 --sweep --fix group_m=1 \
        --fix padding=8 --run-jobs 8 --timeout 30 --out "$out/sweep-mma.json" 2>&1 | tail -12 ;;
    profile-pairs)
      # Shapes with residues and misaligned rows against their divisible twins.
      timeout 400 python3 "$here/bench/profile_shapes.py" 1370x431x925:f16 1376x432x928:f16 \
        8191x8191x8191:bf16 8192x8192x8192:bf16 109x15540x331:f16 112x15552x336:f16 \
        2804x16229x66:f16 2816x16240x80:f16 2x10x3:f16 16x16x16:f16 1000x1000x1000:f16 \
        1008x1008x1008:f16 1370x432x928:f16 1376x431x928:f16 1376x432x925:f16 \
        --knobs "" --out "$out/profile-pairs.json" 2>&1 | grep -v Warn | tail -16 ;;
    profile-small)
      # Small misaligned shapes (read in the kernel, or copied first) against
      # their divisible twins: kernel times, GPU span and host time per call.
      timeout 400 python3 "$here/bench/profile_shapes.py" 127x129x131:f16 128x144x144:f16 \
        61x29x251:bf16 64x32x256:bf16 13x11x351:f16 16x16x352:f16 1057x443x321:f16 \
        1072x448x336:f16 2880x10x310:bf16 2880x16x320:bf16 94x2415x114:f16 96x2416x128:f16 \
        --knobs "" --out "$out/profile-small.json" 2>&1 | grep -v Warn | tail -12 ;;
    copies:*)
      # Shapes whose operands are copied into aligned workspaces: their time
      # against the divisible twin (any_shape.py) and each call split into
      # its kernels (profile_shapes.py), written as copies-TAG*.json.
      tag=${step#copies:}
      c=64x3x12353:bf16,3x1x4182:bf16,2804x16229x66:f16,22x7211x16249:bf16,8191x8191x8191:bf16
      c=$c,2000x3000x1500:f16,13x11x351:f16,1057x443x321:f16,14931x71x363:bf16,7332x17x1621:bf16
      c=$c,12079x56x5100:f16,107x10070x9674:bf16,63x13566x4846:f16,11027x5x2301:f16,4097x4097x4097:f32
      c=$c,9597x14859x10:f32,165x22x7758:f32,168x18x12417:f32,12525x23x61:f32,997x1009x1013:f32
      timeout 400 python3 "$here/bench/any_shape.py" --out "$out/copies-$tag" --shapes $c 2>&1 | tail -30
      timeout 300 python3 "$here/bench/profile_shapes.py" ${c//,/ } --knobs "" \
        --out "$out/copies-$tag-profile.json" 2>&1 | grep -v Warn | tail -24 ;;
    profile)
      timeout 400 python3 "$here/bench/profile_shapes.py" 4095x4097x4099:f16 2000x3000x1500:f16 \
        5000x5000x5000:bf16 1000x1000x1000:f16 8191x8191x8191:bf16 2048x2048x2047:f16 \
        4097x4097x4097:f32 997x1009x1013:f32 --knobs "" --out "$out/profile.json" 2>&1 | grep -v Warn | tail -12 ;;
    sanitize64)
      sanitize sanitize 2048 2048 512 "$W" tile_m=64,tile_n=64,stages=4,group_m=8 --reference none ;;
    sanitize-read)
      # The producer's aligned loads around misaligned rows (K of 5 steps).
      sanitize sanitize-read 520 390 263 "$R" tile_m=128,tile_n=192,stages=4,group_m=8 ;;
    sanitize-staged)
      # Granules copied asynchronously into staging slots (K of 16 steps).
      sanitize sanitize-staged 130 70 1001 "$R" tile_m=64,tile_n=64,stages=4,group_m=1 ;;
    sanitize-copy)
      # The copy kernel's aligned granule loads around misaligned rows:
      # 16-bit (wgmma, both operands copied) and 32-bit (SIMT).
      sanitize sanitize-copy 520 390 263 "$C" tile_m=128,tile_n=128,stages=4,group_m=8
      DT=f32 sanitize sanitize-copy-f32 297 390 263 "$S" tile_m=32,tile_n=64,tile_k=16,thread_m=2,thread_n=4 ;;
    lit)
      (cd /tmp/tessel/tessel && timeout 580 ./run-tests.sh 2>&1 | tail -25) ;;
    pytest)
      (cd "$here" && timeout 500 python3 -m pytest -q -p no:cacheprovider python/tests 2>&1 | tail -15) ;;
    named)
      # The issue's named shapes against cuBLASLt's fused ReLU.
      timeout 400 python3 "$here/bench/any_shape.py" --out "$out/named" \
        --shapes 4095x4097x4099:f16,2000x3000x1500:f16,1000x1000x1000:f16,8191x8191x8191:bf16,2048x2048x2047:f16,5000x5000x5000:bf16 2>&1 | tail -12 ;;
    rows16)
      # Shapes whose rows TMA reads on 16- but not 32-byte boundaries,
      # against their divisible twins and cuBLASLt's fused ReLU.
      timeout 400 python3 "$here/bench/any_shape.py" --out "$out/rows16" \
        --shapes 1000x1000x1000:f16,1000x1000x1000:bf16,600x1000x1400:f16,1000x3000x1000:f16,1004x1004x1004:f32 2>&1 | tail -12 ;;
    compare:*)
      # bench/compare_variants.py on bench/cases/NAME.json.
      name=${step#compare:}
      timeout 580 python3 "$here/bench/compare_variants.py" --cases "$here/bench/cases/$name.json" \
        --out "$out/compare-$name.json" 2>&1 | grep -v Warn | tail -40 ;;
    anchors)
      timeout 580 python3 "$here/bench/untuned_vs_tuned.py" --out "$out/anchors" 2>&1 | tail -30 ;;
  esac
done
