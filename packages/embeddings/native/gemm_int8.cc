// The int8 matrix multiply, on AVX-512 VNNI (vpdpbusd: 64 multiply-adds of unsigned by signed bytes an
// instruction, four times float32's) or on AVX2 (vpmaddubsw then vpmaddwd: 32 an instruction pair, about twice the
// float32 kernel's rate there). Weights are quantised once, per column, to [-127, 127]. Each row of the left matrix
// is quantised when it is multiplied, over its own range: x ≈ scale · (q − zero) with q in [0, 255] on VNNI, so a
// row of ReLU outputs (all ≥ 0) uses all 256 steps rather than half of them. Σ q · q_b − zero · Σ q_b is then the
// exact integer product of the quantised values. On AVX2, q is in [0, 127]: vpmaddubsw adds two byte products into
// a saturating 16-bit sum, and 2 · 127 · 127 is the largest that cannot saturate (with 255, sums would clip).
// AGENTRY_INT8_KERNEL=avx2 runs the AVX2 path on a CPU that has VNNI, as the tests do.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "kernels.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define AGENTRY_INT8 1
#endif

namespace agentry {

void quantizeColumns(const float* b, size_t k, size_t n, int8_t* packed, float* scales, int32_t* sums) {
  for (size_t j = 0; j < n; j++) {
    float largest = 0;
    for (size_t p = 0; p < k; p++) largest = std::fmax(largest, std::fabs(b[p * n + j]));
    scales[j] = largest > 0 ? largest / 127 : 1;
    sums[j] = 0;
  }
  // Panel j / PANEL, group of rows p / 4: PANEL columns × 4 rows, each column's 4 bytes together.
  for (size_t p = 0; p < k; p++) {
    for (size_t j = 0; j < n; j++) {
      const long q = std::lrint(b[p * n + j] / scales[j]);
      const int8_t value = static_cast<int8_t>(q < -127 ? -127 : q > 127 ? 127 : q);
      packed[(j / PANEL) * k * PANEL + (p / 4) * PANEL * 4 + (j % PANEL) * 4 + p % 4] = value;
      sums[j] += value;
    }
  }
}

#ifdef AGENTRY_INT8

namespace {

bool vnniSupported() {
  __builtin_cpu_init();
  const char* asked = std::getenv("AGENTRY_INT8_KERNEL");
  if (asked != nullptr && std::string(asked) == "avx2") return false;
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vnni");
}

bool avx2Supported() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

}  // namespace

const char* int8Kernel() {
  static const char* const kernel = vnniSupported() ? "avx512-vnni" : avx2Supported() ? "avx2" : "none";
  return kernel;
}

bool int8Supported() { return std::strcmp(int8Kernel(), "none") != 0; }

namespace {

constexpr int MR = 8;

__attribute__((target("avx512f,avx512bw,avx512vnni"), always_inline)) inline void tile(
    const uint8_t* a, size_t k, const int8_t* b, const float* rowScales, const int32_t* rowZeros, const float* scales,
    const int32_t* sums, float* c, size_t ldc, int rows, const float* bias, bool relu) {
  __m512i acc[MR][2];
  for (int r = 0; r < MR; r++) acc[r][0] = acc[r][1] = _mm512_setzero_si512();
  for (size_t p = 0; p < k / 4; p++) {
    const __m512i b0 = _mm512_loadu_si512(b + p * PANEL * 4);
    const __m512i b1 = _mm512_loadu_si512(b + p * PANEL * 4 + 64);
    for (int r = 0; r < MR; r++) {
      if (r < rows) {
        uint32_t four;
        std::memcpy(&four, a + r * k + 4 * p, 4);
        const __m512i s = _mm512_set1_epi32(static_cast<int>(four));
        acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], s, b0);
        acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], s, b1);
      }
    }
  }
  const __m512i sums0 = _mm512_loadu_si512(sums);
  const __m512i sums1 = _mm512_loadu_si512(sums + 16);
  const __m512 scale0 = _mm512_loadu_ps(scales);
  const __m512 scale1 = _mm512_loadu_ps(scales + 16);
  const __m512 bias0 = bias != nullptr ? _mm512_loadu_ps(bias) : _mm512_setzero_ps();
  const __m512 bias1 = bias != nullptr ? _mm512_loadu_ps(bias + 16) : _mm512_setzero_ps();
  for (int r = 0; r < rows; r++) {
    const __m512 rowScale = _mm512_set1_ps(rowScales[r]);
    const __m512i zero = _mm512_set1_epi32(rowZeros[r]);
    __m512 x0 = _mm512_cvtepi32_ps(_mm512_sub_epi32(acc[r][0], _mm512_mullo_epi32(sums0, zero)));
    __m512 x1 = _mm512_cvtepi32_ps(_mm512_sub_epi32(acc[r][1], _mm512_mullo_epi32(sums1, zero)));
    x0 = _mm512_fmadd_ps(x0, _mm512_mul_ps(scale0, rowScale), bias0);
    x1 = _mm512_fmadd_ps(x1, _mm512_mul_ps(scale1, rowScale), bias1);
    if (relu) {
      x0 = _mm512_max_ps(x0, _mm512_setzero_ps());
      x1 = _mm512_max_ps(x1, _mm512_setzero_ps());
    }
    _mm512_storeu_ps(c + r * ldc, x0);
    _mm512_storeu_ps(c + r * ldc + 16, x1);
  }
}

