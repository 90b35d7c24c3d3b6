// The transformer's other float32 steps: layer normalisation (with its residual), row means and self-attention. As
// JavaScript loops they cost a third of the encoder's time.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels.h"
#include "vector.h"

namespace agentry {

// Sums in 16 float lanes (a row is at most a few thousand values, so the error is far below float32's own).
AGENTRY_CLONES void layerNorm(float* input, float* output, size_t rows, size_t width, const float* scale,
                              const float* bias, double epsilon, const float* residual) {
  const size_t whole = width - width % 16;
  for (size_t row = 0; row < rows; row++) {
    float* x = input + row * width;
    float* y = output + row * width;
    if (residual != nullptr) {
      const float* r = residual + row * width;
      for (size_t i = 0; i < whole; i += 16) store(x + i, load(x + i) + load(r + i));
      for (size_t i = whole; i < width; i++) x[i] += r[i];
    }
    v16 lanes{};
    for (size_t i = 0; i < whole; i += 16) lanes += load(x + i);
    float sum = laneSum(lanes);
    for (size_t i = whole; i < width; i++) sum += x[i];
    const float mean = sum / width;
    v16 squares{};
    for (size_t i = 0; i < whole; i += 16) {
      const v16 d = load(x + i) - mean;
      squares += d * d;
    }
    float squared = laneSum(squares);
    for (size_t i = whole; i < width; i++) squared += (x[i] - mean) * (x[i] - mean);
    const float inverse = static_cast<float>(1 / std::sqrt(squared / width + epsilon));
    for (size_t i = 0; i < width; i++) y[i] = (x[i] - mean) * inverse * scale[i] + bias[i];
  }
}

AGENTRY_CLONES void meanRows(const float* matrix, size_t rows, size_t width, float* out) {
  const size_t whole = width - width % 16;
  std::memset(out, 0, width * sizeof(float));
  for (size_t row = 0; row < rows; row++) {
    const float* x = matrix + row * width;
    for (size_t i = 0; i < whole; i += 16) store(out + i, load(out + i) + load(x + i));
    for (size_t i = whole; i < width; i++) out[i] += x[i];
  }
  const float inverse = 1.0f / static_cast<float>(rows > 0 ? rows : 1);
  for (size_t i = 0; i < width; i++) out[i] *= inverse;
}

namespace {

typedef int32_t vi16 __attribute__((vector_size(64), aligned(4), may_alias));

// e^x for x ≤ 0 (a softmax's scores less their maximum), within about 2 units in the last place of std::exp: x = n·ln 2
// + r with |r| ≤ ln 2 / 2, e^r by its degree-6 polynomial (Cephes' expf coefficients), 2^n written into the exponent
// bits. Below -87, where e^x leaves float32's normal range, it gives e^-87 (1.6e-38) instead of a smaller number.
inline __attribute__((always_inline)) v16 expNonPositive(v16 x) {
  const v16 lowest = v16{} - 87.0f;
  x = x < lowest ? lowest : x;
  const vi16 n = __builtin_convertvector(x * 1.44269504088896341f - 0.5f, vi16);  // rounds, as x ≤ 0
  const v16 whole = __builtin_convertvector(n, v16);
  const v16 r = x - whole * 0.693359375f + whole * 2.12194440e-4f;
  v16 p = r * 1.9875691500e-4f + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + r + 1.0f;
  const vi16 bits = (n + 127) << 23;
  v16 scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

// row[t] = softmax(row), in place.
AGENTRY_CLONES void softmax(float* row, size_t t) {
  const size_t whole = t - t % 16;
  float max = -INFINITY;
  if (whole > 0) {
    v16 lanes = load(row);
    for (size_t j = 16; j < whole; j += 16) {
      const v16 x = load(row + j);
      lanes = x > lanes ? x : lanes;
    }
    for (int lane = 0; lane < 16; lane++) max = lanes[lane] > max ? lanes[lane] : max;
  }
  for (size_t j = whole; j < t; j++) max = row[j] > max ? row[j] : max;
  v16 sums{};
  for (size_t j = 0; j < whole; j += 16) {
    const v16 e = expNonPositive(load(row + j) - max);
    store(row + j, e);
    sums += e;
  }
  float sum = laneSum(sums);
  for (size_t j = whole; j < t; j++) {
    row[j] = std::exp(row[j] - max);
    sum += row[j];
  }
  const float inverse = 1 / sum;
  for (size_t j = 0; j < t; j++) row[j] *= inverse;
}

}  // namespace

// Each head is two multiplies on the float kernel: scores = (q·scale) · kᵀ, then softmax(scores) · v, with the
// head's keys and values packed into panels first. `scratch` is attentionScratch(t, depth) floats.
AGENTRY_CLONES void attention(const float* qkv, float* out, size_t t, size_t width, size_t heads, float scale,
                              float* scratch) {
  const size_t depth = width / heads;
  const size_t stride = 3 * width;
  const size_t tokenPanels = (t + PANEL - 1) / PANEL;
  const size_t depthPanels = (depth + PANEL - 1) / PANEL;
  float* queries = scratch;                                  // t × depth
  float* keys = queries + t * depth;                         // depth × t, in panels
  float* values = keys + depth * tokenPanels * PANEL;        // t × depth, in panels
  float* scores = values + t * depthPanels * PANEL;          // t × t
  float* head = scores + t * t;                              // t × depth
  for (size_t h = 0; h < heads; h++) {
    const size_t offset = h * depth;
    std::memset(keys, 0, depth * tokenPanels * PANEL * sizeof(float));
    std::memset(values, 0, t * depthPanels * PANEL * sizeof(float));
    for (size_t j = 0; j < t; j++) {
      const float* q = qkv + j * stride + offset;
      const float* k = q + width;
      const float* v = q + 2 * width;
      for (size_t d = 0; d < depth; d++) {
        queries[j * depth + d] = q[d] * scale;
        keys[(j / PANEL) * depth * PANEL + d * PANEL + j % PANEL] = k[d];
        values[(d / PANEL) * t * PANEL + j * PANEL + d % PANEL] = v[d];
      }
    }
    gemmF32(queries, keys, scores, t, depth, t, nullptr, false);
    for (size_t i = 0; i < t; i++) softmax(scores + i * t, t);
    gemmF32(scores, values, head, t, t, depth, nullptr, false);
    for (size_t i = 0; i < t; i++) std::memcpy(out + i * width + offset, head + i * depth, depth * sizeof(float));
  }
}

size_t attentionScratch(size_t t, size_t depth) {
  const size_t tokenPanels = (t + PANEL - 1) / PANEL;
  const size_t depthPanels = (depth + PANEL - 1) / PANEL;
  return t * depth + depth * tokenPanels * PANEL + t * depthPanels * PANEL + t * t + t * depth;
}

}  // namespace agentry
