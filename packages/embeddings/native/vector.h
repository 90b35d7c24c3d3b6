// What the kernels share: vectors of 8 and 16 floats (GCC/Clang vector extensions, so the code compiles on any target
// and the compiler picks the instructions for the target of the function it is inlined into), unaligned loads and
// stores, a lane sum, and the clones of a hot function for AVX-512 and AVX2+FMA on x86-64, picked at load time by the CPU's
// features.
#pragma once

#include <cstring>

namespace agentry {

typedef float v8 __attribute__((vector_size(32), aligned(4), may_alias));
typedef float v16 __attribute__((vector_size(64), aligned(4), may_alias));

template <typename V = v16>
inline __attribute__((always_inline)) V load(const float* p) {
  V v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <typename V>
inline __attribute__((always_inline)) void store(float* p, V v) {
  std::memcpy(p, &v, sizeof v);
}

// The sum of a vector's 16 lanes.
inline __attribute__((always_inline)) float laneSum(v16 v) {
  float sum = 0;
  for (int lane = 0; lane < 16; lane++) sum += v[lane];
  return sum;
}

}  // namespace agentry

#if defined(__x86_64__) && !defined(__clang__)
#define AGENTRY_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define AGENTRY_CLONES
#endif
