// `qkv bench` and `qkv bench kv`: time attention at scale on this machine against its own sgemm
// peak, and decoding with and without the KV cache; a table (or JSON) and what it shows.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "qkv/attention.hpp"
#include "qkv/attention_fused.hpp"
#include "qkv/bench.hpp"
#include "qkv/blas.hpp"
#include "qkv/cli.hpp"
#include "qkv/render_json.hpp"
#include "qkv/command_text.hpp"
#include "qkv/i18n.hpp"
#include "qkv/kernel_builds.hpp"
#include "qkv/loglog.hpp"
#include "qkv/machine_peak.hpp"
#include "qkv/memory.hpp"
#include "qkv/terminal.hpp"
#include "qkv/wrap.hpp"
#include "bench_common.hpp"

namespace qkv::cli {

void check_memory(std::size_t need, const std::string& what, const bench_args& b) {
    const auto have = available_memory();
    if (b.force || !have || double(need) <= 0.9 * double(*have)) return;
    throw usage_error(fmt::format("{} needs about {} of memory but {} is available; choose smaller sizes "
                                  "(or --impl fused), or add --force to try anyway",
                                  what, bench::human_bytes(double(need)), bench::human_bytes(double(*have))));
}

// "OpenBLAS kernel Haswell (256-bit; this CPU has 512-bit AVX-512: the sgemm peak leaves half the
// machine unused)".
std::string kernel_text(const peaks& p, lang l) {
    std::string out = fmt::format(fmt::runtime(pick(l, "OpenBLAS 内核 {}", "OpenBLAS kernel {}")), p.corename.empty() ? "?" : p.corename);
    if (p.kernel_bits) out += fmt::format(fmt::runtime(pick(l, "（{} 位）", " ({}-bit)")), p.kernel_bits);
    if (p.narrower())
        out += fmt::format(fmt::runtime(pick(l, "，比这颗 CPU 的 {} 位 {} 窄：sgemm 峰值没有用上整台机器",
                                             ", narrower than this CPU's {}-bit {}: the sgemm peak leaves part of the machine unused")),
                           p.machine.isa.bits, p.machine.isa.name);
    return out + fmt::format(fmt::runtime(pick(l, "\nfused 的乘积用 qkv 自己的 {} 分块内核，不用 OpenBLAS",
                                               "\nfused runs its products on qkv's own {} tile kernels, not OpenBLAS")),
                             attention::fused_kernels_in_use());
}

attention::options options_for(const bench_args& b, impl which) {
    attention::options o;
    o.heads = b.heads;
    o.causal = b.causal;
    o.threads = which == impl::reference ? 1 : b.threads;
    return o;
}

std::string time_left_estimate::tail(const std::vector<std::pair<std::string, std::size_t>>& todo) const {
    double s = 0;
    for (auto& [kind, n] : todo) {
        const auto it = per_n2_.find(kind);
        if (it == per_n2_.end()) return "";
        s += it->second * double(n) * double(n);
    }
    return ", " + time_left(s);
}

peaks measure_peaks(const status_line& line, int threads) {
    line.show(fmt::format("measuring the machine's FMA peak on {} …", threads_text(threads)));
    peaks pk;
    pk.machine = bench::measure_machine_peak(threads);
    line.show(fmt::format("measuring the sgemm peak on {} …", threads_text(threads)));
    pk.sgemm = bench::measure_peak(threads);
    pk.corename = blas::corename();
    pk.kernel_bits = bench::kernel_bits(pk.corename);
    return pk;
}

namespace {

namespace po = boost::program_options;
using json = nlohmann::ordered_json;


// "256,512,1024" -> {256, 512, 1024}
std::vector<std::size_t> parse_sizes(const std::string& list) {
    std::vector<std::size_t> out;
    std::size_t start = 0;
    while (start <= list.size()) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        const std::string item = list.substr(start, comma - start);
        std::size_t used = 0;
        long long v = 0;
        try { v = std::stoll(item, &used); } catch (const std::exception&) { used = 0; }
        if (item.empty() || used != item.size() || v < 1 || v > (1LL << 24))
            throw usage_error(fmt::format("--n wants sizes from 1 to {} separated by commas, not '{}'", 1 << 24, item));
        out.push_back(std::size_t(v));
        start = comma + 1;
    }
    return out;
}

std::vector<impl> parse_impls(const std::string& list) {
    std::vector<impl> out;
    std::size_t start = 0;
    while (start <= list.size()) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        const std::string item = list.substr(start, comma - start);
        auto i = attention::parse_impl(item);
        if (!i) throw usage_error(fmt::format("--impl wants reference, blas or fused (comma-separated), not '{}'", item));
        if (std::find(out.begin(), out.end(), *i) == out.end()) out.push_back(*i);
        start = comma + 1;
    }
    return out;
}



