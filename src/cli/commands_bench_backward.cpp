// `qkv bench --backward`: the fused backward of multi-head attention timed beside the forward that
// keeps what it needs, each alone and the two together, against the machine's FMA peak, with the
// memory each takes and how time and memory grow with n; a table (or JSON).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "qkv/attention_backward.hpp"
#include "qkv/attention_fused.hpp"
#include "qkv/blas.hpp"
#include "qkv/kernel_builds.hpp"
#include "qkv/kernels.hpp"
#include "qkv/wrap.hpp"
#include "bench_common.hpp"

namespace qkv::cli {
namespace {

using json = nlohmann::ordered_json;

enum class pass { forward, backward, both };
constexpr pass passes[] = {pass::forward, pass::backward, pass::both};

const char* pass_name(pass p) { return p == pass::forward ? "forward" : p == pass::backward ? "backward" : "forward+backward"; }

struct pass_row {
    pass which;
    std::size_t n;
    double ms, gflops, percent_machine;
    std::size_t extra;
    std::optional<attention::backward_breakdown> breakdown;  // backward: one more run with the clock read by stages
};

double pass_flops(pass p, std::size_t n, const bench_args& b) {
    const double f = bench::attention_flops(n, b.d_model, b.causal), g = bench::backward_flops(n, b.d_model, b.causal);
    return p == pass::forward ? f : p == pass::backward ? g : f + g;
}

// Bytes beyond X, the weights, Z, dZ and the five gradients: what the forward keeps for the
// backward (Q, K, V, O and the log-sum-exps), and beside it the forward's or the backward's own
// working memory, whichever the pass needs (both: the larger, as one is freed before the other).
std::size_t pass_extra(pass p, std::size_t n, const bench_args& b) {
    const attention::options o = options_for(b, impl::fused);
    const std::size_t kept = 4 * n * b.d_model + b.heads * n, d = b.d_model;
    const std::size_t fwd = attention::fused_extra_floats(n, d, o), bwd = attention::backward_extra_floats(n, d, o);
    const std::size_t work = p == pass::forward ? fwd : p == pass::backward ? bwd : std::max(fwd, bwd);
    return (kept + work) * sizeof(float);
}

// The measurements from pass `from` at size index k on, in the order measure makes them.
std::vector<std::pair<std::string, std::size_t>> still_to_time(const bench_args& b, std::size_t k, pass from) {
    std::vector<std::pair<std::string, std::size_t>> out;
    for (std::size_t m = k; m < b.sizes.size(); ++m)
        for (pass p : passes)
            if (m > k || p >= from) out.emplace_back(pass_name(p), b.sizes[m]);
    return out;
}

// X, the weights, dZ and the five gradients as .npy files, for bench/compare_torch.py --backward.
void dump(const std::string& dir, std::size_t n, const bench::inputs& P, const matrix& dZ, const attention::gradients& g) {
    std::filesystem::create_directories(dir);
    const std::pair<std::string, const matrix*> files[] = {
        {fmt::format("X_n{}", n), &P.X},       {"W_Q", &P.W.W_Q},  {"W_K", &P.W.W_K},
        {"W_V", &P.W.W_V},                     {"W_O", &P.W.W_O},  {fmt::format("dZ_n{}", n), &dZ},
        {fmt::format("dX_n{}", n), &g.dX},     {fmt::format("dW_Q_n{}", n), &g.dW_Q},
        {fmt::format("dW_K_n{}", n), &g.dW_K}, {fmt::format("dW_V_n{}", n), &g.dW_V},
        {fmt::format("dW_O_n{}", n), &g.dW_O}};
    for (auto& [name, M] : files) bench::write_npy(dir + "/" + name + ".npy", *M);
}

std::vector<pass_row> measure(const console& io, const bench_args& b, const peaks& pk) {
    const status_line bar{io};
    const attention::options o = options_for(b, impl::fused);
    std::vector<pass_row> rows;
    time_left_estimate est;
    for (std::size_t k = 0; k < b.sizes.size(); ++k) {
        const std::size_t n = b.sizes[k];
        const bench::inputs P = bench::make_inputs(n, b.d_model);
        const matrix dZ = kernels::randn(n, b.d_model, 2025);  // [n, d]
        attention::saved_forward kept;  // the backward uses it up: kept again (in the same memory) before each
        auto keep = [&] { attention::forward_fused_keep(P.X, P.W, o, kept); };
        if (!b.dump_dir.empty()) {
            keep();
            dump(b.dump_dir, n, P, dZ, attention::backward_fused(P.X, P.W, kept, dZ, o));
        }
        keep();  // every timed forward then writes into memory an earlier one kept, as a training loop's do
        for (pass p : passes) {
            const std::string tail = est.tail(still_to_time(b, k, p));
            const auto t0 = std::chrono::steady_clock::now();
            const bench::timing t = bench::time_median(
                [&] {
                    if (p != pass::backward) keep();
                    if (p != pass::forward) attention::backward_fused(P.X, P.W, kept, dZ, o);
                },
                {.runs = b.repeats},
                [&](int run) { bar.show(fmt::format("{} n = {}: run {}{} …", pass_name(p), n, run, tail)); },
                p == pass::backward ? std::function<void()>(keep) : std::function<void()>{});
            est.done(pass_name(p), n, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
            const double gflops = pass_flops(p, n, b) / t.median_s / 1e9;
            rows.push_back({p, n, t.median_s * 1e3, gflops, 100 * gflops / pk.machine.gflops, pass_extra(p, n, b), {}});
            if (p == pass::backward && b.form == format::json) {  // where the time went, from one more run
                attention::options with_clock = o;
                with_clock.backward_times = &rows.back().breakdown.emplace();
                keep();
                attention::backward_fused(P.X, P.W, kept, dZ, with_clock);
            }
        }
    }
    bar.clear();
    return rows;
}

struct growth {
    std::optional<double> time, memory;
};

std::map<pass, growth> growths(const std::vector<pass_row>& rows) {
    std::map<pass, growth> out;
    for (pass p : passes) {
        std::vector<double> n, t, m;
        for (const pass_row& r : rows)
            if (r.which == p) n.push_back(double(r.n)), t.push_back(r.ms), m.push_back(double(r.extra));
        out[p] = {bench::growth_exponent(n, t), bench::growth_exponent(n, m)};
    }
    return out;
}

std::string exponent(const std::optional<double>& k) { return k ? fmt::format("{:.2f}", *k) : "–"; }

std::string render_text(const bench_args& b, const peaks& pk, const std::vector<pass_row>& rows) {
    const lang l = b.language;
    std::string out = fmt::format(
        fmt::runtime(pick(l, "qkv bench --backward：多头注意力的前向与反向，d_model = {0}，h = {1}（d_k = {2}），{3} 个线程，{4}\n",
                          "qkv bench --backward: multi-head attention forward and backward, d_model = {0}, h = {1} (d_k = {2}), {3} thread{5}, {4}\n")),
        b.d_model, b.heads, b.d_model / b.heads, b.threads,
        b.causal ? pick(l, "因果掩码", "causal mask") : pick(l, "无掩码", "no mask"), b.threads == 1 ? "" : "s");
    out += fmt::format(fmt::runtime(pick(l, "机器峰值：{0} 位 {1} 的乘加（FMA），{2} 个线程：{3:.1f} GFLOP/s\n",
                                         "machine peak: {0}-bit {1} fused multiply-adds on {2} thread{4}: {3:.1f} GFLOP/s\n")),
                       pk.machine.isa.bits, pk.machine.isa.name, pk.machine.threads, pk.machine.gflops,
                       pk.machine.threads == 1 ? "" : "s");
    out += fmt::format(fmt::runtime(pick(l, "乘积用 qkv 自己的 {} 分块内核", "products on qkv's own {} tile kernels")),
                       attention::fused_kernels_in_use());
    out = wrap_each_line(out, b.width, "  ") + "\n";  // the header's facts fit the terminal; the table is 71 columns
    out += fmt::format("{:<18} {:>6} {:>11} {:>9} {:>9} {:>13}\n", pick(l, "哪一遍", "pass"), "n", pick(l, "毫秒", "ms"),
                       "GFLOP/s", pick(l, "占机器", "% machine"), pick(l, "额外内存", "extra memory"));
    for (const pass_row& r : rows)
        out += fmt::format("{:<18} {:>6} {:>11.2f} {:>9.1f} {:>8.0f}% {:>13}\n", pass_name(r.which), r.n, r.ms, r.gflops,
                           r.percent_machine, bench::human_bytes(double(r.extra)));
    std::vector<std::string> t, m;
    for (auto& [p, g] : growths(rows)) {
        t.push_back(fmt::format("{} {}", pass_name(p), exponent(g.time)));
        m.push_back(fmt::format("{} {}", pass_name(p), exponent(g.memory)));
    }
    out += "\n" + wrap_each_line(fmt::format(fmt::runtime(pick(l, "增长指数（∝ n^k，对 log 与 log n 做最小二乘）：时间 {}；额外内存 {}",
                                                             "growth exponent (∝ n^k, least squares on log n): time {}; extra memory {}")),
                                         fmt::join(t, ", "), fmt::join(m, ", ")), b.width, "  ") + "\n";
    return out + reflowed(pick(l,
                      "GFLOP/s 只数公式的工作：前向是四个投影和两个 n × n 乘积；反向是八个投影乘积和 dV、dA、dQ、dK 四个 n × n 乘积"
                      "（有掩码时减半）。融合的反向重算一遍分数，那一个乘积不算在内。额外内存包括前向为反向留下的 Q、K、V、O 和每行的 log-sum-exp，"
                      "没有一个 n × n 矩阵。\n",
                      "GFLOP/s count the formulas' work only: the forward's four projections and two n × n products; the "
                      "backward's eight projection products and the four n × n products dV, dA, dQ and dK (half of those "
                      "under the mask). The fused backward computes the scores again; that product is not counted. Extra "
                      "memory includes what the forward keeps for the backward (Q, K, V, O and each row's log-sum-exp): "
                      "no n × n matrix."), b.width);
}

// Shares of the backward's processor time by stage, from one run with the threads' clocks on, and
// the share of its wall time × threads that the threads ran.
json breakdown_json(const attention::backward_breakdown& b) {
    const std::pair<const char*, double> stages[] = {
        {"output_gradient", b.output_grad}, {"weight_gradients", b.weight_grads}, {"input_gradient", b.input_grad},
        {"row_dots", b.row_dots},           {"copies", b.copies},                 {"scores", b.scores},
        {"dP", b.dP},                       {"softmax_exps", b.exps},             {"dV", b.dV},
        {"dK", b.dK},                       {"dQ", b.dQ}};
    double cpu = 0;
    for (auto& [name, s] : stages) cpu += s;
    json j = {{"thread_cpu_seconds", cpu}};
    for (auto& [name, s] : stages) j[name] = cpu > 0 ? s / cpu : 0.0;
    j["running"] = b.wall > 0 ? cpu / (b.wall * b.threads) : 0.0;
    return j;
}

std::string render_json(const bench_args& b, const peaks& pk, const std::vector<pass_row>& rows) {
    json j;
    j["machine_peak_gflops"] = pk.machine.gflops;
    j["machine_isa"] = {{"name", pk.machine.isa.name}, {"bits", pk.machine.isa.bits}};
    j["fused_kernels"] = attention::fused_kernels_in_use();
    j["causal"] = b.causal;
    j["results"] = json::array();
    for (const pass_row& r : rows) {
        j["results"].push_back({{"pass", pass_name(r.which)}, {"n", r.n}, {"d_model", b.d_model}, {"heads", b.heads},
                                {"threads", b.threads}, {"ms", r.ms}, {"gflops", r.gflops},
                                {"percent_of_machine_peak", r.percent_machine}, {"extra_bytes", r.extra}});
        if (r.breakdown) j["results"].back()["breakdown"] = breakdown_json(*r.breakdown);
    }
    auto num = [](const std::optional<double>& k) { return k ? json(*k) : json(nullptr); };
    for (auto& [p, g] : growths(rows)) {
        j["growth_exponent"][pass_name(p)] = num(g.time);
        j["memory_growth_exponent"][pass_name(p)] = num(g.memory);
    }
    return j.dump(2) + "\n";
}

}  // namespace

int run_backward(const console& io, const bench_args& b) {
    for (std::size_t n : b.sizes)
        check_memory(bench::io_bytes(n, b.d_model) * 4 + pass_extra(pass::both, n, b),
                     fmt::format("the backward at n = {}", n), b);
    const status_line bar{io};
    bar.show(fmt::format("measuring the machine's FMA peak on {} …", threads_text(b.threads)));
    peaks pk;  // the machine's only: the fused passes run on qkv's own kernels, not OpenBLAS's sgemm
    pk.machine = bench::measure_machine_peak(b.threads);
    bar.clear();
    const blas::scoped_threads one(1);
    const std::vector<pass_row> rows = measure(io, b, pk);
    io.print(b.form == format::json ? render_json(b, pk, rows) : render_text(b, pk, rows));
    return 0;
}

}  // namespace qkv::cli
