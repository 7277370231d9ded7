// `qkv bench --backward`'s measurement (bench_backward.hpp): the forward that keeps what it needs,
// the backward, and both, at each n; their growth in n; where the backward's time went.
#include "qkv/bench_backward.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <utility>

#include "qkv/attention_fused.hpp"
#include "qkv/bench_dump.hpp"
#include "qkv/blas.hpp"
#include "qkv/kernels.hpp"

namespace qkv::bench {

using attention::impl;

std::string_view pass_name(pass p) { return p == pass::forward ? "forward" : p == pass::backward ? "backward" : "forward+backward"; }

backward_shares shares_of(const attention::backward_breakdown& b) {
    // summed in the order the stages are listed, from 0, as the JSON has always added them
    double cpu = 0;
    for (double s : {b.output_grad, b.weight_grads, b.input_grad, b.row_dots, b.copies, b.scores, b.dP, b.exps, b.dV, b.dK, b.dQ})
        cpu += s;
    auto share = [&](double s) { return cpu > 0 ? s / cpu : 0.0; };
    return {.thread_cpu_seconds = cpu,
            .output_gradient = share(b.output_grad),
            .weight_gradients = share(b.weight_grads),
            .input_gradient = share(b.input_grad),
            .row_dots = share(b.row_dots),
            .copies = share(b.copies),
            .scores = share(b.scores),
            .dP = share(b.dP),
            .softmax_exps = share(b.exps),
            .dV = share(b.dV),
            .dK = share(b.dK),
            .dQ = share(b.dQ),
            .running = b.wall > 0 ? cpu / (b.wall * b.threads) : 0.0};
}

double pass_flops(pass p, std::size_t n, const setup& s) {
    const double f = attention_flops(n, s.d_model, s.causal), g = backward_flops(n, s.d_model, s.causal);
    return p == pass::forward ? f : p == pass::backward ? g : f + g;
}

std::size_t pass_extra_bytes(pass p, std::size_t n, const setup& s) {
    const attention::options o = options_for(s, impl::fused);
    const std::size_t kept = 4 * n * s.d_model + s.heads * n, d = s.d_model;
    const std::size_t fwd = attention::fused_extra_floats(n, d, o), bwd = attention::backward_extra_floats(n, d, o);
    const std::size_t work = p == pass::forward ? fwd : p == pass::backward ? bwd : std::max(fwd, bwd);
    return (kept + work) * sizeof(float);
}

namespace {

// The measurements from pass `from` at size index k on, in the order measure_backward makes them.
std::vector<std::pair<std::string, std::size_t>> still_to_time(const setup& s, std::size_t k, pass from) {
    std::vector<std::pair<std::string, std::size_t>> out;
    for (std::size_t m = k; m < s.sizes.size(); ++m)
        for (pass p : passes)
            if (m > k || p >= from) out.emplace_back(pass_name(p), s.sizes[m]);
    return out;
}

std::map<pass, growth> growths_of(const std::vector<pass_row>& rows) {
    std::map<pass, growth> out;
    for (pass p : passes) {
        std::vector<double> n, t, m;
        for (const pass_row& r : rows)
            if (r.which == p) n.push_back(double(r.n)), t.push_back(r.ms), m.push_back(double(r.extra_bytes));
        out[p] = {growth_exponent(n, t), growth_exponent(n, m)};
    }
    return out;
}

}  // namespace

backward_result measure_backward(const setup& s, const progress_fn& progress) {
    backward_result r{.asked = s, .peak = measure_peaks(s.threads, false, progress), .rows = {}, .growths = {}};
    const blas::scoped_threads one(1);
    const attention::options o = options_for(s, impl::fused);
    time_left_estimate est;
    for (std::size_t k = 0; k < s.sizes.size(); ++k) {
        const std::size_t n = s.sizes[k];
        const inputs P = make_inputs(n, s.d_model);
        const matrix dZ = kernels::randn(n, s.d_model, 2025);  // [n, d]
        attention::saved_forward kept;  // the backward uses it up: kept again (in the same memory) before each
        auto keep = [&] { attention::forward_fused_keep(P.X, P.W, o, kept); };
        if (!s.dump_dir.empty()) {
            keep();
            dump_gradients(s.dump_dir, n, P, dZ, attention::backward_fused(P.X, P.W, kept, dZ, o));
        }
        keep();  // every timed forward then writes into memory an earlier one kept, as a training loop's do
        for (pass p : passes) {
            const std::optional<double> left = est.seconds(still_to_time(s, k, p));
            const auto t0 = std::chrono::steady_clock::now();
            const timing t = time_median(
                [&] {
                    if (p != pass::backward) keep();
                    if (p != pass::forward) attention::backward_fused(P.X, P.W, kept, dZ, o);
                },
                {.runs = s.repeats},
                [&](int run) {
                    if (progress)
                        progress({.what = progress::step::timing, .name = pass_name(p), .n = n, .run = run, .of = 0,
                                  .seconds_left = left});
                },
                p == pass::backward ? std::function<void()>(keep) : std::function<void()>{});
            est.done(std::string(pass_name(p)), n, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
            const double gflops = pass_flops(p, n, s) / t.median_s / 1e9;
            r.rows.push_back({p, n, t.median_s * 1e3, gflops, 100 * gflops / r.peak.machine.gflops, pass_extra_bytes(p, n, s), {}});
            if (p == pass::backward && s.breakdown) {  // where the time went, from one more run
                attention::backward_breakdown b;
                attention::options with_clock = o;
                with_clock.backward_times = &b;
                keep();
                attention::backward_fused(P.X, P.W, kept, dZ, with_clock);
                r.rows.back().breakdown = shares_of(b);
            }
        }
    }
    r.growths = growths_of(r.rows);
    return r;
}

}  // namespace qkv::bench