bench_args parse_bench_args(const console& io, const args& a, bool& help) {
    bench_args b;
    po::options_description desc("Options");
    add_help_option(desc);
    desc.add_options()
        ("mode", po::value(&b.mode), "kv: decoding with and without the KV cache")
        ("tensor-parallel", "under mpirun -np P: split by heads over the ranks (qkv bench --tensor-parallel --help)")
        ("n", po::value(&b.n_list)->default_value("256,512,1024,2048,4096"), "sequence lengths, comma-separated");
    add_shape_options(desc, b.d_model, b.heads);
    desc.add_options()
        ("threads", po::value(&b.threads)->default_value(1), "threads (fused: ours; blas: OpenBLAS's)")
        ("causal", po::bool_switch(&b.causal), "each token sees only itself and earlier ones")
        ("backward", po::bool_switch(&b.backward), "time the fused backward too: the forward that keeps what it needs, the backward, and both")
        ("impl", po::value(&b.impl_list)->default_value("blas,fused"), "reference, blas, fused (comma-separated; reference is slow)")
        ("repeats", po::value(&b.repeats)->default_value(0), "timed runs per size (0: enough for a stable median)")
        ("tokens", po::value(&b.tokens)->default_value(2048), "bench kv: tokens to decode")
        ("kernels", po::value(&b.kernels), fmt::format("qkv's own kernels (fused products, softmax exps): {} (default: the widest this CPU runs)",
                                                       attention::kernel_build_choice()).c_str())
        ("force", po::bool_switch(&b.force), "run sizes even when they look too big for memory");
    add_format_option(desc, b.format_name, "text or json");
    add_lang_option(desc, b.lang_name);
    desc.add_options()
        ("dump-dir", po::value(&b.dump_dir), "also write X, the weights and each output as .npy files here (bench/compare_torch.py)");
    po::positional_options_description pos;
    pos.add("mode", 1);
    po::variables_map vm;
    help = !parse(io, "bench", a, desc, pos, vm);
    if (help) return b;
    if (!b.mode.empty() && b.mode != "kv") throw usage_error(fmt::format("unknown mode '{}'; the one mode is kv", b.mode));
    // bench kv decodes --tokens one at a time, forward only: --n and --backward were taken and ignored
    if (b.mode == "kv")
        for (const char* o : {"n", "backward"})
            if (vm.count(o) && !vm[o].defaulted())
                throw usage_error(fmt::format("--{} is not for bench kv, which decodes --tokens tokens forward only", o));
    b.form = text_or_json(b.format_name);
    b.width = terminal::width(io.out_fd);
    b.language = language_of(b.lang_name);
    check_shape(b.d_model, b.heads, b.threads);
    if (b.repeats < 0 || b.repeats > 1000) throw usage_error("--repeats must be 0 to 1000");
    if (b.tokens < 2 || b.tokens > (1u << 20)) throw usage_error("--tokens must be 2 to 1048576");
    if (!b.kernels.empty() && !attention::use_kernels(b.kernels)) {
        if (!attention::find_kernel_build(b.kernels))
            throw usage_error(fmt::format("--kernels must be {}, not '{}'", attention::kernel_build_choice(), b.kernels));
        throw usage_error(fmt::format("--kernels {}: this processor cannot run them (it runs {})", b.kernels,
                                      attention::fused_kernels_in_use()));
    }
    b.sizes = parse_sizes(b.n_list);
    b.impls = parse_impls(b.impl_list);
    return b;
}

