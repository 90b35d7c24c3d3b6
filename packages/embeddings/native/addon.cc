// The encoder's kernels (kernels.h) as a Node addon, through N-API. Every array is checked against the dimensions
// it is given before a kernel reads it; a misfit throws a TypeError.
//
//   matmul(a, b, c, m, k, n, bias | null, relu)        c[m×n] = a[m×k] · b[k×n] (+ bias) (then max(0, ·)), b in
//                                                       float panels (packColumns in native-kernels.ts)
//   quantizeColumns(b, k, n, packed, scales, sums)      b row-major → int8 panels, for matmulInt8
//   matmulInt8(a, packed, scales, sums, c, m, k, n, bias | null, relu)
//   packBf16(b, k, n, packed)                           b row-major → bfloat16 panels, for matmulBf16
//   matmulBf16(a, packed, c, m, k, n, bias | null, relu)
//   layerNorm(input, output, rows, width, scale, bias, epsilon, residual | null)
//                                                       (with a residual, input += residual first)
//   meanRows(matrix, rows, width, out)                  out[width] = the mean of the rows
//   attention(qkv, out, t, width, heads, scale)
//   PANEL                                               columns in a panel (32)
//   floatKernel                                         the register tile matmul runs ("avx512", "avx2", "portable")
//   int8, int8Kernel                                    whether matmulInt8 can run on this CPU, and on what
//                                                       ("avx512-vnni", "avx2", "none")
//   bf16                                                whether matmulBf16 can run on this CPU (AVX-512 BF16)
#include <node_api.h>

#include <vector>

#include "kernels.h"

namespace {

using agentry::PANEL;

template <typename T>
bool array(napi_env env, napi_value value, napi_typedarray_type want, T** data, size_t* length) {
  bool isTyped = false;
  if (napi_is_typedarray(env, value, &isTyped) != napi_ok || !isTyped) return false;
  napi_typedarray_type type;
  void* raw = nullptr;
  if (napi_get_typedarray_info(env, value, &type, length, &raw, nullptr, nullptr) != napi_ok) return false;
  if (type != want) return false;
  *data = static_cast<T*>(raw);
  return true;
}

bool floats(napi_env env, napi_value value, float** data, size_t* length) {
  return array(env, value, napi_float32_array, data, length);
}

bool dimension(napi_env env, napi_value value, size_t* out) {
  double number = 0;
  if (napi_get_value_double(env, value, &number) != napi_ok) return false;
  if (!(number >= 0 && number <= 1 << 24) || number != static_cast<double>(static_cast<size_t>(number))) return false;
  *out = static_cast<size_t>(number);
  return true;
}

napi_value fail(napi_env env, const char* message) {
  napi_throw_type_error(env, nullptr, message);
  return nullptr;
}

bool arguments(napi_env env, napi_callback_info info, size_t count, napi_value* argv) {
  size_t argc = count;
  return napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr) == napi_ok && argc == count;
}

// A Float32Array of at least `length`, or null/undefined (nullptr).
bool optionalFloats(napi_env env, napi_value value, size_t length, float** data) {
  napi_valuetype type;
  napi_typeof(env, value, &type);
  *data = nullptr;
  if (type == napi_null || type == napi_undefined) return true;
  size_t actual = 0;
  return floats(env, value, data, &actual) && actual >= length;
}

size_t packedLength(size_t k, size_t n) { return (n + PANEL - 1) / PANEL * PANEL * k; }

napi_value Matmul(napi_env env, napi_callback_info info) {
  napi_value argv[8];
  if (!arguments(env, info, 8, argv)) return fail(env, "matmul(a, b, c, m, k, n, bias, relu) takes 8 arguments");
  float *a, *b, *c, *bias;
  size_t aLength, bLength, cLength, m, k, n;
  if (!floats(env, argv[0], &a, &aLength) || !floats(env, argv[1], &b, &bLength) ||
      !floats(env, argv[2], &c, &cLength)) {
    return fail(env, "matmul: a, b and c must be Float32Arrays");
  }
  if (!dimension(env, argv[3], &m) || !dimension(env, argv[4], &k) || !dimension(env, argv[5], &n)) {
    return fail(env, "matmul: m, k and n must be non-negative integers");
  }
  if (!optionalFloats(env, argv[6], n, &bias)) return fail(env, "matmul: bias must be null or n floats");
  bool relu = false;
  if (napi_get_value_bool(env, argv[7], &relu) != napi_ok) return fail(env, "matmul: relu must be a boolean");
  if (aLength < m * k || bLength < packedLength(k, n) || cLength < m * n) {
    return fail(env, "matmul: an array is shorter than its dimensions");
  }
  if (m > 0 && n > 0) agentry::gemmF32(a, b, c, m, k, n, bias, relu);
  return nullptr;
}

