{
  "targets": [
    {
      "target_name": "agentry_kernels",
      "sources": ["native/addon.cc", "native/gemm_f32.cc", "native/gemm_int8.cc", "native/gemm_bf16.cc", "native/transformer.cc"],
      "cflags_cc": ["-O3", "-std=c++17", "-Wno-psabi", "-Wno-maybe-uninitialized"],
      "xcode_settings": { "OTHER_CPLUSPLUSFLAGS": ["-O3", "-std=c++17"] }
    }
  ]
}
