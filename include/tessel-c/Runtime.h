/*===-- tessel-c/Runtime.h - Tessel's runtime as a C API ----------*- C -*-===*\
|*                                                                            *|
|* Loads the kernels that tessel-opt exported (--tessel-export-kernels: a     *|
|* `<function>.launch.json` and its PTX) and launches them on device buffers  *|
|* the caller owns, such as PyTorch tensors, on the caller's stream. This is  *|
|* what the Python package binds with ctypes; it is built as                  *|
|* libTesselCAPI.so and needs no CUDA toolkit: libcuda.so.1 is opened when a  *|
|* device is first opened.                                                    *|
|*                                                                            *|
|* Functions that can fail return 0 on success and non-zero on failure;       *|
|* tesselGetLastError() then says why (per thread). Handles are owned by the  *|
|* caller and released with the matching Destroy/Close; a TesselDevice must   *|
|* outlive the functions loaded on it.                                        *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TESSEL_C_RUNTIME_H
#define TESSEL_C_RUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TESSEL_CAPI __attribute__((visibility("default")))

typedef struct TesselFunctionSpec TesselFunctionSpec; /* launch metadata */
typedef struct TesselDevice TesselDevice;     /* a context on one GPU */
typedef struct TesselFunction TesselFunction; /* kernels loaded on a GPU */

/* "0.1.0". */
TESSEL_CAPI const char *tesselGetVersion(void);
/* Why this thread's last failing call failed ("" if none failed). */
TESSEL_CAPI const char *tesselGetLastError(void);

/*--- Launch metadata (no GPU needed) --------------------------------------*/

/* Reads and validates a `.launch.json` file (shapes, parameter indices,
   launch sizes). */
TESSEL_CAPI int tesselFunctionSpecRead(const char *path,
                                       TesselFunctionSpec **spec);
TESSEL_CAPI void tesselFunctionSpecDestroy(TesselFunctionSpec *spec);
TESSEL_CAPI const char *tesselFunctionSpecGetName(const TesselFunctionSpec *);
TESSEL_CAPI int
tesselFunctionSpecGetNumArguments(const TesselFunctionSpec *spec);
/* Argument `index`: element type ("f16", "bf16", "f32", ...), rank, size of
   dimension `dim`, and whether the function writes it (a result). Out of
   range: NULL, -1, -1 and -1. */
TESSEL_CAPI const char *
tesselFunctionSpecGetArgumentType(const TesselFunctionSpec *spec, int index);
TESSEL_CAPI int tesselFunctionSpecGetArgumentRank(const TesselFunctionSpec *,
                                                  int index);
TESSEL_CAPI int64_t tesselFunctionSpecGetArgumentDim(
    const TesselFunctionSpec *spec, int index, int dim);
TESSEL_CAPI int
tesselFunctionSpecIsArgumentWritten(const TesselFunctionSpec *spec, int index);

/*--- Devices ---------------------------------------------------------------*/

/* Opens device `ordinal` through its primary context (the one the CUDA
   runtime, hence PyTorch, uses). Fails without a driver or a device. */
TESSEL_CAPI int tesselDeviceOpen(int ordinal, TesselDevice **device);
TESSEL_CAPI void tesselDeviceClose(TesselDevice *device);
/* "NVIDIA H100 80GB HBM3" and "sm_90". */
TESSEL_CAPI const char *tesselDeviceGetName(const TesselDevice *device);
TESSEL_CAPI const char *tesselDeviceGetChip(const TesselDevice *device);
/* Its streaming multiprocessors (132 on an H100 SXM). */
TESSEL_CAPI int tesselDeviceGetMultiprocessorCount(const TesselDevice *device);

/*--- Loaded functions -------------------------------------------------------*/

/* Loads the kernels of `spec`, whose images are files in `dir`. */
TESSEL_CAPI int tesselFunctionLoad(TesselDevice *device,
                                   const TesselFunctionSpec *spec,
                                   const char *dir, TesselFunction **function);
TESSEL_CAPI void tesselFunctionDestroy(TesselFunction *function);
/* Enqueues the function's kernels on `stream` (a CUstream; NULL: the legacy
   default stream). `buffers[i]` is the device address of argument i; every
   buffer must hold the argument's shape, row-major and contiguous. Returns
   when the kernels are enqueued; faults while they run surface at the
   stream's next synchronization, as for any CUDA launch. */
TESSEL_CAPI int tesselFunctionLaunch(const TesselFunction *function,
                                     const uint64_t *buffers, int numBuffers,
                                     void *stream);

#ifdef __cplusplus
}
#endif

#endif /* TESSEL_C_RUNTIME_H */