napi_value QuantizeColumns(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  if (!arguments(env, info, 6, argv)) {
    return fail(env, "quantizeColumns(b, k, n, packed, scales, sums) takes 6 arguments");
  }
  float *b, *scales;
  int8_t* packed;
  int32_t* sums;
  size_t bLength, packedLength, scalesLength, sumsLength, k, n;
  if (!floats(env, argv[0], &b, &bLength) || !array(env, argv[3], napi_int8_array, &packed, &packedLength) ||
      !floats(env, argv[4], &scales, &scalesLength) || !array(env, argv[5], napi_int32_array, &sums, &sumsLength)) {
    return fail(env, "quantizeColumns: b and scales must be Float32Arrays, packed an Int8Array, sums an Int32Array");
  }
  if (!dimension(env, argv[1], &k) || !dimension(env, argv[2], &n) || k % 4 != 0 || n % PANEL != 0) {
    return fail(env, "quantizeColumns: k must be a multiple of 4 and n of 32");
  }
  if (bLength < k * n || packedLength < k * n || scalesLength < n || sumsLength < n) {
    return fail(env, "quantizeColumns: an array is shorter than its dimensions");
  }
  agentry::quantizeColumns(b, k, n, packed, scales, sums);
  return nullptr;
}

napi_value MatmulInt8(napi_env env, napi_callback_info info) {
  napi_value argv[10];
  if (!arguments(env, info, 10, argv)) {
    return fail(env, "matmulInt8(a, packed, scales, sums, c, m, k, n, bias, relu) takes 10 arguments");
  }
  if (!agentry::int8Supported()) return fail(env, "matmulInt8: this CPU has neither AVX-512 VNNI nor AVX2");
  float *a, *scales, *c, *bias;
  int8_t* packed;
  int32_t* sums;
  size_t aLength, packedLength, scalesLength, sumsLength, cLength, m, k, n;
  if (!floats(env, argv[0], &a, &aLength) || !array(env, argv[1], napi_int8_array, &packed, &packedLength) ||
      !floats(env, argv[2], &scales, &scalesLength) || !array(env, argv[3], napi_int32_array, &sums, &sumsLength) ||
      !floats(env, argv[4], &c, &cLength)) {
    return fail(env, "matmulInt8: a, scales and c must be Float32Arrays, packed an Int8Array, sums an Int32Array");
  }
  if (!dimension(env, argv[5], &m) || !dimension(env, argv[6], &k) || !dimension(env, argv[7], &n) || k % 4 != 0 ||
      n % PANEL != 0) {
    return fail(env, "matmulInt8: m must be a non-negative integer, k a multiple of 4 and n of 32");
  }
  if (!optionalFloats(env, argv[8], n, &bias)) return fail(env, "matmulInt8: bias must be null or n floats");
  bool relu = false;
  if (napi_get_value_bool(env, argv[9], &relu) != napi_ok) return fail(env, "matmulInt8: relu must be a boolean");
  if (aLength < m * k || packedLength < k * n || scalesLength < n || sumsLength < n || cLength < m * n) {
    return fail(env, "matmulInt8: an array is shorter than its dimensions");
  }
  if (m == 0 || n == 0) return nullptr;
  std::vector<uint8_t> rows(m * k);
  std::vector<float> rowScales(m);
  std::vector<int32_t> rowZeros(m);
  agentry::gemmInt8(a, packed, scales, sums, c, m, k, n, bias, relu, rows.data(), rowScales.data(), rowZeros.data());
  return nullptr;
}

