// The float32 matrix multiply: register tiles of MR rows × PANEL columns, accumulated over all of k (16 vector
// accumulators with AVX-512), reading b one panel at a time.
#include <cstring>

#include "kernels.h"
#include "vector.h"

namespace agentry {
namespace {

constexpr int MR = 8;

inline __attribute__((always_inline)) void tile(const float* a, size_t lda, const float* b, float* c, size_t ldc,
                                                size_t k, int rows, const float* bias, bool relu) {
  v16 acc[MR][2];
  for (int r = 0; r < MR; r++) acc[r][0] = acc[r][1] = v16{};
  for (size_t p = 0; p < k; p++) {
    const v16 b0 = load(b + p * PANEL);
    const v16 b1 = load(b + p * PANEL + 16);
    for (int r = 0; r < MR; r++) {
      if (r < rows) {
        const float s = a[r * lda + p];
        acc[r][0] += s * b0;
        acc[r][1] += s * b1;
      }
    }
  }
  const v16 bias0 = bias != nullptr ? load(bias) : v16{};
  const v16 bias1 = bias != nullptr ? load(bias + 16) : v16{};
  const v16 zero{};
  for (int r = 0; r < rows; r++) {
    v16 x0 = acc[r][0] + bias0;
    v16 x1 = acc[r][1] + bias1;
    if (relu) {
      x0 = x0 > zero ? x0 : zero;
      x1 = x1 > zero ? x1 : zero;
    }
    store(c + r * ldc, x0);
    store(c + r * ldc + 16, x1);
  }
}

}  // namespace

AGENTRY_CLONES void gemmF32(const float* a, const float* b, float* c, size_t m, size_t k, size_t n, const float* bias,
                            bool relu) {
  const size_t panels = (n + PANEL - 1) / PANEL;
  for (size_t j = 0; j < panels; j++) {
    const float* panel = b + j * k * PANEL;
    const size_t width = n - j * PANEL < PANEL ? n - j * PANEL : PANEL;
    float padded[PANEL] = {};
    const float* panelBias = bias != nullptr ? bias + j * PANEL : nullptr;
    if (bias != nullptr && width < PANEL) {
      std::memcpy(padded, bias + j * PANEL, width * sizeof(float));
      panelBias = padded;
    }
    for (size_t i = 0; i < m; i += MR) {
      const int rows = m - i < static_cast<size_t>(MR) ? static_cast<int>(m - i) : MR;
      if (width == PANEL) {
        tile(a + i * k, k, panel, c + i * n + j * PANEL, n, k, rows, panelBias, relu);
      } else {
        // The last panel is narrower: multiplied into a buffer, and its valid columns copied out.
        float out[MR * PANEL];
        tile(a + i * k, k, panel, out, PANEL, k, rows, panelBias, relu);
        for (int r = 0; r < rows; r++) std::memcpy(c + (i + r) * n + j * PANEL, out + r * PANEL, width * sizeof(float));
      }
    }
  }
}

}  // namespace agentry