// --- the forward pass -----------------------------------------------------------------------------

struct row {
    impl which;
    std::size_t n;
    int threads;
    double ms, gflops, percent, percent_machine;  // of the sgemm peak, of the machine's FMA peak
    std::size_t extra;
    std::optional<attention::fused_breakdown> breakdown;  // fused: one more run with the clock read by stages
    double exps_in_scores = 0;                            // and what 2^x costs its scores (bench::exps_in_scores)
};

// Shares of the fused pass's processor time by stage, from one run with the threads' clocks on,
// and the share of its wall time × threads that the threads ran; then the share of the scores'
// products that 2^x takes, timed apart on one block.
json breakdown_json(const attention::fused_breakdown& b, double exps_in_scores) {
    const double cpu = b.pack + b.project_kv + b.project_q + b.scores + b.exps + b.weighted + b.output;
    auto share = [&](double s) { return cpu > 0 ? s / cpu : 0.0; };
    return {{"thread_cpu_seconds", cpu},
            {"pack_weights", share(b.pack)},
            {"project_k_v", share(b.project_kv)},
            {"project_q", share(b.project_q)},
            {"scores", share(b.scores)},
            {"softmax_exps", share(b.exps)},
            {"weighted_sum", share(b.weighted)},
            {"output_projection", share(b.output)},
            {"running", b.wall > 0 ? cpu / (b.wall * b.threads) : 0.0},
            {"idle_tile_slots", b.idle_slots},
            {"exps_in_scores", exps_in_scores}};
}

// The prose under the table, from lessons/prose/bench.toml.
std::string explain_forward(const bench_args& b) {
    auto has = [&](impl i) { return std::find(b.impls.begin(), b.impls.end(), i) != b.impls.end(); };
    auto text = [&](std::string_view key) -> const std::string& { return command_text("bench", key).in(b.language); };
    std::string out = fmt::format(fmt::runtime(text("work")), fmt::arg("causal", b.causal ? text("causal") : ""));
    if (has(impl::reference)) out += text("reference");
    if (has(impl::blas)) out += text("blas");
    if (has(impl::fused)) out += text("fused");
    return reflowed(out + text("percent"), b.width);
}