napi_value PackBf16(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  if (!arguments(env, info, 4, argv)) return fail(env, "packBf16(b, k, n, packed) takes 4 arguments");
  float* b;
  uint16_t* packed;
  size_t bLength, packedLength, k, n;
  if (!floats(env, argv[0], &b, &bLength) || !array(env, argv[3], napi_uint16_array, &packed, &packedLength)) {
    return fail(env, "packBf16: b must be a Float32Array and packed a Uint16Array");
  }
  if (!dimension(env, argv[1], &k) || !dimension(env, argv[2], &n) || k % 2 != 0 || n % PANEL != 0) {
    return fail(env, "packBf16: k must be even and n a multiple of 32");
  }
  if (bLength < k * n || packedLength < k * n) return fail(env, "packBf16: an array is shorter than its dimensions");
  agentry::packBf16(b, k, n, packed);
  return nullptr;
}

napi_value MatmulBf16(napi_env env, napi_callback_info info) {
  napi_value argv[8];
  if (!arguments(env, info, 8, argv)) {
    return fail(env, "matmulBf16(a, packed, c, m, k, n, bias, relu) takes 8 arguments");
  }
  if (!agentry::bf16Supported()) return fail(env, "matmulBf16: this CPU has no AVX-512 BF16");
  float *a, *c, *bias;
  uint16_t* packed;
  size_t aLength, packedLength, cLength, m, k, n;
  if (!floats(env, argv[0], &a, &aLength) || !array(env, argv[1], napi_uint16_array, &packed, &packedLength) ||
      !floats(env, argv[2], &c, &cLength)) {
    return fail(env, "matmulBf16: a and c must be Float32Arrays, packed a Uint16Array");
  }
  if (!dimension(env, argv[3], &m) || !dimension(env, argv[4], &k) || !dimension(env, argv[5], &n) || k % 2 != 0 ||
      n % PANEL != 0) {
    return fail(env, "matmulBf16: m must be a non-negative integer, k even and n a multiple of 32");
  }
  if (!optionalFloats(env, argv[6], n, &bias)) return fail(env, "matmulBf16: bias must be null or n floats");
  bool relu = false;
  if (napi_get_value_bool(env, argv[7], &relu) != napi_ok) return fail(env, "matmulBf16: relu must be a boolean");
  if (aLength < m * k || packedLength < k * n || cLength < m * n) {
    return fail(env, "matmulBf16: an array is shorter than its dimensions");
  }
  if (m == 0 || n == 0) return nullptr;
  std::vector<uint16_t> rows(m * k);
  agentry::gemmBf16(a, packed, c, m, k, n, bias, relu, rows.data());
  return nullptr;
}

napi_value LayerNorm(napi_env env, napi_callback_info info) {
  napi_value argv[8];
  if (!arguments(env, info, 8, argv)) {
    return fail(env, "layerNorm(input, output, rows, width, scale, bias, epsilon, residual) takes 8 arguments");
  }
  float *input, *output, *scale, *bias, *residual = nullptr;
  size_t inputLength, outputLength, scaleLength, biasLength, residualLength = 0, rows, width;
  double epsilon = 0;
  if (!floats(env, argv[0], &input, &inputLength) || !floats(env, argv[1], &output, &outputLength) ||
      !floats(env, argv[4], &scale, &scaleLength) || !floats(env, argv[5], &bias, &biasLength)) {
    return fail(env, "layerNorm: input, output, scale and bias must be Float32Arrays");
  }
  napi_valuetype residualType;
  napi_typeof(env, argv[7], &residualType);
  if (residualType != napi_null && !floats(env, argv[7], &residual, &residualLength)) {
    return fail(env, "layerNorm: residual must be null or a Float32Array");
  }
  if (!dimension(env, argv[2], &rows) || !dimension(env, argv[3], &width)) {
    return fail(env, "layerNorm: rows and width must be non-negative integers");
  }
  if (napi_get_value_double(env, argv[6], &epsilon) != napi_ok || !(epsilon > 0)) {
    return fail(env, "layerNorm: epsilon must be a positive number");
  }
  if (inputLength < rows * width || outputLength < rows * width || scaleLength < width || biasLength < width ||
      (residual != nullptr && residualLength < rows * width)) {
    return fail(env, "layerNorm: an array is shorter than its dimensions");
  }
  agentry::layerNorm(input, output, rows, width, scale, bias, epsilon, residual);
  return nullptr;
}

