#!/usr/bin/env bash
# Tessel's libFuzzer targets (fuzz/): tessel-opt-fuzzer (parse, apply a
# schedule, lower to PTX) and tessel-json-fuzzer (launch specs, tuning
# databases, the JSON limits), built by the sanitizer build in build-san/
# (scripts/setup-sanitizers.sh).
#
#   scripts/fuzz.sh replay               # every committed case (fuzz/corpus)
#   scripts/fuzz.sh run [SECONDS] [TARGET...]
#                                        # fuzz each target SECONDS (60)
#   scripts/fuzz.sh seeds                # (re)build build-san/fuzz/seeds
#
# `run` starts from the committed cases, what earlier runs kept
# (build-san/fuzz/work) and, once `seeds` has built them, seeds made of
# examples/, schedules/ and test/ (scripts/fuzz-corpus.py);
# crashes, hangs (an input over 20 s) and inputs over the memory limit are
# written to build-san/fuzz/artifacts and fail the script. A crash, once
# fixed, goes into fuzz/corpus/<target>/ as a regression case.
# One process per target at a time (CI has 2 cores); FUZZ_ARGS adds
# libFuzzer flags.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${TESSEL_SAN_BUILD:-build-san}
mode=${1:-replay}
shift || true

export PATH=/usr/lib/llvm-22/bin:$PATH
# Fail on the first report; leaks are reported (MLIR frees what it owns).
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:abort_on_error=1}

targets=(opt json)
# Per target: how long one input may take and how much memory it may use.
common=(-timeout=20 -rss_limit_mb=4096 -print_final_stats=1)
declare -A max_len=([opt]=65536 [json]=65536)

# `run`'s targets, checked before anything is built.
if [ "$mode" = run ]; then
  for t in "${@:2}"; do
    if [ -z "${max_len[$t]+set}" ]; then
      echo "fuzz: unknown target '$t' (the targets: ${targets[*]})" >&2
      exit 2
    fi
  done
fi

ninja -C "$build" tessel-opt tessel-opt-fuzzer tessel-json-fuzzer \
  >/dev/null || exit 1

case "$mode" in
replay)
  status=0
  for t in "${targets[@]}"; do
    start=$SECONDS
    files=(fuzz/corpus/$t/*)
    # Each case once, as a list of files: a failure names its file.
    if "$build/bin/tessel-$t-fuzzer" "${common[@]}" "${files[@]}" \
        >"$build/fuzz-replay-$t.log" 2>&1; then
      echo "replay $t: ${#files[@]} cases ok ($((SECONDS - start)) s)"
    else
      echo "replay $t: FAILED (see $build/fuzz-replay-$t.log)"
      tail -40 "$build/fuzz-replay-$t.log"
      status=1
    fi
  done
  exit $status
  ;;
seeds)
  rm -rf "$build/fuzz/seeds"
  python3 scripts/fuzz-corpus.py "$build/fuzz/seeds" \
    --tessel-opt "$build/bin/tessel-opt"
  ;;
run)
  seconds=${1:-60}
  shift || true
  [ $# -gt 0 ] && targets=("$@")
  # The seeds (`seeds` mode) when built: a campaign starts from them; CI's
  # short run starts from the committed cases alone (executing the 370 opt
  # seeds once takes minutes).
  seeds=$build/fuzz/seeds
  status=0
  for t in "${targets[@]}"; do
    work=$build/fuzz/work/$t
    artifacts=$build/fuzz/artifacts/$t
    mkdir -p "$work" "$artifacts"
    log=$build/fuzz/run-$t.log
    stamp=$build/fuzz/run-$t.start
    touch "$stamp"
    echo "fuzzing $t for $seconds s (log: $log)"
    # New inputs go to $work (the first directory); the others are read.
    "$build/bin/tessel-$t-fuzzer" "${common[@]}" -dict="fuzz/$t.dict" \
      -max_len=${max_len[$t]} -max_total_time="$seconds" \
      -artifact_prefix="$artifacts/" ${FUZZ_ARGS:-} \
      "$work" "fuzz/corpus/$t" $([ -d "$seeds/$t" ] && echo "$seeds/$t") \
      >"$log" 2>&1
    rc=$?
    grep -E "^#[0-9]+.*(DONE|pulse|NEW)|stat::|Done [0-9]+ runs" "$log" | tail -6
    found=$(find "$artifacts" -type f -newer "$stamp")
    if [ $rc != 0 ] || [ -n "$found" ]; then
      echo "fuzz $t: FAILED (rc $rc); new artifacts:"
      echo "$found"
      grep -m1 -A30 "ERROR:\|runtime error\|LLVM ERROR" "$log"
      status=1
    fi
  done
  exit $status
  ;;
*)
  echo "usage: $0 replay | run [SECONDS] [TARGET...] | seeds" >&2
  exit 2
  ;;
esac
