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

#include "qkv/kernel_builds.hpp"

#include "kernel_build_parts.hpp"

namespace qkv::attention::detail {
namespace {

constexpr int chains = 12;

// Four, eight or sixteen floats as one value: GCC turns the arithmetic on them into SSE, AVX2 or
// AVX-512 instructions, whichever build the loop is inlined into (hence always_inline), and
// contracts acc·a + b into one FMA where the build has FMA.
using vf4 = float __attribute__((vector_size(16)));
using vf8 = float __attribute__((vector_size(32)));
using vf16 = float __attribute__((vector_size(64)));

template <class V>
[[gnu::always_inline]] inline float fma_loop(long iters) {
    V acc[chains];
    for (int k = 0; k < chains; ++k) acc[k] = V{} + (0.5f + 0.01f * k);
    const V a = V{} + 0.999999f, b = V{} + 1e-6f;
    for (long i = 0; i < iters; ++i)
        for (int k = 0; k < chains; ++k) acc[k] = acc[k] * a + b;  // counted as 2 flops, fused or not
    V sum = acc[0];
    for (int k = 1; k < chains; ++k) sum += acc[k];
    float total = 0;
    for (std::size_t j = 0; j < sizeof(V) / sizeof(float); ++j) total += sum[j];
    return total;
}

}  // namespace

// each build's loop, for the table of builds (kernel_builds.cpp)
#if defined(__x86_64__)
[[gnu::target("arch=x86-64-v4")]] float fma_loop_avx512(long iters) { return fma_loop<vf16>(iters); }
[[gnu::target("arch=x86-64-v3")]] float fma_loop_avx2(long iters) { return fma_loop<vf8>(iters); }
#endif
float fma_loop_plain(long iters) { return fma_loop<vf4>(iters); }

}  // namespace qkv::attention::detail

namespace qkv::bench {
namespace {

using attention::detail::chains;

// the loop of the build the isa is named after
float run_loop(const vector_isa& isa, long iters) {
    const attention::kernel_build* b = attention::find_kernel_build(isa.name);
    return (b ? *b : attention::widest_kernel_build()).fma_loop(iters);
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
    // the kernels' own choice (kernel_builds.hpp): the peak is measured on the build they run on
    const attention::kernel_build& b = attention::widest_kernel_build();
    return {std::string(b.name), b.bits / 32, b.bits};
}

vector_isa kernels_isa() {
    const attention::kernel_build* b = attention::find_kernel_build(attention::fused_kernels_in_use());
    if (!b) return widest_isa();
    return {std::string(b->name), b->bits / 32, b->bits};
}

machine_peak measure_machine_peak(int threads) {
    machine_peak p{0, std::max(threads, 1), kernels_isa()};
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
