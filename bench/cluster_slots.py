#!/usr/bin/env python3
"""How many thread-block clusters of each size a GPU runs at once
(cuOccupancyMaxActiveClusters), for blocks that take a whole SM (the wgmma
kernels' rings) and for blocks two of which fit on one: the SMs a split-K
kernel's clusters can fill, which the knob rule's wave count assumes.

    python3 bench/cluster_slots.py [--json OUT.json]
"""

import argparse
import ctypes
import json
import sys

PTX = b""".version 8.0
.target sm_90a
.address_size 64
.visible .entry k() { ret; }
"""


class LaunchAttribute(ctypes.Structure):
    # CUlaunchAttribute: id, padding to 8 bytes, a 64-byte value union
    # whose clusterDim is three unsigned ints.
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_int),
                ("x", ctypes.c_uint), ("y", ctypes.c_uint),
                ("z", ctypes.c_uint), ("rest", ctypes.c_char * 52)]


class LaunchConfig(ctypes.Structure):
    _fields_ = [("gridDimX", ctypes.c_uint), ("gridDimY", ctypes.c_uint),
                ("gridDimZ", ctypes.c_uint), ("blockDimX", ctypes.c_uint),
                ("blockDimY", ctypes.c_uint), ("blockDimZ", ctypes.c_uint),
                ("sharedMemBytes", ctypes.c_uint), ("hStream", ctypes.c_void_p),
                ("attrs", ctypes.POINTER(LaunchAttribute)),
                ("numAttrs", ctypes.c_uint)]


CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 4
CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 16
CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--json")
    args = p.parse_args()
    cuda = ctypes.CDLL("libcuda.so.1")

    def check(status, what):
        if status != 0:
            sys.exit(f"cluster_slots: {what} failed (CUresult {status})")

    check(cuda.cuInit(0), "cuInit")
    dev = ctypes.c_int()
    check(cuda.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
    name = ctypes.create_string_buffer(256)
    cuda.cuDeviceGetName(name, 256, dev)
    sms = ctypes.c_int()
    cuda.cuDeviceGetAttribute(ctypes.byref(sms),
                              CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev)
    ctx = ctypes.c_void_p()
    check(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "retain")
    check(cuda.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    module, fn = ctypes.c_void_p(), ctypes.c_void_p()
    check(cuda.cuModuleLoadData(ctypes.byref(module), PTX), "cuModuleLoadData")
    check(cuda.cuModuleGetFunction(ctypes.byref(fn), module, b"k"),
          "cuModuleGetFunction")
    check(cuda.cuFuncSetAttribute(
        fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 200 * 1024),
        "max dynamic shared memory")
    cuda.cuFuncSetAttribute(
        fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)
    rows = []
    # 200 KB: one block per SM (a wgmma ring); 100 KB: two.
    for per_sm, smem in ((1, 200 * 1024), (2, 100 * 1024)):
        for size in (1, 2, 3, 4, 6, 8, 16):
            attr = LaunchAttribute(CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, 0,
                                   size, 1, 1)
            config = LaunchConfig(size * 64, 1, 1, 384, 1, 1, smem, None,
                                  ctypes.pointer(attr), 1)
            n = ctypes.c_int()
            status = cuda.cuOccupancyMaxActiveClusters(
                ctypes.byref(n), fn, ctypes.byref(config))
            row = {"cluster": size, "blocks_per_sm": per_sm,
                   "status": status,
                   "clusters": n.value if status == 0 else None}
            if status == 0:
                row["blocks"] = n.value * size
                row["sm_share"] = round(n.value * size / (per_sm * sms.value), 4)
            rows.append(row)
            print(f"{name.value.decode()}: clusters of {size}, {per_sm} "
                  f"block(s) per SM: {row.get('clusters')} at once "
                  f"({row.get('blocks')} blocks of {per_sm * sms.value} "
                  f"slots), status {status}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": name.value.decode(), "sms": sms.value,
                       "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
