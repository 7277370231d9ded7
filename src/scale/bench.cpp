// Measurement for `qkv bench`: medians, the sgemm peak, FLOP counts, growth exponents, KV-cache
// decode timings and .npy dumps. Only numbers come out; the command words them.
#include "qkv/bench.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "qkv/attention_fused.hpp"
#include "qkv/blas.hpp"
#include "qkv/error.hpp"
#include "qkv/kernels.hpp"
#include "qkv/kv_cache.hpp"
#include "qkv/npy.hpp"
#include "qkv/tile_kernels.hpp"

#include "fused_plan.hpp"

namespace qkv::bench {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

matrix scaled(matrix M, float c) {
    for (float& x : M.data) x *= c;
    return M;
}

}  // namespace

double attention_flops(std::size_t n, std::size_t d, bool causal) {
    const double N = double(n), D = double(d);
    const double projections = 4 * 2 * N * D * D;       // Q, K, V and the output W_O
    const double scores_and_sum = 2 * (2 * N * N * D);  // Q K^T and A V, over all heads
    return projections + (causal ? 0.5 : 1.0) * scores_and_sum;
}

double backward_flops(std::size_t n, std::size_t d, bool causal) {
    const double N = double(n), D = double(d);
    return 8 * 2 * N * D * D + (causal ? 0.5 : 1.0) * 4 * (2 * N * N * D);
}

inputs make_inputs(std::size_t n, std::size_t d, std::uint64_t seed) {
    // N(0, 1/d) weights keep Q, K, V entries near unit size, so the softmax is neither flat nor one-hot
    const float c = 1.0f / std::sqrt(float(d));
    return {kernels::randn(n, d, seed),
            {scaled(kernels::randn(d, d, seed + 1), c), scaled(kernels::randn(d, d, seed + 2), c),
             scaled(kernels::randn(d, d, seed + 3), c), scaled(kernels::randn(d, d, seed + 4), c)}};
}

std::size_t io_bytes(std::size_t n, std::size_t d) { return (2 * n * d + 4 * d * d) * sizeof(float); }

timing time_median(const std::function<void()>& fn, const repeat_policy& p, const std::function<void(int)>& before_run,
                   const std::function<void()>& prepare) {
    if (before_run) before_run(1);
    if (prepare) prepare();
    auto t0 = std::chrono::steady_clock::now();
    fn();
    const double first = seconds_since(t0);
    // a very short call is timed in batches of calls, so clock resolution and one interrupt do
    // not decide its median
    const int batch =
        first < 2e-3 && !prepare ? int(std::min(1000.0, std::ceil(2e-3 / std::max(first, 1e-7)))) : 1;
    std::vector<double> runs;
    if (first >= 0.25 && batch == 1) runs.push_back(first);  // else a warm-up: first touches of memory, thread start-up
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
        const int k = int(runs.size());
        const double spent = seconds_since(start);
        if (p.runs > 0 ? k >= p.runs
                       : k >= p.max_runs || (k >= p.min_runs && spent >= p.min_seconds) || (k >= 1 && spent >= p.max_seconds))
            break;
        if (before_run) before_run(k + 1);
        if (prepare) prepare();
        t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < batch; ++i) fn();
        runs.push_back(seconds_since(t0) / batch);
    }
    return {median(runs), int(runs.size())};
}

peak measure_peak(int threads, std::size_t size) {
    const int saved = blas::threads();
    blas::set_threads(threads);
    const matrix A = kernels::randn(size, size, 1), B = kernels::randn(size, size, 2);  // [size, size]
    matrix C;
    const double flops = 2.0 * double(size) * double(size) * double(size);
    double best = 0;
    for (int round = 0; round < 3; ++round) {  // three medians of three: a busy moment cannot set the peak
        const timing t = time_median([&] { blas::gemm(C, A, blas::trans::no, B, blas::trans::no); }, {.runs = 3});
        best = std::max(best, flops / t.median_s / 1e9);
    }
    blas::set_threads(saved);
    return {best, size, threads};
}

