// The float32 matrix multiply: register tiles of rows × columns of c, accumulated over all of k, reading b one panel
// at a time. The tile is sized to the vector registers the CPU has, because a tile whose accumulators do not fit in
// them is spilled to memory at every step (on AVX2, the AVX-512 tile ran at a thirtieth of the speed):
// - AVX-512 (32 registers of 16 floats): 8 rows × a whole panel (32 columns), 16 accumulators;
// - AVX2 with FMA (16 registers of 8 floats): 6 rows × half a panel (16 columns), 12 accumulators;
// - anything else: as AVX2, in whatever vectors the compiler has.
// AGENTRY_FLOAT_KERNEL=avx2 or portable picks a narrower one. Each tile is specialised for its number of rows, so
// that the inner loop has no test of the row count.
#include <cstdlib>
#include <cstring>
#include <string>

#include "kernels.h"
#include "vector.h"

namespace agentry {
namespace {

// c[ROWS × VECTORS vectors] (row stride ldc) = a[ROWS × k] (row stride lda) · the columns of b starting at `b` (row
// stride PANEL), plus bias, then max(0, ·) when relu.
template <typename V, int ROWS, int VECTORS>
inline __attribute__((always_inline)) void tile(const float* a, size_t lda, const float* b, float* c, size_t ldc,
                                                size_t k, const float* bias, bool relu) {
  constexpr int LANES = sizeof(V) / sizeof(float);
  V acc[ROWS][VECTORS];
  for (int r = 0; r < ROWS; r++)
    for (int v = 0; v < VECTORS; v++) acc[r][v] = V{};
  for (size_t p = 0; p < k; p++) {
    V column[VECTORS];
    for (int v = 0; v < VECTORS; v++) column[v] = load<V>(b + p * PANEL + LANES * v);
    for (int r = 0; r < ROWS; r++) {
      const float s = a[r * lda + p];
      for (int v = 0; v < VECTORS; v++) acc[r][v] += s * column[v];
    }
  }
  const V zero{};
  for (int r = 0; r < ROWS; r++) {
    for (int v = 0; v < VECTORS; v++) {
      V x = acc[r][v];
      if (bias != nullptr) x += load<V>(bias + LANES * v);
      if (relu) x = x > zero ? x : zero;
      store<V>(c + r * ldc + LANES * v, x);
    }
  }
}

// A tile of `rows` (1 … MR) rows, by the specialisation for that count.
template <typename V, int MR, int VECTORS>
inline __attribute__((always_inline)) void tileOf(int rows, const float* a, size_t lda, const float* b, float* c,
                                                  size_t ldc, size_t k, const float* bias, bool relu) {
  if constexpr (MR > 1) {
    if (rows < MR) {
      tileOf<V, MR - 1, VECTORS>(rows, a, lda, b, c, ldc, k, bias, relu);
      return;
    }
  }
  tile<V, MR, VECTORS>(a, lda, b, c, ldc, k, bias, relu);
}

// The whole multiply with tiles of MR rows × COLUMNS (a divisor of PANEL) columns, in vectors V.
template <typename V, int MR, int COLUMNS>
inline __attribute__((always_inline)) void multiply(const float* a, const float* b, float* c, size_t m, size_t k,
                                                    size_t n, const float* bias, bool relu) {
  constexpr int VECTORS = COLUMNS / (sizeof(V) / sizeof(float));
  const size_t panels = (n + PANEL - 1) / PANEL;
  for (size_t j = 0; j < panels; j++) {
    for (size_t half = 0; half < PANEL; half += COLUMNS) {
      const size_t first = j * PANEL + half;
      if (first >= n) break;
      const size_t width = n - first < COLUMNS ? n - first : COLUMNS;
      const float* columns = b + j * k * PANEL + half;
      // The last panel is zero-padded in b but not in c or bias: its tiles go through a buffer.
      float paddedBias[COLUMNS] = {};
      const float* tileBias = bias != nullptr ? bias + first : nullptr;
      if (bias != nullptr && width < COLUMNS) {
        std::memcpy(paddedBias, bias + first, width * sizeof(float));
        tileBias = paddedBias;
      }
      for (size_t i = 0; i < m; i += MR) {
        const int rows = m - i < static_cast<size_t>(MR) ? static_cast<int>(m - i) : MR;
        if (width == COLUMNS) {
          tileOf<V, MR, VECTORS>(rows, a + i * k, k, columns, c + i * n + first, n, k, tileBias, relu);
        } else {
          float out[MR * COLUMNS];
          tileOf<V, MR, VECTORS>(rows, a + i * k, k, columns, out, COLUMNS, k, tileBias, relu);
          for (int r = 0; r < rows; r++) std::memcpy(c + (i + r) * n + first, out + r * COLUMNS, width * sizeof(float));
        }
      }
    }
  }
}

void multiplyPortable(const float* a, const float* b, float* c, size_t m, size_t k, size_t n, const float* bias,
                      bool relu) {
  multiply<v8, 6, 16>(a, b, c, m, k, n, bias, relu);
}

using Multiply = void (*)(const float*, const float*, float*, size_t, size_t, size_t, const float*, bool);

struct Choice {
  Multiply multiply;
  const char* name;
};

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

__attribute__((target("avx512f"))) void multiplyAvx512(const float* a, const float* b, float* c, size_t m, size_t k,
                                                        size_t n, const float* bias, bool relu) {
  multiply<v16, 8, 32>(a, b, c, m, k, n, bias, relu);
}

__attribute__((target("avx2,fma"))) void multiplyAvx2(const float* a, const float* b, float* c, size_t m, size_t k,
                                                      size_t n, const float* bias, bool relu) {
  multiply<v8, 6, 16>(a, b, c, m, k, n, bias, relu);
}

// The widest tile this CPU runs, or a narrower one named by AGENTRY_FLOAT_KERNEL (avx2, portable), so that every
// path can be tested on a machine that has the widest.
Choice chooseMultiply() {
  __builtin_cpu_init();
  const char* asked = std::getenv("AGENTRY_FLOAT_KERNEL");
  const std::string wanted = asked == nullptr ? "" : asked;
  if (wanted != "avx2" && wanted != "portable" && __builtin_cpu_supports("avx512f")) return {multiplyAvx512, "avx512"};
  if (wanted != "portable" && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    return {multiplyAvx2, "avx2"};
  }
  return {multiplyPortable, "portable"};
}
#else
Choice chooseMultiply() { return {multiplyPortable, "portable"}; }
#endif

const Choice& chosenMultiply() {
  static const Choice chosen = chooseMultiply();
  return chosen;
}

}  // namespace

void gemmF32(const float* a, const float* b, float* c, size_t m, size_t k, size_t n, const float* bias, bool relu) {
  chosenMultiply().multiply(a, b, c, m, k, n, bias, relu);
}

const char* gemmF32Kernel() { return chosenMultiply().name; }

}  // namespace agentry
