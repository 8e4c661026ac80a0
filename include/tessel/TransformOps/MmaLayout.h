//===- MmaLayout.h - An mma.sync block's staged operand tiles ---*- C++ -*-===//
//
// How transform.tessel.rewrite_block_matmul_as_mma_sync stages an operand's
// tile in shared memory, which the knob rule (Tuning/KnobChoice.cpp) sizes
// with the same shape, so that the two cannot drift apart.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TRANSFORMOPS_MMALAYOUT_H
#define TESSEL_TRANSFORMOPS_MMALAYOUT_H

#include <array>
#include <cstdint>

namespace tessel::mma {

/// One stage of an operand's tile as stored, its rows padded by `padding`
/// elements: `mn` rows of `tileK` for a K-major operand (A [m, k], B
/// [n, k]), else `tileK` rows of `mn` (A [k, m], B [k, n]).
inline std::array<int64_t, 2> stageShape(bool kMajor, int64_t mn, int64_t tileK,
                                         int64_t padding) {
  if (kMajor)
    return {mn, tileK + padding};
  return {tileK, mn + padding};
}

/// The elements of stageShape.
inline int64_t stageElems(bool kMajor, int64_t mn, int64_t tileK,
                          int64_t padding) {
  auto [rows, cols] = stageShape(kMajor, mn, tileK, padding);
  return rows * cols;
}

} // namespace tessel::mma

#endif // TESSEL_TRANSFORMOPS_MMALAYOUT_H