std::string render_forward_text(const bench_args& b, const peaks& pk, const std::vector<row>& rows,
                                const std::map<impl, std::optional<double>>& growth) {
    const lang l = b.language;
    const std::size_t d_k = b.d_model / b.heads;
    std::string out = fmt::format(
        fmt::runtime(pick(l, "qkv bench：多头注意力前向，d_model = {0}，h = {1}（d_k = {2}），{3} 个线程，{4}\n",
                          "qkv bench: multi-head attention forward, d_model = {0}, h = {1} (d_k = {2}), {3} thread{5}, {4}\n")),
        b.d_model, b.heads, d_k, b.threads, b.causal ? pick(l, "因果掩码", "causal mask") : pick(l, "无掩码", "no mask"),
        b.threads == 1 ? "" : "s");
    out += fmt::format(fmt::runtime(pick(l, "机器峰值：{0} 位 {1} 的乘加（FMA），{2} 个线程：{3:.1f} GFLOP/s\n",
                                         "machine peak: {0}-bit {1} fused multiply-adds on {2} thread{4}: {3:.1f} GFLOP/s\n")),
                       pk.machine.isa.bits, pk.machine.isa.name, pk.machine.threads, pk.machine.gflops, pk.machine.threads == 1 ? "" : "s");
    out += fmt::format(fmt::runtime(pick(l, "sgemm 峰值：OpenBLAS sgemm {0}×{0}×{0}，{1} 个线程：{2:.1f} GFLOP/s（机器峰值的 {3:.0f}%）\n",
                                         "sgemm peak: OpenBLAS sgemm {0}×{0}×{0} on {1} thread{4}: {2:.1f} GFLOP/s ({3:.0f}% of the machine's)\n")),
                       pk.sgemm.size, pk.sgemm.threads, pk.sgemm.gflops, 100 * pk.sgemm.gflops / pk.machine.gflops,
                       pk.sgemm.threads == 1 ? "" : "s");
    out = wrap_each_line(out + kernel_text(pk, l), b.width, "  ") + "\n";
    out += fmt::format("{:<10} {:>6} {:>11} {:>9} {:>8} {:>9} {:>13}\n", pick(l, "实现", "impl"), "n", pick(l, "毫秒", "ms"),
                       "GFLOP/s", pick(l, "占 sgemm", "% sgemm"), pick(l, "占机器", "% machine"), pick(l, "额外内存", "extra memory"));
    for (const row& r : rows)
        out += fmt::format("{:<10} {:>6} {:>11.2f} {:>9.1f} {:>7.0f}% {:>8.0f}% {:>13}\n", attention::impl_name(r.which), r.n, r.ms,
                           r.gflops, r.percent, r.percent_machine, bench::human_bytes(double(r.extra)));
    std::vector<std::string> parts;
    for (auto& [i, k] : growth)
        parts.push_back(fmt::format("{} {}", attention::impl_name(i), k ? fmt::format("{:.2f}", *k) : "–"));
    out += "\n" + wrap_each_line(fmt::format(fmt::runtime(pick(l, "增长指数（时间 ∝ n^k，对 log t 与 log n 做最小二乘）：{}",
                                                             "growth exponent (time ∝ n^k, least squares of log t on log n): {}")),
                                         fmt::join(parts, ", ")), b.width, "  ") + "\n";
    std::vector<loglog_series> series;  // time against n, one line per implementation
    for (auto& [i, k] : growth) {
        loglog_series s{std::string(attention::impl_name(i)), attention::impl_name(i)[0], {}, {}, k};
        for (const row& r : rows)
            if (r.which == i) s.x.push_back(double(r.n)), s.y.push_back(r.ms / 1e3);
        series.push_back(std::move(s));
    }
    std::vector<std::string> chart = loglog_lines(series, "n", pick(l, "每次前向的时间", "time per forward pass"), l, std::min<std::size_t>(80, b.width));
    for (const std::string& line : chart) out += line + "\n";
    if (!chart.empty()) out += "\n";
    return out + explain_forward(b);
}

std::string render_forward_json(const bench_args& b, const peaks& pk, const std::vector<row>& rows,
                                const std::map<impl, std::optional<double>>& growth) {
    json j;
    j["peak_gflops"] = pk.sgemm.gflops;
    j["machine_peak_gflops"] = pk.machine.gflops;
    j["machine_isa"] = {{"name", pk.machine.isa.name}, {"bits", pk.machine.isa.bits}};
    j["openblas_corename"] = pk.corename;
    j["openblas_kernel_bits"] = pk.kernel_bits ? json(pk.kernel_bits) : json(nullptr);
    j["openblas_kernel_narrower"] = pk.narrower();
    j["fused_kernels"] = attention::fused_kernels_in_use();
    j["results"] = json::array();
    for (const row& r : rows) {
        j["results"].push_back({{"impl", attention::impl_name(r.which)}, {"n", r.n}, {"d_model", b.d_model},
                                {"heads", b.heads}, {"threads", r.threads}, {"ms", r.ms}, {"gflops", r.gflops},
                                {"percent_of_peak", r.percent}, {"percent_of_machine_peak", r.percent_machine},
                                {"extra_bytes", r.extra}});
        if (r.breakdown) j["results"].back()["breakdown"] = breakdown_json(*r.breakdown, r.exps_in_scores);
    }
    j["growth_exponent"] = json::object();
    for (auto& [i, k] : growth) j["growth_exponent"][std::string(attention::impl_name(i))] = k ? json(*k) : json(nullptr);
    return render_json(j) + "\n";
}

