// The float32 and int8 kernels of the USE-lite encoder (src/use-lite/use-lite-encoder.ts).
#pragma once

#include <cstddef>
#include <cstdint>

namespace agentry {

// Columns in a panel of a packed right-hand matrix: each panel is k rows of PANEL contiguous values (the last panel
// zero-padded), so a multiply reads a weight matrix in order.
constexpr size_t PANEL = 32;

// c[m×n] = a[m×k] · b[k×n] (+ bias[n]) (then max(0, ·)); a and c row-major, b in float panels.
void gemmF32(const float* a, const float* b, float* c, size_t m, size_t k, size_t n, const float* bias, bool relu);

// Which tile gemmF32 runs on this CPU: "avx512", "avx2" or "portable".
const char* gemmF32Kernel();

// Whether gemmInt8 runs on this CPU (AVX-512 VNNI, or AVX2), and on which: "avx512-vnni", "avx2" or "none".
bool int8Supported();
const char* int8Kernel();

// Quantises a row-major k×n float matrix (k a multiple of 4, n of PANEL) for gemmInt8: each column scaled by its
// largest magnitude to [-127, 127] (scales[n]), packed in panels of PANEL columns by groups of 4 rows (packed[k·n]),
// with each column's sum of quantised values (sums[n]).
void quantizeColumns(const float* b, size_t k, size_t n, int8_t* packed, float* scales, int32_t* sums);

// c = a · b as gemmF32, with b quantised by quantizeColumns and each row of a quantised on the fly over its own
// range (to 8 bits on VNNI, 7 on AVX2); products are summed exactly in int32 and scaled back. The scratch holds m·k
// bytes, m scales and m zero points.
void gemmInt8(const float* a, const int8_t* b, const float* scales, const int32_t* sums, float* c, size_t m, size_t k,
              size_t n, const float* bias, bool relu, uint8_t* rowScratch, float* rowScales, int32_t* rowZeros);

// Whether this CPU has the bfloat16 dot product (AVX-512 BF16) that gemmBf16 needs.
bool bf16Supported();

// Rounds a row-major k×n float matrix (k even, n a multiple of PANEL) to bfloat16 for gemmBf16, in panels of PANEL
// columns by pairs of rows (packed[k·n]).
void packBf16(const float* b, size_t k, size_t n, uint16_t* packed);

// c = a · b as gemmF32, with b from packBf16 and each row of a rounded to bfloat16 into the scratch (m·k values);
// products are summed in float32.
void gemmBf16(const float* a, const uint16_t* b, float* c, size_t m, size_t k, size_t n, const float* bias, bool relu,
              uint16_t* rowScratch);

// Normalises each row of input[rows × width] into output: (x - mean) / sqrt(variance + epsilon) · scale + bias.
// With a residual (rows × width, else null), input += residual first, and input keeps the sum: the transformer's
// residual connection and the normalisation after it in one pass.
void layerNorm(float* input, float* output, size_t rows, size_t width, const float* scale, const float* bias,
               double epsilon, const float* residual);

// out[width] = the mean of the rows of matrix[rows × width] (zeros when rows is 0).
void meanRows(const float* matrix, size_t rows, size_t width, float* out);

// Self-attention of t tokens from fused projections qkv[t × 3·width] (query, key, value side by side) into
// out[t × width]: for each of `heads` heads, softmax((q·scale)·kᵀ)·v. `scratch` holds attentionScratch(t, depth)
// floats, depth = width / heads.
void attention(const float* qkv, float* out, size_t t, size_t width, size_t heads, float scale, float* scratch);
size_t attentionScratch(size_t t, size_t depth);

}  // namespace agentry
