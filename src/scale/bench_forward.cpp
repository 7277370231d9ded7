// `qkv bench`'s forward measurement (bench_forward.hpp): the peaks, then each implementation at
// each n, its median time set beside them; the growth in n; where the fused pass's time went.
#include "qkv/bench_forward.hpp"

#include <chrono>
#include <string>
#include <utility>

#include "qkv/blas.hpp"
#include "qkv/bench_dump.hpp"

namespace qkv::bench {

using attention::impl;

fused_shares shares_of(const attention::fused_breakdown& b, double exps_in_scores) {
    const double cpu = b.pack + b.project_kv + b.project_q + b.scores + b.exps + b.weighted + b.output;
    auto share = [&](double s) { return cpu > 0 ? s / cpu : 0.0; };
    return {.thread_cpu_seconds = cpu,
            .pack_weights = share(b.pack),
            .project_k_v = share(b.project_kv),
            .project_q = share(b.project_q),
            .scores = share(b.scores),
            .softmax_exps = share(b.exps),
            .weighted_sum = share(b.weighted),
            .output_projection = share(b.output),
            .running = b.wall > 0 ? cpu / (b.wall * b.threads) : 0.0,
            .idle_tile_slots = b.idle_slots,
            .exps_in_scores = exps_in_scores};
}

namespace {

// The measurements from implementation i at size n on, in the order measure_forward makes them.
std::vector<std::pair<std::string, std::size_t>> still_to_time(const setup& s, std::size_t n, impl i) {
    std::vector<std::pair<std::string, std::size_t>> out;
    bool from = false;
    for (std::size_t m : s.sizes)
        for (impl j : s.impls)
            if ((from |= m == n && j == i)) out.emplace_back(attention::impl_name(j), m);
    return out;
}

}  // namespace

forward_result measure_forward(const setup& s, const progress_fn& progress) {
    forward_result r{.asked = s, .peak = measure_peaks(s.threads, true, progress), .rows = {}, .growth = {}};
    const blas::scoped_threads one(1);  // the fused kernel runs its own threads; blas sets OpenBLAS's when it runs
    std::map<impl, std::vector<double>> ns, ts;  // per implementation: n, and its median seconds
    time_left_estimate est;
    for (std::size_t n : s.sizes) {
        const inputs P = make_inputs(n, s.d_model);
        if (!s.dump_dir.empty()) dump_inputs(s.dump_dir, n, P);
        for (impl i : s.impls) {
            const attention::options o = options_for(s, i);
            const std::optional<double> left = est.seconds(still_to_time(s, n, i));
            const auto t0 = std::chrono::steady_clock::now();
            matrix Z;  // [n, d_model]
            const timing t = time_median(
                [&] { Z = attention::forward(i, P.X, P.W, o); }, {.runs = s.repeats}, [&](int k) {
                    if (progress)
                        progress({.what = progress::step::timing, .name = attention::impl_name(i), .n = n, .run = k,
                                  .of = 0, .seconds_left = left});
                });
            est.done(std::string(attention::impl_name(i)), n,
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
            const double gflops = attention_flops(n, s.d_model, s.causal) / t.median_s / 1e9;
            r.rows.push_back({i, n, o.threads, t.median_s * 1e3, gflops, 100 * gflops / r.peak.sgemm.gflops,
                              100 * gflops / r.peak.machine.gflops, attention::extra_bytes(i, n, s.d_model, o), {}});
            if (i == impl::fused && s.breakdown) {  // where the time went, from one more run
                attention::fused_breakdown b;
                attention::options with_clock = o;
                with_clock.breakdown = &b;
                attention::forward(i, P.X, P.W, with_clock);
                r.rows.back().breakdown = shares_of(b, exps_in_scores(n, s.d_model, o));
            }
            ns[i].push_back(double(n));
            ts[i].push_back(t.median_s);
            if (!s.dump_dir.empty()) write_npy(s.dump_dir + "/" + z_dump(i, n), Z);
        }
    }
    for (impl i : s.impls) r.growth[i] = growth_exponent(ns[i], ts[i]);
    return r;
}

}  // namespace qkv::bench
