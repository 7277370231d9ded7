// Which kernel builds this processor runs (kernel_builds.hpp), asked of the processor itself
// (CPUID, and whether the system saves the wider registers), and the two kernel tables pinned together.
#include "qkv/kernel_builds.hpp"

#include "qkv/row_kernels.hpp"
#include "qkv/tile_kernels.hpp"

namespace qkv::attention {

bool cpu_runs(std::string_view build) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    // the AVX-512 builds are compiled for F, VL, BW and DQ together (x86-64-v4): all four, or none
    if (build == "avx512")
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq");
    if (build == "avx2") return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
    return build == "plain";
}

std::string_view fused_kernels_in_use() { return detail::tile_kernels_in_use(); }

bool use_kernels(std::string_view build) {
    // both or neither: each refuses only a build this processor cannot run, and that is the same test
    return cpu_runs(build) && detail::use_tile_kernels(build) && detail::use_row_kernels(build);
}

}  // namespace qkv::attention
