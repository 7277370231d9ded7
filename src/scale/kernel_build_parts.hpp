// Private to attention at scale: each build's own code, defined beside the rest of its family
// (tile_kernels.cpp, row_kernels.cpp, machine_peak.cpp) and gathered into the table of builds by
// kernel_builds.cpp. The x86 builds exist only where the compiler targets x86-64, the NEON one only
// where it targets arm64.
#pragma once

#include "qkv/kernel_builds.hpp"

namespace qkv::attention::detail {

#if defined(__x86_64__)
extern const tile_kernels avx512_tiles, avx2_tiles;
extern const row_kernels avx512_rows, avx2_rows;
float fma_loop_avx512(long iters);
float fma_loop_avx2(long iters);
#endif
#if defined(__aarch64__)
extern const tile_kernels neon_tiles;
#endif

extern const tile_kernels plain_tiles;
extern const row_kernels plain_rows;
float fma_loop_plain(long iters);

}  // namespace qkv::attention::detail