// The scale and zero point that map a row's range [low, high] (low ≤ 0 ≤ high) onto 0 … levels; returns 1 / scale.
inline float scaleAndZero(float low, float high, int levels, float* scale, int32_t* zero) {
  *scale = high > low ? (high - low) / levels : 1;
  const float inverse = 1 / *scale;
  *zero = static_cast<int32_t>(std::nearbyint(-low * inverse));
  return inverse;
}

// Values p … k − 1 of a row, past its vector loop, quantised as the loop quantises: nearest, clamped to 0 … levels.
inline void quantizeTail(const float* row, size_t p, size_t k, float inverse, int32_t zero, int levels,
                         uint8_t* out) {
  for (; p < k; p++) {
    const int q = static_cast<int>(std::nearbyint(row[p] * inverse)) + zero;
    out[p] = static_cast<uint8_t>(q < 0 ? 0 : q > levels ? levels : q);
  }
}

// A row of floats to bytes over its range [min(x, 0), max(x, 0)]: q = round(x / scale) + zero, q in [0, 255].
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void quantizeRow(const float* row, size_t k, uint8_t* out,
                                                                          float* scale, int32_t* zero) {
  __m512 lowest = _mm512_setzero_ps();
  __m512 highest = _mm512_setzero_ps();
  size_t p = 0;
  for (; p + 16 <= k; p += 16) {
    const __m512 x = _mm512_loadu_ps(row + p);
    lowest = _mm512_min_ps(lowest, x);
    highest = _mm512_max_ps(highest, x);
  }
  float low = _mm512_reduce_min_ps(lowest);
  float high = _mm512_reduce_max_ps(highest);
  for (; p < k; p++) {
    low = std::fmin(low, row[p]);
    high = std::fmax(high, row[p]);
  }
  const float inverse = scaleAndZero(low, high, 255, scale, zero);
  const __m512 factor = _mm512_set1_ps(inverse);
  const __m512i offset = _mm512_set1_epi32(*zero);
  const __m512i bottom = _mm512_setzero_si512();
  const __m512i top = _mm512_set1_epi32(255);
  for (p = 0; p + 16 <= k; p += 16) {
    // Rounded to nearest (even), as the scalar tail's nearbyint; clamped against rounding at the ends.
    __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(_mm512_mul_ps(_mm512_loadu_ps(row + p), factor)), offset);
    q = _mm512_min_epi32(_mm512_max_epi32(q, bottom), top);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + p), _mm512_cvtepi32_epi8(q));
  }
  quantizeTail(row, p, k, inverse, *zero, 255, out);
}