// The measurements from implementation i at size n on, in the order run_forward makes them.
std::vector<std::pair<std::string, std::size_t>> still_to_time(const bench_args& b, std::size_t n, impl i) {
    std::vector<std::pair<std::string, std::size_t>> out;
    bool from = false;
    for (std::size_t m : b.sizes)
        for (impl j : b.impls)
            if ((from |= m == n && j == i)) out.emplace_back(attention::impl_name(j), m);
    return out;
}

// Every implementation at every n fits in memory, or the bench says which does not before it starts.
void check_forward_memory(const bench_args& b) {
    for (impl i : b.impls)
        for (std::size_t n : b.sizes) {
            const attention::options o = options_for(b, i);
            const std::size_t extra = attention::extra_bytes(i, n, b.d_model, o);
            check_memory(bench::io_bytes(n, b.d_model) + extra,
                         fmt::format("{} at n = {} (extra {})", attention::impl_name(i), n, bench::human_bytes(double(extra))), b);
        }
}

int run_forward(const console& io, const bench_args& b) {
    check_forward_memory(b);
    prepare_dump_dir(b);
    const status_line bar{io};
    const peaks pk = measure_peaks(bar, b.threads);
    const blas::scoped_threads one(1);  // the fused kernel runs its own threads; blas sets OpenBLAS's when it runs
    std::vector<row> rows;
    std::map<impl, std::vector<double>> ns, ts;
    time_left_estimate est;
    for (std::size_t n : b.sizes) {
        const bench::inputs P = bench::make_inputs(n, b.d_model);
        if (!b.dump_dir.empty()) dump_inputs(b, n, P);
        for (impl i : b.impls) {
            const attention::options o = options_for(b, i);
            const std::string left = est.tail(still_to_time(b, n, i));
            const auto t0 = std::chrono::steady_clock::now();
            matrix Z;
            const bench::timing t = bench::time_median(
                [&] { Z = attention::forward(i, P.X, P.W, o); }, {.runs = b.repeats},
                [&](int k) { bar.show(fmt::format("{} n = {}: run {}{} …", attention::impl_name(i), n, k, left)); });
            est.done(std::string(attention::impl_name(i)), n,
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
            const double gflops = bench::attention_flops(n, b.d_model, b.causal) / t.median_s / 1e9;
            rows.push_back({i, n, o.threads, t.median_s * 1e3, gflops, 100 * gflops / pk.sgemm.gflops,
                            100 * gflops / pk.machine.gflops, attention::extra_bytes(i, n, b.d_model, o), {}});
            if (i == impl::fused && b.form == format::json) {  // where the time went, from one more run
                attention::options with_clock = o;
                with_clock.breakdown = &rows.back().breakdown.emplace();
                attention::forward(i, P.X, P.W, with_clock);
                rows.back().exps_in_scores = bench::exps_in_scores(n, b.d_model, o);
            }
            ns[i].push_back(double(n));
            ts[i].push_back(t.median_s);
            if (!b.dump_dir.empty())
                bench::write_npy(b.dump_dir + "/" + z_dump(i, n), Z);
        }
    }
    bar.clear();
    std::map<impl, std::optional<double>> growth;
    for (impl i : b.impls) growth[i] = bench::growth_exponent(ns[i], ts[i]);
    io.print(b.form == format::json ? render_forward_json(b, pk, rows, growth) : render_forward_text(b, pk, rows, growth));
    return 0;
}

// --- decoding with and without the KV cache ---------------------------------------------------------

std::string explain_kv(const bench_args& b) { return reflowed(command_text("bench", "kv").in(b.language), b.width); }

int run_kv(const console& io, const bench_args& b) {
    const std::size_t T = b.tokens, d = b.d_model;
    attention::options o;
    o.heads = b.heads;
    o.causal = true;
    o.threads = b.threads;
    check_memory(bench::io_bytes(T, d) * 2 + attention::extra_bytes(impl::fused, T, d, o), fmt::format("decoding {} tokens", T), b);
    const status_line bar{io};
    const bench::inputs P = bench::make_inputs(T, d);
    std::vector<bench::decode_point> points;
    for (std::size_t p : bench::decode_positions(T)) {
        bar.show(fmt::format("decoding: token {} of {} …", p, T));
        points.push_back(bench::time_decode_at(P, b.heads, p, b.threads, {.runs = b.repeats}));
    }
    bar.clear();
    std::vector<double> pos, cached, uncached;
    for (auto& pt : points) pos.push_back(double(pt.position)), cached.push_back(pt.s_cached), uncached.push_back(pt.s_uncached);
    const auto k_cached = bench::growth_exponent(pos, cached), k_uncached = bench::growth_exponent(pos, uncached);
    auto num = [](const std::optional<double>& k) { return k ? json(*k) : json(nullptr); };
    if (b.form == format::json) {
        json j{{"d_model", d}, {"heads", b.heads}, {"threads", b.threads}, {"tokens", T}, {"positions", json::array()}};
        for (auto& pt : points)
            j["positions"].push_back({{"position", pt.position}, {"ms_with_cache", pt.s_cached * 1e3}, {"ms_without_cache", pt.s_uncached * 1e3}});
        j["growth_exponent"] = {{"with_cache", num(k_cached)}, {"without_cache", num(k_uncached)}};
        io.print(render_json(j) + "\n");
        return 0;
    }
    const lang l = b.language;
    std::string out = fmt::format(fmt::runtime(pick(l, "qkv bench kv：逐个解码 {} 个词，d_model = {}，h = {}，{} 个线程\n\n",
                                                    "qkv bench kv: decoding {} tokens one at a time, d_model = {}, h = {}, {}\n\n")),
                                  T, d, b.heads, l == lang::zh ? std::to_string(b.threads) : threads_text(b.threads));
    out += fmt::format("{:>8} {:>16} {:>18} {:>9}\n", pick(l, "位置", "position"), pick(l, "有缓存 ms", "with cache ms"),
                       pick(l, "无缓存 ms", "without cache ms"), pick(l, "倍数", "speed-up"));
    for (auto& pt : points)
        out += fmt::format("{:>8} {:>16.3f} {:>18.3f} {:>8.0f}×\n", pt.position, pt.s_cached * 1e3, pt.s_uncached * 1e3,
                           pt.s_uncached / pt.s_cached);
    auto str = [](const std::optional<double>& k) { return k ? fmt::format("{:.2f}", *k) : std::string("–"); };
    out += fmt::format(fmt::runtime(pick(l, "\n增长指数（每个词的时间 ∝ 位置^k）：有缓存 {}，无缓存 {}\n\n",
                                         "\ngrowth exponent (time per token ∝ position^k): with cache {}, without cache {}\n\n")),
                       str(k_cached), str(k_uncached));
    std::vector<loglog_series> series{{pick(l, "无缓存", "without cache"), 'u', pos, uncached, k_uncached},
                                      {pick(l, "有缓存", "with cache"), 'c', pos, cached, k_cached}};
    for (const std::string& line : loglog_lines(series, pick(l, "位置", "position"), pick(l, "每个词的时间", "time per token"), l, std::min<std::size_t>(80, b.width)))
        out += line + "\n";
    out += "\n";
    io.print(out + explain_kv(b));
    return 0;
}

}  // namespace

int cmd_bench(const args& a, const console& io) {
    if (std::find(a.begin(), a.end(), "--tensor-parallel") != a.end()) return cmd_bench_tensor_parallel(a, io);
    bool help = false;
    const bench_args b = parse_bench_args(io, a, help);
    if (help) return 0;
    return b.mode == "kv" ? run_kv(io, b) : b.backward ? run_backward(io, b) : run_forward(io, b);
}

}  // namespace qkv::cli