napi_value MeanRows(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  if (!arguments(env, info, 4, argv)) return fail(env, "meanRows(matrix, rows, width, out) takes 4 arguments");
  float *matrix, *out;
  size_t matrixLength, outLength, rows, width;
  if (!floats(env, argv[0], &matrix, &matrixLength) || !floats(env, argv[3], &out, &outLength)) {
    return fail(env, "meanRows: matrix and out must be Float32Arrays");
  }
  if (!dimension(env, argv[1], &rows) || !dimension(env, argv[2], &width)) {
    return fail(env, "meanRows: rows and width must be non-negative integers");
  }
  if (matrixLength < rows * width || outLength < width) {
    return fail(env, "meanRows: an array is shorter than its dimensions");
  }
  agentry::meanRows(matrix, rows, width, out);
  return nullptr;
}

napi_value Attention(napi_env env, napi_callback_info info) {
  napi_value argv[6];
  if (!arguments(env, info, 6, argv)) return fail(env, "attention(qkv, out, t, width, heads, scale) takes 6 arguments");
  float *qkv, *out;
  size_t qkvLength, outLength, t, width, heads;
  double scale = 0;
  if (!floats(env, argv[0], &qkv, &qkvLength) || !floats(env, argv[1], &out, &outLength)) {
    return fail(env, "attention: qkv and out must be Float32Arrays");
  }
  if (!dimension(env, argv[2], &t) || !dimension(env, argv[3], &width) || !dimension(env, argv[4], &heads) ||
      heads == 0 || width % heads != 0) {
    return fail(env, "attention: t, width and heads must be non-negative integers, heads dividing width");
  }
  if (napi_get_value_double(env, argv[5], &scale) != napi_ok) return fail(env, "attention: scale must be a number");
  if (qkvLength < t * 3 * width || outLength < t * width) {
    return fail(env, "attention: an array is shorter than its dimensions");
  }
  std::vector<float> scratch(agentry::attentionScratch(t, width / heads));
  agentry::attention(qkv, out, t, width, heads, static_cast<float>(scale), scratch.data());
  return nullptr;
}

void exportFunction(napi_env env, napi_value exports, const char* name, napi_callback callback) {
  napi_value fn;
  napi_create_function(env, name, NAPI_AUTO_LENGTH, callback, nullptr, &fn);
  napi_set_named_property(env, exports, name, fn);
}

napi_value Init(napi_env env, napi_value exports) {
  exportFunction(env, exports, "matmul", Matmul);
  exportFunction(env, exports, "quantizeColumns", QuantizeColumns);
  exportFunction(env, exports, "matmulInt8", MatmulInt8);
  exportFunction(env, exports, "packBf16", PackBf16);
  exportFunction(env, exports, "matmulBf16", MatmulBf16);
  exportFunction(env, exports, "layerNorm", LayerNorm);
  exportFunction(env, exports, "meanRows", MeanRows);
  exportFunction(env, exports, "attention", Attention);
  napi_value panel, floatKernel, int8, int8Kernel, bf16;
  napi_create_uint32(env, PANEL, &panel);
  napi_set_named_property(env, exports, "PANEL", panel);
  napi_create_string_utf8(env, agentry::gemmF32Kernel(), NAPI_AUTO_LENGTH, &floatKernel);
  napi_set_named_property(env, exports, "floatKernel", floatKernel);
  napi_get_boolean(env, agentry::int8Supported(), &int8);
  napi_set_named_property(env, exports, "int8", int8);
  napi_create_string_utf8(env, agentry::int8Kernel(), NAPI_AUTO_LENGTH, &int8Kernel);
  napi_set_named_property(env, exports, "int8Kernel", int8Kernel);
  napi_get_boolean(env, agentry::bf16Supported(), &bf16);
  napi_set_named_property(env, exports, "bf16", bf16);
  return exports;
}

}  // namespace

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
