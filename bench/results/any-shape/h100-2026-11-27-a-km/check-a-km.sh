#!/bin/bash
# On the GPU: every A [k,m] kernel of the sweep against the f64 reference.
end=$((SECONDS+${1:-180})); pass=0; fail=0
for d in /tmp/akmk/akm/sweep/*/; do
  [ $SECONDS -ge $end ] && { echo "time limit"; break; }
  l=$(ls $d/*.launch.json)
  r=$(tessel-run $l --json --reference=auto --rep-ms 1 2>&1)
  if echo "$r" | grep -q '"passed": *true'; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL $d: $(echo "$r" | tr '\n' ' ' | cut -c1-300)"; fi
done
echo "passed $pass failed $fail"
