// The parts of the fused attention at their own speeds: `tile_kernels_speed [BUILD ...]` times each
// block product the fused forward and backward make (at d_model = 512, h = 8: d_k = 64, query
// blocks of 516 rows forward and 64 backward, key blocks of 256), on each build named (default:
// every build this processor runs), and sets each beside that build's FMA peak. Times are the
// thread's CPU time, best of seven batches of about 0.1 s: on a shared machine a figure is then
// what the kernel does while it runs, not how long it waited. The sum of the parts at these
// speeds bounds what the whole pass can reach. A benchmark: it prints figures and judges none.
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "qkv/kernel_builds.hpp"
#include "qkv/kernels.hpp"
#include "qkv/tile_kernels.hpp"

namespace {

namespace detail = qkv::attention::detail;

double thread_seconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// Calls of f that take about 0.02 s of CPU time (after one call to warm the caches).
int calls_for(const std::function<void()>& f) {
    f();
    int calls = 1;
    for (double t0 = thread_seconds(); thread_seconds() - t0 < 0.02; ++calls) f();
    return calls;
}

double gflops(double flops, int calls, const std::function<void()>& f) {
    const double t0 = thread_seconds();
    for (int c = 0; c < calls; ++c) f();
    return flops * calls / (thread_seconds() - t0) / 1e9;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// f's GFLOP/s (the best of eleven batches of about 0.1 s of CPU time) and its share of the FMA
// peak: each batch of f is set beside a batch of the peak loop run just before it, and the share
// is the median of the eleven ratios. A virtual machine's clock moves with its neighbours' load
// by 10 % and more from second to second; two batches a few tenths of a second apart see nearly
// the same clock, where a peak measured once at the start would not.
struct rated {
    double gflops, share;
};
rated rate(double flops, const std::function<void()>& f, double peak_flops, const std::function<void()>& peak) {
    const int calls = 5 * calls_for(f), peak_calls = 5 * calls_for(peak);
    double best = 0;
    std::vector<double> shares;
    for (int batch = 0; batch < 11; ++batch) {
        const double p = gflops(peak_flops, peak_calls, peak), g = gflops(flops, calls, f);
        best = std::max(best, g);
        shares.push_back(g / p);
    }
    return {best, median(shares)};
}

std::vector<float> randn(std::size_t r, std::size_t c, std::uint64_t seed) { return qkv::kernels::randn(r, c, seed).data; }

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> builds;
    for (int i = 1; i < argc; ++i) builds.emplace_back(argv[i]);
    if (builds.empty())
        for (const qkv::attention::kernel_build& b : qkv::attention::kernel_builds())
            if (b.cpu_runs()) builds.emplace_back(b.name);
    const std::size_t d = 512, dk = 64, bq = 516, bk = 256, kld = bk + 16, bqb = 64;
    // forward: Q [bq, dk], K^T block [dk, kld], S [bq, bk], V block [bk, dk], Z [bq, d] (head's columns), X [bk, d], W packed
    const auto Q = randn(bq, dk, 1), Kt = randn(dk, kld, 2), V = randn(bk, dk, 3), X = randn(bk, d, 4), W = randn(d, d, 5);
    std::vector<float> S(bq * bk), Z(bq * d), m(bq, 6.0f), sum(bq), KV(bk * d), Wp(detail::packed_floats(d, d));
    const detail::operand_b Wpk = detail::pack_panels(d, d, W.data(), d, Wp.data());
    // backward: Q, dO [bqb, dk], P, dS [bqb, kld], K [bk, dk], dK, dV [bk, dk], dQ [bqb, dk]
    const auto dO = randn(bqb, dk, 7), K = randn(bk, dk, 8), D = randn(bqb, 1, 9);
    std::vector<float> P(bqb * kld), dS(bqb * kld), dK(bk * dk), dQ(bqb * dk), lse(bqb, 6.0f);
    for (const std::string& name : builds) {
        const qkv::attention::kernel_build* b = qkv::attention::find_kernel_build(name);
        if (!b || !qkv::attention::use_kernels(name)) {
            std::printf("%s: not a build this processor runs\n", name.c_str());
            continue;
        }
        // the build's FMA peak by the same clock: its loop of 12 independent chains, 2 flops a lane
        const long iters = 1 << 20;
        const double peak_flops = 2.0 * 12 * (b->bits / 32) * double(iters);
        const std::function<void()> peak = [&] {
            volatile float keep = b->fma_loop(iters);
            (void)keep;
        };
        std::vector<double> peaks;
        for (int batch = 0; batch < 11; ++batch) peaks.push_back(gflops(peak_flops, 5 * calls_for(peak), peak));
        std::printf("%s: FMA peak %.1f GFLOP/s (1 thread, CPU time; median of 11 batches, %.1f to %.1f)\n",
                    name.c_str(), median(peaks), *std::min_element(peaks.begin(), peaks.end()),
                    *std::max_element(peaks.begin(), peaks.end()));
        auto row = [&](const char* what, double flops, const std::function<void()>& f) {
            const rated r = rate(flops, f, peak_flops, peak);
            std::printf("  %-44s %6.1f GFLOP/s  %5.1f %% of peak\n", what, r.gflops, 100 * r.share);
        };
        const double fwd = 2.0 * bq * bk * dk, bwd = 2.0 * bqb * bk * dk;
        row("scores S = Q·K^T, stored", fwd, [&] {
            detail::tile_gemm(bq, bk, dk, 1.0f, Q.data(), dk, detail::rows_of(Kt.data(), kld), false, S.data(), bk);
        });
        row("scores finished: 2^(S − m) and row sums", fwd, [&] {
            detail::tile_gemm_exp2(bq, bk, dk, 1.0f, Q.data(), dk, detail::rows_of(Kt.data(), kld), m.data(), S.data(), bk,
                                   sum.data());
        });
        std::fill(S.begin(), S.end(), 0.01f);
        row("weighted sum Z += P·V", fwd, [&] {
            detail::tile_gemm(bq, dk, bk, 1.0f, S.data(), bk, detail::rows_of(V.data(), dk), true, Z.data(), d);
        });
        row("projection [256, 512]·[512, 512] packed", 2.0 * bk * d * d, [&] {
            detail::tile_gemm(bk, d, d, 1.0f, X.data(), d, Wpk, false, KV.data(), d);
        });
        row("backward P = 2^(s·α − lse), 64 rows", bwd, [&] {
            detail::tile_gemm_exp2(bqb, bk, dk, 0.18f, Q.data(), dk, detail::rows_of(Kt.data(), kld), lse.data(), P.data(), kld);
        });
        row("backward dS = P ⊙ (dO·V^T − D)", bwd, [&] {
            detail::tile_gemm_times(bqb, bk, dk, dO.data(), dk, detail::rows_of(Kt.data(), kld), D.data(), P.data(), kld,
                                    dS.data(), kld);
        });
        row("backward dK (+)= dS^T·Q (A transposed)", bwd, [&] {
            detail::tile_gemm_ta(bk, dk, bqb, 1.0f, dS.data(), kld, detail::rows_of(Q.data(), dk), true, dK.data(), dk);
        });
        row("backward dQ += dS·K", bwd, [&] {
            detail::tile_gemm(bqb, dk, bk, 1.0f, dS.data(), kld, detail::rows_of(K.data(), dk), true, dQ.data(), dk);
        });
    }
    return 0;
}