double exps_in_scores(std::size_t n, std::size_t d_model, const attention::options& o) {
    const attention::fused_plan p = attention::plan_fused(n, d_model, o);
    const std::size_t bq = std::min(p.bq, n), bk = std::min(p.bk, n);
    const matrix Q = kernels::randn(bq, p.d_k, 7), Kt = kernels::randn(p.d_k, bk, 8);  // [bq, d_k], [d_k, bk]
    const attention::detail::operand_b B = attention::detail::rows_of(Kt.data.data(), bk);
    matrix S(bq, bk);
    std::vector<float> m(bq), sum(bq);
    auto plain = [&] {
        attention::detail::tile_gemm(bq, bk, p.d_k, 1.0f, Q.data.data(), p.d_k, B, false, S.data.data(), bk);
    };
    auto finished = [&] {
        attention::detail::tile_gemm_exp2(bq, bk, p.d_k, 1.0f, Q.data.data(), p.d_k, B, m.data(), S.data.data(), bk,
                                          sum.data());
    };
    plain();  // each row's offset its max, as the running max is, so that 2^(s − m) ≤ 1
    for (std::size_t i = 0; i < bq; ++i)
        m[i] = *std::max_element(S.data.begin() + i * bk, S.data.begin() + (i + 1) * bk);
    // batches of 1–2 ms (their calls counted at 50 GFLOP/s), alternating, so both meet the same clock speed
    const int calls = std::max(1, int(2e-3 / std::max(1e-7, 2.0 * bq * bk * p.d_k / 50e9)));
    auto batch = [&](auto& f) {
        const auto t0 = std::chrono::steady_clock::now();
        for (int c = 0; c < calls; ++c) f();
        return seconds_since(t0);
    };
    double best_plain = 1e300, best_finished = 1e300;
    for (int round = 0; round < 12; ++round) {
        best_plain = std::min(best_plain, batch(plain));
        best_finished = std::min(best_finished, batch(finished));
    }
    return 1.0 - best_plain / best_finished;
}

std::optional<double> growth_exponent(const std::vector<double>& n, const std::vector<double>& t) {
    // slope = cov(log n, log t) / var(log n)
    const std::size_t m = std::min(n.size(), t.size());
    double sx = 0, sy = 0;
    for (std::size_t i = 0; i < m; ++i) sx += std::log(n[i]), sy += std::log(t[i]);
    const double mx = sx / double(m), my = sy / double(m);
    double sxy = 0, sxx = 0;
    for (std::size_t i = 0; i < m; ++i) {
        sxy += (std::log(n[i]) - mx) * (std::log(t[i]) - my);
        sxx += (std::log(n[i]) - mx) * (std::log(n[i]) - mx);
    }
    if (m < 2 || sxx < 1e-12) return std::nullopt;
    return sxy / sxx;
}

std::vector<std::size_t> decode_positions(std::size_t tokens) {
    std::vector<std::size_t> out;
    for (std::size_t p = 64; p < tokens; p *= 2) {
        out.push_back(p);
        if (p * 3 / 2 < tokens) out.push_back(p * 3 / 2);
    }
    out.push_back(tokens);
    return out;
}

decode_point time_decode_at(const inputs& P, std::size_t heads, std::size_t position, int threads,
                            const repeat_policy& rp) {
    const std::size_t d = P.X.cols;
    const matrix before(position - 1, d, std::vector<float>(P.X.data.begin(), P.X.data.begin() + (position - 1) * d));
    const matrix x(1, d, std::vector<float>(P.X.row(position - 1), P.X.row(position - 1) + d));  // x: [1, d]
    attention::kv_cache cache(position, d);
    attention::prefill(cache, before, P.W);
    blas::set_threads(1);  // one token's products are too small to share
    const timing cached = time_median([&] {
        cache.len = position - 1;  // forget the step just timed: the next run repeats it
        attention::decode_step(cache, x, P.W, heads);
    }, rp);
    const matrix prefix(position, d, std::vector<float>(P.X.data.begin(), P.X.data.begin() + position * d));
    attention::options o;
    o.heads = heads;
    o.causal = true;
    o.threads = threads;
    const timing uncached = time_median([&] { attention::forward_fused(prefix, P.W, o); }, rp);
    return {position, cached.median_s, uncached.median_s};
}

std::string human_bytes(double b) {
    if (b < 1024) return fmt::format("{:.0f} B", b);
    if (b < 1024.0 * 1024) return fmt::format("{:.1f} KiB", b / 1024);
    if (b < 1024.0 * 1024 * 1024) return fmt::format("{:.1f} MiB", b / 1024 / 1024);
    return fmt::format("{:.1f} GiB", b / 1024 / 1024 / 1024);
}

void write_npy(const std::string& path, const matrix& M) {
    if (auto problem = qkv::write_npy(path, M.data.data(), M.rows, M.cols)) throw input_error(source_loc{path}, *problem);
}

}  // namespace qkv::bench
