// Which of qkv's kernel builds this processor runs. The kernels (tile_kernels.hpp, row_kernels.hpp)
// come in three builds, widest first: "avx512" (AVX-512 F, VL, BW and DQ), "avx2" (AVX2 and FMA)
// and "plain" (the compiler's baseline, which every processor runs).
#pragma once

#include <string_view>

namespace qkv::attention {

// Whether this processor runs the build `build`; false for a name that is none of the three.
// The one CPU-feature test: the kernels' choice of build and the machine's peak
// (machine_peak.hpp) both ask it.
bool cpu_runs(std::string_view build);

}  // namespace qkv::attention
