// Does TMA (tiled mode) accept an inner box coordinate that is not 16-byte
// aligned, for loads and stores? f16 matrix, 2D map, box 64 x 8.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdint>
#include <vector>
#include <cuda_fp16.h>

__global__ void probe(const __grid_constant__ CUtensorMap map, int x, int y,
                      unsigned short *out, int sx, int sy, int doStore) {
  __shared__ alignas(128) unsigned short tile[8 * 64];
  __shared__ alignas(8) uint64_t bar;
  uint32_t sTile = (uint32_t)__cvta_generic_to_shared(tile);
  uint32_t sBar = (uint32_t)__cvta_generic_to_shared(&bar);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(sBar));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(sBar), "r"(8 * 64 * 2));
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(sTile), "l"(&map), "r"(x), "r"(y), "r"(sBar) : "memory");
    asm volatile("{ .reg .pred p; W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0; @!p bra W; }" :: "r"(sBar));
  }
  __syncthreads();
  for (int i = threadIdx.x; i < 8 * 64; i += blockDim.x) out[i] = tile[i];
  __syncthreads();
  if (doStore && threadIdx.x == 0) {
    asm volatile("fence.proxy.async.shared::cta;");
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                 :: "l"(&map), "r"(sx), "r"(sy), "r"(sTile) : "memory");
    asm volatile("cp.async.bulk.commit_group;");
    asm volatile("cp.async.bulk.wait_group 0;");
  }
}

int main() {
  const int R = 32, W = 300, S = 304;  // S * 2 bytes = 608, a multiple of 16
  std::vector<unsigned short> h(R * S);
  for (int r = 0; r < R; ++r) for (int c = 0; c < S; ++c) h[r * S + c] = (unsigned short)(r * 1000 + c);
  unsigned short *g, *o;
  cudaMalloc(&g, h.size() * 2); cudaMalloc(&o, 8 * 64 * 2);
  cudaMemcpy(g, h.data(), h.size() * 2, cudaMemcpyHostToDevice);
  CUtensorMap map;
  cuuint64_t dims[2] = {W, R}, strides[1] = {S * 2};
  cuuint32_t box[2] = {64, 8}, es[2] = {1, 1};
  CUresult e = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, g, dims, strides, box, es,
      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  printf("encode: %d\n", (int)e);
  int xs[] = {0, 1, 3, 5, 7, 250};
  for (int x : xs) {
    probe<<<1, 128>>>(map, x, 1, o, 0, 0, 0);
    cudaError_t err = cudaDeviceSynchronize();
    std::vector<unsigned short> t(8 * 64);
    cudaMemcpy(t.data(), o, t.size() * 2, cudaMemcpyDeviceToHost);
    int bad = 0, first = -1;
    for (int r = 0; r < 8; ++r) for (int c = 0; c < 64; ++c) {
      int gr = 1 + r, gc = x + c;
      unsigned short want = (gc < W && gr < R) ? h[gr * S + gc] : 0;
      if (t[r * 64 + c] != want) { if (first < 0) first = r * 64 + c; ++bad; }
    }
    printf("load x=%d: err=%s mismatches=%d first=%d got[0]=%u want[0]=%u\n", x, cudaGetErrorString(err), bad, first, t[0], h[1 * S + x]);
  }
  // Store: load box at (0, 0), store it at (sx, 9); check global.
  int sxs[] = {3, 5};
  for (int sx : sxs) {
    cudaMemcpy(g, h.data(), h.size() * 2, cudaMemcpyHostToDevice);
    probe<<<1, 128>>>(map, 0, 0, o, sx, 9, 1);
    cudaError_t err = cudaDeviceSynchronize();
    std::vector<unsigned short> t(R * S);
    cudaMemcpy(t.data(), g, t.size() * 2, cudaMemcpyDeviceToHost);
    int bad = 0, first = -1;
    for (int r = 0; r < R; ++r) for (int c = 0; c < S; ++c) {
      unsigned short want = h[r * S + c];
      if (r >= 9 && r < 17 && c >= sx && c < sx + 64 && c < W) want = h[(r - 9) * S + (c - sx)];
      if (t[r * S + c] != want) { if (first < 0) first = r * S + c; ++bad; }
    }
    printf("store x=%d: err=%s mismatches=%d first=%d\n", sx, cudaGetErrorString(err), bad, first);
  }
  return 0;
}
