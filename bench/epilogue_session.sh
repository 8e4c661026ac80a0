#!/usr/bin/env bash
# One device session for the wgmma epilogue's steps (docs/wgmma.md,
# bench/results/hopper-v2/): unpacks the bundle (scripts/make-bundle.sh
# --with-tests), then runs the steps named, in order, into OUT:
#   lit    the GPU lit tests but the knob sweeps
#   sweep  knob-sweep-gpu.test (every point of each schedule at one shape)
#   bsweep knob-sweep-batch-gpu.test (batched payloads)
#   psweep knob-sweep-persistent-gpu.test (persistent kernels)
#   csweep knob-sweep-cluster-gpu.test (clusters that multicast)
#   ab     bench/compare_builds.py run on each set of kernels in
#          .bundle/ab.tar.xz (one directory each; OUT/ab-<set>.json)
#   race   bench/race.py, f16 and bf16, against cuBLAS+relu and cuBLASLt
#   probe  bench/profile_contenders.py on ANCHORS.md's f16 and bf16 shapes
#          (the kernels each contender launches)
#   linear bench/linear_epilogues.py prepare + race (the Linear layers of
#          issue 17, the rule's knobs, against cuBLASLt and max-autotune)
#   anchors bench/untuned_vs_tuned.py (issue 14: the rule's and the nearest
#          record's knobs against the tuned ones)
#
#   bench/epilogue_session.sh OUT STEP...
set -uo pipefail
out=$1; shift
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
. "$here/bench/unpack_bundle.sh"
export TESSEL_HOME=$B PYTHONPATH=$B/python
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > "$out/env.txt" 2>&1
for step in "$@"; do
  case $step in
    lit)
      $B/run-tests.sh -v --filter gpu --filter-out knob-sweep > "$out/lit.log" 2>&1
      echo "lit exit $?" >> "$out/lit.log"; tail -12 "$out/lit.log" ;;
    sweep|bsweep|psweep|csweep)
      test=knob-sweep-gpu; [ $step = bsweep ] && test=knob-sweep-batch-gpu
      [ $step = psweep ] && test=knob-sweep-persistent-gpu
      [ $step = csweep ] && test=knob-sweep-cluster-gpu
      $B/run-tests.sh -v --filter "$test" > "$out/$step.log" 2>&1
      echo "$step exit $?" >> "$out/$step.log"; tail -8 "$out/$step.log" ;;
    ab)
      # .bundle/ab.tar.xz: `tar -C .bundle -cJf .bundle/ab.tar.xz SET...`
      # of the kernels bench/compare_builds.py prepare wrote to
      # .bundle/SET, one directory of cases per set.
      rm -rf /tmp/ab && mkdir -p /tmp/ab && tar -xJf "$here/.bundle/ab.tar.xz" -C /tmp/ab
      for set in /tmp/ab/*/; do
        name=$(basename "$set")
        python3 "$here/bench/compare_builds.py" run "$set" "$out/ab-$name.json" \
          > "$out/ab-$name.log" 2>&1
        echo "ab $name exit $?" >> "$out/ab-$name.log"; tail -3 "$out/ab-$name.log"
      done ;;
    race)
      python3 "$here/bench/race.py" --dtypes f16,bf16 \
        --contenders tessel,cublas+relu,cublaslt --out "$out/race" \
        > "$out/race.md" 2> "$out/race.log"
      echo "race exit $?" >> "$out/race.log"; cat "$out/race.md"; tail -3 "$out/race.log" ;;
    probe)
      shapes=$(for d in f16 bf16; do for s in 256x1024x1024 1024x1024x1024 \
        2048x2048x2048 4096x4096x4096 8192x8192x8192 4096x4096x1024 \
        16384x1024x4096 128x4096x4096; do echo -n "$s:$d "; done; done)
      python3 "$here/bench/profile_contenders.py" $shapes --out "$out/probe.json" \
        > "$out/probe.log" 2>&1
      echo "probe exit $?" >> "$out/probe.log"; cat "$out/probe.log" ;;
    linear)
      TESSEL_CACHE=/tmp/tessel-cache python3 "$here/bench/linear_epilogues.py" \
        prepare /tmp/lk > "$out/linear.log" 2>&1
      TESSEL_CACHE=/tmp/tessel-cache python3 "$here/bench/linear_epilogues.py" \
        race /tmp/lk "$out/linear-race.json" >> "$out/linear.log" 2>&1
      echo "linear exit $?" >> "$out/linear.log"; tail -8 "$out/linear.log" ;;
    anchors)
      timeout 580 python3 "$here/bench/untuned_vs_tuned.py" --out "$out/anchors" \
        > "$out/anchors.log" 2>&1
      echo "anchors exit $?" >> "$out/anchors.log"; tail -12 "$out/anchors.log" ;;
    *) echo "unknown step $step" >&2; exit 2 ;;
  esac
done
