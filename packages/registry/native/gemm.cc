// A small float32 matrix multiply for the USE-lite encoder (src/search/embeddings/use-lite-*.ts), exposed to
// Node through N-API. TF.js's WASM kernels ran the model at about 15 GFLOP/s, and its batched matmul (attention)
// at under 1; this runs at several times that by using the machine's own vector units. The kernel is written with
// GCC/Clang vector extensions, so it compiles everywhere; on x86-64 it is cloned for AVX-512 and AVX2+FMA and the
// best clone is picked at load time.
//
//   matmul(a, b, c, m, k, n, bias | null, relu): c[m×n] = a[m×k] · b[k×n] (+ bias[n]) (then max(0, ·))
//
// a and c are row-major Float32Arrays; b is packed in panels of PANEL (32) columns, each panel k rows of 32
// contiguous floats, the last zero-padded (packColumns in matmul-panels.ts), so the kernel reads it in order.
// The module also exports PANEL.
#include <node_api.h>

#include <cstddef>
#include <cstring>

namespace {

typedef float v16 __attribute__((vector_size(64), aligned(4), may_alias));

// A register tile: MR rows of C by NR columns, accumulated over all of k (16 vector accumulators with AVX-512).
constexpr int MR = 8;
constexpr size_t NR = 32;

inline __attribute__((always_inline)) v16 load(const float* p) {
  v16 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

inline __attribute__((always_inline)) void store(float* p, v16 v) { std::memcpy(p, &v, sizeof v); }

inline __attribute__((always_inline)) void tile(const float* a, size_t lda, const float* b, size_t ldb, float* c,
                                                size_t ldc, size_t k, int rows, const float* bias, bool relu) {
  v16 acc[MR][2];
  for (int r = 0; r < MR; r++) acc[r][0] = acc[r][1] = v16{};
  for (size_t p = 0; p < k; p++) {
    const v16 b0 = load(b + p * ldb);
    const v16 b1 = load(b + p * ldb + 16);
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
  for (int r = 0; r < MR; r++) {
    if (r < rows) {
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
}

#if defined(__x86_64__) && !defined(__clang__)
#define AGENTRY_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define AGENTRY_CLONES
#endif

AGENTRY_CLONES void gemm(const float* a, const float* b, float* c, size_t m, size_t k, size_t n, const float* bias,
                         bool relu) {
  const size_t panels = (n + NR - 1) / NR;
  for (size_t j = 0; j < panels; j++) {
    const float* panel = b + j * k * NR;
    const size_t width = n - j * NR < NR ? n - j * NR : NR;
    float padded[NR] = {};
    const float* panelBias = nullptr;
    if (bias != nullptr && width == NR) panelBias = bias + j * NR;
    if (bias != nullptr && width < NR) {
      std::memcpy(padded, bias + j * NR, width * sizeof(float));
      panelBias = padded;
    }
    for (size_t i = 0; i < m; i += MR) {
      const int rows = m - i < static_cast<size_t>(MR) ? static_cast<int>(m - i) : MR;
      if (width == NR) {
        tile(a + i * k, k, panel, NR, c + i * n + j * NR, n, k, rows, panelBias, relu);
      } else {
        // The last panel is narrower: multiplied into a buffer, and its valid columns copied out.
        float out[MR * NR];
        tile(a + i * k, k, panel, NR, out, NR, k, rows, panelBias, relu);
        for (int r = 0; r < rows; r++) std::memcpy(c + (i + r) * n + j * NR, out + r * NR, width * sizeof(float));
      }
    }
  }
}

size_t packedLength(size_t k, size_t n) { return (n + NR - 1) / NR * NR * k; }

bool floats(napi_env env, napi_value value, float** data, size_t* length) {
  bool isTyped = false;
  if (napi_is_typedarray(env, value, &isTyped) != napi_ok || !isTyped) return false;
  napi_typedarray_type type;
  void* raw = nullptr;
  if (napi_get_typedarray_info(env, value, &type, length, &raw, nullptr, nullptr) != napi_ok) return false;
  if (type != napi_float32_array) return false;
  *data = static_cast<float*>(raw);
  return true;
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

napi_value Matmul(napi_env env, napi_callback_info info) {
  size_t argc = 8;
  napi_value argv[8];
  if (napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr) != napi_ok || argc != 8) {
    return fail(env, "matmul(a, b, c, m, k, n, bias, relu) takes 8 arguments");
  }
  float *a, *b, *c, *bias = nullptr;
  size_t aLength, bLength, cLength, biasLength = 0, m, k, n;
  if (!floats(env, argv[0], &a, &aLength) || !floats(env, argv[1], &b, &bLength) ||
      !floats(env, argv[2], &c, &cLength)) {
    return fail(env, "matmul: a, b and c must be Float32Arrays");
  }
  if (!dimension(env, argv[3], &m) || !dimension(env, argv[4], &k) || !dimension(env, argv[5], &n)) {
    return fail(env, "matmul: m, k and n must be non-negative integers");
  }
  napi_valuetype biasType;
  napi_typeof(env, argv[6], &biasType);
  if (biasType != napi_null && biasType != napi_undefined && !floats(env, argv[6], &bias, &biasLength)) {
    return fail(env, "matmul: bias must be a Float32Array or null");
  }
  bool relu = false;
  if (napi_get_value_bool(env, argv[7], &relu) != napi_ok) return fail(env, "matmul: relu must be a boolean");
  if (aLength < m * k || bLength < packedLength(k, n) || cLength < m * n || (bias != nullptr && biasLength < n)) {
    return fail(env, "matmul: an array is shorter than its dimensions");
  }
  if (m == 0 || n == 0) return nullptr;
  gemm(a, b, c, m, k, n, bias, relu);
  return nullptr;
}

napi_value Init(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "matmul", NAPI_AUTO_LENGTH, Matmul, nullptr, &fn);
  napi_set_named_property(env, exports, "matmul", fn);
  napi_value panel;
  napi_create_uint32(env, NR, &panel);
  napi_set_named_property(env, exports, "PANEL", panel);
  return exports;
}

}  // namespace

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
