// The machine's FMA peak (machine_peak.hpp). Twelve independent accumulators per thread: more
// than an FMA unit's latency (4 cycles) times the units (2), so the loop is bound by throughput,
// not by waiting for results. acc = acc·a + b with a just under 1 settles near b/(1 − a): no
// overflow, no denormals, whatever the iteration count.
#include "qkv/machine_peak.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <thread>
#include <vector>

#include "qkv/cpu_features.hpp"

#if defined(__x86_64__)
#include "x86_intrinsics.hpp"
#endif

namespace qkv::bench {
namespace {

constexpr int chains = 12;

#if defined(__x86_64__)
[[gnu::target("arch=x86-64-v4")]] float fma_loop_avx512(long iters) {
    __m512 acc[chains];
    for (int k = 0; k < chains; ++k) acc[k] = _mm512_set1_ps(0.5f + 0.01f * k);
    const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-6f);
    for (long i = 0; i < iters; ++i)
        for (int k = 0; k < chains; ++k) acc[k] = _mm512_fmadd_ps(acc[k], a, b);
    __m512 sum = acc[0];
    for (int k = 1; k < chains; ++k) sum = _mm512_add_ps(sum, acc[k]);
    return _mm512_reduce_add_ps(sum);
}

[[gnu::target("arch=x86-64-v3")]] float fma_loop_avx2(long iters) {
    __m256 acc[chains];
    for (int k = 0; k < chains; ++k) acc[k] = _mm256_set1_ps(0.5f + 0.01f * k);
    const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-6f);
    for (long i = 0; i < iters; ++i)
        for (int k = 0; k < chains; ++k) acc[k] = _mm256_fmadd_ps(acc[k], a, b);
    __m256 sum = acc[0];
    for (int k = 1; k < chains; ++k) sum = _mm256_add_ps(sum, acc[k]);
    float out[8];
    _mm256_storeu_ps(out, sum);
    return out[0] + out[1] + out[2] + out[3] + out[4] + out[5] + out[6] + out[7];
}
#endif

using vf4 = float __attribute__((vector_size(16)));

float fma_loop_plain(long iters) {
    vf4 acc[chains];
    for (int k = 0; k < chains; ++k) acc[k] = vf4{} + (0.5f + 0.01f * k);
    const vf4 a = vf4{} + 0.999999f, b = vf4{} + 1e-6f;
    for (long i = 0; i < iters; ++i)
        for (int k = 0; k < chains; ++k) acc[k] = acc[k] * a + b;  // counted as 2 flops, fused or not
    vf4 sum = acc[0];
    for (int k = 1; k < chains; ++k) sum += acc[k];
    return sum[0] + sum[1] + sum[2] + sum[3];
}

float run_loop(const vector_isa& isa, long iters) {
#if defined(__x86_64__)
    if (isa.name == "avx512") return fma_loop_avx512(iters);
    if (isa.name == "avx2") return fma_loop_avx2(iters);
#endif
    return fma_loop_plain(iters);
}

// Seconds for `threads` threads each running the loop `iters` times, started together.
double timed(const vector_isa& isa, long iters, int threads) {
    std::vector<float> sink(static_cast<std::size_t>(threads));
    std::vector<std::thread> pool;
    const auto start = std::chrono::steady_clock::now();
    for (int t = 0; t < threads; ++t) pool.emplace_back([&, t] { sink[static_cast<std::size_t>(t)] = run_loop(isa, iters); });
    for (std::thread& t : pool) t.join();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    volatile float keep = sink[0];  // the loop's result is used: the compiler may not drop it
    (void)keep;
    return s;
}

}  // namespace

vector_isa widest_isa() {
    // the kernels' own test (cpu_features.hpp): the peak is measured on the build they run on
    if (attention::cpu_runs("avx512")) return {"avx512", 16, 512};
    if (attention::cpu_runs("avx2")) return {"avx2", 8, 256};
    return {"plain", 4, 128};
}

machine_peak measure_machine_peak(int threads) {
    machine_peak p{0, std::max(threads, 1), widest_isa()};
    long iters = 1 << 16;
    while (timed(p.isa, iters, 1) < 0.02 && iters < (1L << 34)) iters *= 2;  // about 0.02 s, then five times that
    iters *= 5;
    const double flops = 2.0 * chains * p.isa.lanes * double(iters) * p.threads;
    for (int round = 0; round < 3; ++round) p.gflops = std::max(p.gflops, flops / timed(p.isa, iters, p.threads) / 1e9);
    return p;
}

int kernel_bits(const std::string& corename) {
    std::string n = corename;
    std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const char* k : {"skylakex", "cooperlake", "sapphirerapids", "zen4", "zen5"})
        if (n.find(k) != std::string::npos) return 512;
    for (const char* k : {"haswell", "zen", "excavator", "steamroller", "piledriver", "bulldozer", "sandybridge"})
        if (n.find(k) != std::string::npos) return 256;
    for (const char* k : {"nehalem", "core2", "penryn", "dunnington", "prescott", "atom", "barcelona", "opteron", "katmai"})
        if (n.find(k) != std::string::npos) return 128;
    return 0;
}

}  // namespace qkv::bench
