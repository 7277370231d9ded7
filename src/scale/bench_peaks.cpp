// The peaks a bench sets its timings beside (bench_peaks.hpp).
#include "qkv/bench_peaks.hpp"

#include "qkv/blas.hpp"
#include "qkv/kernel_builds.hpp"

namespace qkv::bench {

peaks measure_peaks(int threads, bool sgemm, const progress_fn& progress) {
    auto tell = [&](progress::step s) {
        if (progress) progress({.what = s, .name = {}, .n = 0, .run = 0, .of = 0, .seconds_left = {}});
    };
    peaks pk;
    tell(progress::step::machine_peak);
    pk.machine = measure_machine_peak(threads);
    if (sgemm) {
        tell(progress::step::sgemm_peak);
        pk.sgemm = measure_peak(threads);
    }
    pk.corename = blas::corename();
    pk.kernel_bits = kernel_bits(pk.corename);
    pk.fused_kernels = attention::fused_kernels_in_use();
    return pk;
}

}  // namespace qkv::bench
