// The transformer's other float32 steps: layer normalisation and self-attention. As JavaScript loops they cost a
// third of the encoder's time.
#include <cmath>
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
    float sum = 0;
    for (int lane = 0; lane < 16; lane++) sum += lanes[lane];
    for (size_t i = whole; i < width; i++) sum += x[i];
    const float mean = sum / width;
    v16 squares{};
    for (size_t i = 0; i < whole; i += 16) {
      const v16 d = load(x + i) - mean;
      squares += d * d;
    }
    float squared = 0;
    for (int lane = 0; lane < 16; lane++) squared += squares[lane];
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

// Each head is two multiplies on the float kernel: scores = (q·scale) · kᵀ, then softmax(scores) · v, with the
// head's keys and values packed into panels first. `scratch` is attentionScratch(t, depth) floats.
void attention(const float* qkv, float* out, size_t t, size_t width, size_t heads, float scale, float* scratch) {
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
    for (size_t i = 0; i < t; i++) {
      float* row = scores + i * t;
      float max = -INFINITY;
      for (size_t j = 0; j < t; j++) max = row[j] > max ? row[j] : max;
      float sum = 0;
      for (size_t j = 0; j < t; j++) {
        row[j] = std::exp(row[j] - max);
        sum += row[j];
      }
      const float inverse = 1 / sum;
      for (size_t j = 0; j < t; j++) row[j] *= inverse;
    }
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
