// Which kernel builds this processor runs (cpu_features.hpp), asked of the processor itself: CPUID,
// and whether the system saves the wider registers.
#include "qkv/cpu_features.hpp"

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

}  // namespace qkv::attention
