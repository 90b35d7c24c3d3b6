// What the kernels share: a 16-float vector type (GCC/Clang vector extensions, so the code compiles on any target and
// the compiler picks the instructions), unaligned loads and stores, and the clones of a hot function for AVX-512 and
// AVX2+FMA on x86-64, picked at load time by the CPU's features.
#pragma once

#include <cstring>

namespace agentry {

typedef float v16 __attribute__((vector_size(64), aligned(4), may_alias));

inline __attribute__((always_inline)) v16 load(const float* p) {
  v16 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline __attribute__((always_inline)) void store(float* p, v16 v) { std::memcpy(p, &v, sizeof v); }

}  // namespace agentry

#if defined(__x86_64__) && !defined(__clang__)
#define AGENTRY_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define AGENTRY_CLONES
#endif
