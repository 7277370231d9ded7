// qkv's own kernels (tile_kernels.hpp, row_kernels.hpp) come in three builds, widest first:
// "avx512" (AVX-512 F, VL, BW and DQ), "avx2" (AVX2 and FMA) and "plain" (the compiler's
// baseline). Which of them this processor runs, which is in use, and how to pin one.
#pragma once

#include <string_view>

namespace qkv::attention {

// Whether this processor runs the build `build`; false for a name that is none of the three.
// The one CPU-feature test: the kernels' choice of build and the machine's peak
// (machine_peak.hpp) both ask it.
bool cpu_runs(std::string_view build);

// The build of the tile kernels forward_fused runs on: the widest this processor runs, unless
// pinned; never OpenBLAS's.
std::string_view fused_kernels_in_use();

// Pins qkv's own kernels (the fused products and every softmax's exps) to the build `build`;
// false, and nothing changed, when this processor cannot run it.
bool use_kernels(std::string_view build);

}  // namespace qkv::attention