__attribute__((target("avx512f,avx512bw,avx512vnni"))) void gemmVnni(
    const float* a, const int8_t* b, const float* scales, const int32_t* sums, float* c, size_t m, size_t k, size_t n,
    const float* bias, bool relu, uint8_t* rowScratch, float* rowScales, int32_t* rowZeros) {
  for (size_t i = 0; i < m; i++) quantizeRow(a + i * k, k, rowScratch + i * k, rowScales + i, rowZeros + i);
  for (size_t j = 0; j < n / PANEL; j++) {
    for (size_t i = 0; i < m; i += MR) {
      const int rows = m - i < static_cast<size_t>(MR) ? static_cast<int>(m - i) : MR;
      tile(rowScratch + i * k, k, b + j * k * PANEL, rowScales + i, rowZeros + i, scales + j * PANEL, sums + j * PANEL,
           c + i * n + j * PANEL, n, rows, bias != nullptr ? bias + j * PANEL : nullptr, relu);
    }
  }
}

constexpr int AVX2_ROWS = 6;
constexpr int AVX2_COLUMNS = 16;

// c[ROWS × 16] from a[ROWS × k] (bytes in [0, 127]) and 16 columns of a panel (`half` 0 or 1), as the VNNI tile.
template <int ROWS>
__attribute__((target("avx2,fma"), always_inline)) inline void tileAvx2(
    const uint8_t* a, size_t k, const int8_t* b, int half, const float* rowScales, const int32_t* rowZeros,
    const float* scales, const int32_t* sums, float* c, size_t ldc, const float* bias, bool relu) {
  __m256i acc[ROWS][2];
  for (int r = 0; r < ROWS; r++) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
  const __m256i ones = _mm256_set1_epi16(1);
  for (size_t p = 0; p < k / 4; p++) {
    const int8_t* group = b + p * PANEL * 4 + half * AVX2_COLUMNS * 4;
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(group));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(group + 32));
    for (int r = 0; r < ROWS; r++) {
      uint32_t four;
      std::memcpy(&four, a + r * k + 4 * p, 4);
      const __m256i s = _mm256_set1_epi32(static_cast<int>(four));
      acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(_mm256_maddubs_epi16(s, b0), ones));
      acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(_mm256_maddubs_epi16(s, b1), ones));
    }
  }
  for (int v = 0; v < 2; v++) {
    const __m256i columnSums = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sums + 8 * v));
    const __m256 columnScales = _mm256_loadu_ps(scales + 8 * v);
    const __m256 columnBias = bias != nullptr ? _mm256_loadu_ps(bias + 8 * v) : _mm256_setzero_ps();
    for (int r = 0; r < ROWS; r++) {
      const __m256i zero = _mm256_set1_epi32(rowZeros[r]);
      __m256 x = _mm256_cvtepi32_ps(_mm256_sub_epi32(acc[r][v], _mm256_mullo_epi32(columnSums, zero)));
      x = _mm256_fmadd_ps(x, _mm256_mul_ps(columnScales, _mm256_set1_ps(rowScales[r])), columnBias);
      if (relu) x = _mm256_max_ps(x, _mm256_setzero_ps());
      _mm256_storeu_ps(c + r * ldc + 8 * v, x);
    }
  }
}

template <int ROWS>
__attribute__((target("avx2,fma"), always_inline)) inline void tileAvx2Of(
    int rows, const uint8_t* a, size_t k, const int8_t* b, int half, const float* rowScales, const int32_t* rowZeros,
    const float* scales, const int32_t* sums, float* c, size_t ldc, const float* bias, bool relu) {
  if constexpr (ROWS > 1) {
    if (rows < ROWS) {
      tileAvx2Of<ROWS - 1>(rows, a, k, b, half, rowScales, rowZeros, scales, sums, c, ldc, bias, relu);
      return;
    }
  }
  tileAvx2<ROWS>(a, k, b, half, rowScales, rowZeros, scales, sums, c, ldc, bias, relu);
}

