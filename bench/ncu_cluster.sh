#!/usr/bin/env bash
# Nsight Compute's speed-of-light and L2/DRAM byte counts of the kernels of
# bench/compare_builds.py's set .bundle/ab.tar.xz (prepared with variants
# b-base, b-c2 = cluster=2, b-c2g1 = cluster=2,group_m=1) on four shapes:
# where the large kernels are bound, and whether multicast cut the L2
# reads (bench/results/hopper-v2, "Clusters"). On the device:
#   bash bench/ncu_cluster.sh > OUT/ncu.txt
here=$PWD; . bench/unpack_bundle.sh
rm -rf /tmp/ab && mkdir -p /tmp/ab && tar -xJf .bundle/ab.tar.xz -C /tmp/ab
for c in "4096^3-f16" "8192^3-bf16" "1024^3-f16" "16384x1024x4096-f16"; do
  for v in b-base b-c2 b-c2g1; do
    j=$(ls /tmp/ab/cl/$c/$v/*.launch.json)
    echo "=== $c $v"
    ncu --section SpeedOfLight --metrics lts__t_bytes.sum,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,smsp__cycles_active.avg \
      -k regex:"matmul_relu_kernel" --launch-skip 3 --launch-count 1 --csv --page details \
      $B/bin/tessel-run "$j" --reference=none --rep-ms=20 --warmup-ms=5 2>&1 | grep -E '"(Duration|L2 Cache Throughput|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|lts__t_bytes.sum|dram__bytes_read.sum|lts__t_sectors_srcunit_tex_op_read.sum)"' | awk -F'","' '{print $(NF-2), $(NF-1), $NF}'
  done
done
