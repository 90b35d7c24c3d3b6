{
  "targets": [
    {
      "target_name": "agentry_gemm",
      "sources": ["native/gemm.cc"],
      "cflags_cc": ["-O3", "-std=c++17", "-Wno-psabi"],
      "cflags_cc!": ["-fno-exceptions"],
      "xcode_settings": { "OTHER_CPLUSPLUSFLAGS": ["-O3", "-std=c++17"] }
    }
  ]
}
