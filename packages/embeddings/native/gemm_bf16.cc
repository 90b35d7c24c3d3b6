// The bfloat16 matrix multiply, on AVX-512 BF16 (vdpbf16ps: 32 multiply-adds of bfloat16 pairs an instruction into
// float32 sums, twice float32's FMA). bfloat16 keeps float32's exponent and 8 bits of its mantissa: no scales, no
// outliers to clip, each product off by at most about 2^-8 of itself; the sums stay float32. Weights are rounded
// once, in panels of PANEL columns by pairs of rows; each row of the left matrix is rounded when it is multiplied.
#include <cstring>

#include "kernels.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define AGENTRY_BF16 1
#endif

namespace agentry {

namespace {

// Round to nearest, ties to even, as vcvtne2ps2bf16 does (NaN stays NaN: its top bits are kept, made quiet).
uint16_t toBf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x007fffffu) != 0) return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

}  // namespace

void packBf16(const float* b, size_t k, size_t n, uint16_t* packed) {
  // Panel j / PANEL, pair of rows p / 2: PANEL columns × 2 rows, each column's two values together.
  for (size_t p = 0; p < k; p++) {
    for (size_t j = 0; j < n; j++) {
      packed[(j / PANEL) * k * PANEL + (p / 2) * PANEL * 2 + (j % PANEL) * 2 + p % 2] = toBf16(b[p * n + j]);
    }
  }
}

#ifdef AGENTRY_BF16

bool bf16Supported() {
  static const bool supported = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512bf16");
  }();
  return supported;
}

namespace {

constexpr int MR = 8;

template <int ROWS>
__attribute__((target("avx512f,avx512bw,avx512bf16"), always_inline)) inline void tile(
    const uint16_t* a, size_t k, const uint16_t* b, float* c, size_t ldc, int rows, const float* bias, bool relu) {
  __m512 acc[MR][2];
  for (int r = 0; r < MR; r++) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  for (size_t p = 0; p < k / 2; p++) {
    const __m512bh b0 = reinterpret_cast<__m512bh>(_mm512_loadu_si512(b + p * PANEL * 2));
    const __m512bh b1 = reinterpret_cast<__m512bh>(_mm512_loadu_si512(b + p * PANEL * 2 + 32));
    for (int r = 0; r < MR; r++) {
      // ROWS == MR (every tile but the last) drops the test from the loop.
      if (ROWS == MR || r < rows) {
        uint32_t pair;
        std::memcpy(&pair, a + r * k + 2 * p, sizeof pair);
        const __m512bh s = reinterpret_cast<__m512bh>(_mm512_set1_epi32(static_cast<int>(pair)));
        acc[r][0] = _mm512_dpbf16_ps(acc[r][0], s, b0);
        acc[r][1] = _mm512_dpbf16_ps(acc[r][1], s, b1);
      }
    }
  }
  const __m512 bias0 = bias != nullptr ? _mm512_loadu_ps(bias) : _mm512_setzero_ps();
  const __m512 bias1 = bias != nullptr ? _mm512_loadu_ps(bias + 16) : _mm512_setzero_ps();
  for (int r = 0; r < rows; r++) {
    __m512 x0 = _mm512_add_ps(acc[r][0], bias0);
    __m512 x1 = _mm512_add_ps(acc[r][1], bias1);
    if (relu) {
      x0 = _mm512_max_ps(x0, _mm512_setzero_ps());
      x1 = _mm512_max_ps(x1, _mm512_setzero_ps());
    }
    _mm512_storeu_ps(c + r * ldc, x0);
    _mm512_storeu_ps(c + r * ldc + 16, x1);
  }
}

}  // namespace

__attribute__((target("avx512f,avx512bw,avx512bf16"))) void gemmBf16(const float* a, const uint16_t* b, float* c,
                                                                       size_t m, size_t k, size_t n,
                                                                       const float* bias, bool relu,
                                                                       uint16_t* rowScratch) {
  for (size_t i = 0; i < m * k; i++) rowScratch[i] = toBf16(a[i]);
  for (size_t j = 0; j < n / PANEL; j++) {
    for (size_t i = 0; i < m; i += MR) {
      const uint16_t* rows = rowScratch + i * k;
      const uint16_t* panel = b + j * k * PANEL;
      float* out = c + i * n + j * PANEL;
      const float* panelBias = bias != nullptr ? bias + j * PANEL : nullptr;
      if (m - i >= static_cast<size_t>(MR)) {
        tile<MR>(rows, k, panel, out, n, MR, panelBias, relu);
      } else {
        tile<0>(rows, k, panel, out, n, static_cast<int>(m - i), panelBias, relu);
      }
    }
  }
}

#else

bool bf16Supported() { return false; }

void gemmBf16(const float*, const uint16_t*, float*, size_t, size_t, size_t, const float*, bool, uint16_t*) {}

#endif

}  // namespace agentry