// A row of floats to bytes in [0, 127] over its range [min(x, 0), max(x, 0)] (the AVX2 path's 7 bits).
__attribute__((target("avx2,fma"))) void quantizeRowAvx2(const float* row, size_t k, uint8_t* out, float* scale,
                                                         int32_t* zero) {
  __m256 lowest = _mm256_setzero_ps();
  __m256 highest = _mm256_setzero_ps();
  size_t p = 0;
  for (; p + 8 <= k; p += 8) {
    const __m256 x = _mm256_loadu_ps(row + p);
    lowest = _mm256_min_ps(lowest, x);
    highest = _mm256_max_ps(highest, x);
  }
  float lows[8], highs[8];
  _mm256_storeu_ps(lows, lowest);
  _mm256_storeu_ps(highs, highest);
  float low = 0, high = 0;
  for (int lane = 0; lane < 8; lane++) {
    low = lows[lane] < low ? lows[lane] : low;
    high = highs[lane] > high ? highs[lane] : high;
  }
  for (; p < k; p++) {
    low = row[p] < low ? row[p] : low;
    high = row[p] > high ? row[p] : high;
  }
  const float inverse = scaleAndZero(low, high, 127, scale, zero);
  const __m256 factor = _mm256_set1_ps(inverse);
  const __m256i offset = _mm256_set1_epi32(*zero);
  const __m256i bottom = _mm256_setzero_si256();
  const __m256i top = _mm256_set1_epi32(127);
  for (p = 0; p + 8 <= k; p += 8) {
    // Rounded to nearest (even), as the scalar tail's nearbyint; clamped against rounding at the ends.
    __m256i q = _mm256_add_epi32(_mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(row + p), factor)), offset);
    q = _mm256_min_epi32(_mm256_max_epi32(q, bottom), top);
    // Eight int32 in [0, 127] to eight bytes: pack to 16 bits, then to 8, and take each half's first four.
    const __m256i words = _mm256_packs_epi32(q, q);
    const __m256i bytes = _mm256_packus_epi16(words, words);
    const uint32_t first = static_cast<uint32_t>(_mm256_extract_epi32(bytes, 0));
    const uint32_t second = static_cast<uint32_t>(_mm256_extract_epi32(bytes, 4));
    std::memcpy(out + p, &first, 4);
    std::memcpy(out + p + 4, &second, 4);
  }
  quantizeTail(row, p, k, inverse, *zero, 127, out);
}

__attribute__((target("avx2,fma"))) void gemmAvx2(const float* a, const int8_t* b, const float* scales,
                                                  const int32_t* sums, float* c, size_t m, size_t k, size_t n,
                                                  const float* bias, bool relu, uint8_t* rowScratch, float* rowScales,
                                                  int32_t* rowZeros) {
  for (size_t i = 0; i < m; i++) quantizeRowAvx2(a + i * k, k, rowScratch + i * k, rowScales + i, rowZeros + i);
  for (size_t j = 0; j < n / PANEL; j++) {
    for (int half = 0; half < 2; half++) {
      const size_t first = j * PANEL + half * AVX2_COLUMNS;
      for (size_t i = 0; i < m; i += AVX2_ROWS) {
        const int rows = m - i < static_cast<size_t>(AVX2_ROWS) ? static_cast<int>(m - i) : AVX2_ROWS;
        tileAvx2Of<AVX2_ROWS>(rows, rowScratch + i * k, k, b + j * k * PANEL, half, rowScales + i, rowZeros + i,
                              scales + first, sums + first, c + i * n + first, n,
                              bias != nullptr ? bias + first : nullptr, relu);
      }
    }
  }
}

}  // namespace

void gemmInt8(const float* a, const int8_t* b, const float* scales, const int32_t* sums, float* c, size_t m, size_t k,
              size_t n, const float* bias, bool relu, uint8_t* rowScratch, float* rowScales, int32_t* rowZeros) {
  static const bool vnni = std::strcmp(int8Kernel(), "avx512-vnni") == 0;
  if (vnni) gemmVnni(a, b, scales, sums, c, m, k, n, bias, relu, rowScratch, rowScales, rowZeros);
  else gemmAvx2(a, b, scales, sums, c, m, k, n, bias, relu, rowScratch, rowScales, rowZeros);
}

#else

const char* int8Kernel() { return "none"; }

bool int8Supported() { return false; }

void gemmInt8(const float*, const int8_t*, const float*, const int32_t*, float*, size_t, size_t, size_t, const float*,
              bool, uint8_t*, float*, int32_t*) {}

#endif

}  // namespace agentry
