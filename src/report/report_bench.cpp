// `qkv bench`'s forward result in words (report_bench.hpp): the peaks and kernels, a row per
// implementation and n, the growth in n, time against n on log-log axes, and why it looks so.
#include "qkv/report_bench.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "qkv/command_text.hpp"
#include "qkv/loglog.hpp"
#include "qkv/wrap.hpp"
#include "bench_words.hpp"

namespace qkv {

using json = nlohmann::ordered_json;
using attention::impl;

std::string threads_text(int n) { return fmt::format("{} thread{}", n, n == 1 ? "" : "s"); }

std::string kernel_text(const bench::peaks& p, lang l) {
    std::string out = fmt::format(fmt::runtime(tr(l, "OpenBLAS kernel {}")), p.corename.empty() ? "?" : p.corename);
    if (p.kernel_bits) out += fmt::format(fmt::runtime(tr(l, " ({}-bit)")), p.kernel_bits);
    if (p.narrower())
        out += fmt::format(fmt::runtime(tr(l, ", narrower than this CPU's {}-bit {}: the sgemm peak leaves part of the machine unused")),
                           p.machine.isa.bits, p.machine.isa.name);
    return out + fmt::format(fmt::runtime(tr(l, "\nfused runs its products on qkv's own {} tile kernels, not OpenBLAS")),
                             p.fused_kernels);
}

namespace {

// The prose under the table, from lessons/prose/bench.toml: the work counted, each implementation
// that ran, the two percentages.
std::string explain(const bench::setup& s, const render_options& o) {
    auto has = [&](impl i) { return std::find(s.impls.begin(), s.impls.end(), i) != s.impls.end(); };
    auto text = [&](std::string_view key) -> const std::string& { return command_text("bench", key).in(o.language); };
    std::string out = fmt::format(fmt::runtime(text("work")), fmt::arg("causal", s.causal ? text("causal") : ""));
    if (has(impl::reference)) out += text("reference");
    if (has(impl::blas)) out += text("blas");
    if (has(impl::fused)) out += text("fused");
    return reflowed(out + text("percent"), o.width);
}

// The header's facts, one to a line, each wrapped to the terminal.
std::string header(const bench::forward_result& r, lang l, std::size_t width) {
    const bench::setup& s = r.asked;
    const bench::peaks& pk = r.peak;
    std::string out = fmt::format(
        fmt::runtime(tr(l, "qkv bench: multi-head attention forward, d_model = {0}, h = {1} (d_k = {2}), {3} thread{5}, {4}\n")),
        s.d_model, s.heads, s.d_k(), s.threads, detail::mask_text(s.causal, l), s.threads == 1 ? "" : "s");
    out += detail::machine_peak_line(pk.machine, l);
    out += fmt::format(fmt::runtime(tr(l, "sgemm peak: OpenBLAS sgemm {0}×{0}×{0} on {1} thread{4}: {2:.1f} GFLOP/s ({3:.0f}% of the machine's)\n")),
                       pk.sgemm.size, pk.sgemm.threads, pk.sgemm.gflops, pk.sgemm_percent_of_machine(),
                       pk.sgemm.threads == 1 ? "" : "s");
    return wrap_each_line(out + kernel_text(pk, l), width, "  ");
}

std::string table(const bench::forward_result& r, lang l) {
    std::string out = fmt::format("{:<10} {:>6} {:>11} {:>9} {:>8} {:>9} {:>13}\n", tr(l, "impl"), "n", tr(l, "ms"),
                                  "GFLOP/s", tr(l, "% sgemm"), tr(l, "% machine"),
                                  tr(l, "extra memory"));
    for (const bench::forward_row& w : r.rows)
        out += fmt::format("{:<10} {:>6} {:>11.2f} {:>9.1f} {:>7.0f}% {:>8.0f}% {:>13}\n", attention::impl_name(w.which), w.n, w.ms,
                           w.gflops, w.percent_of_peak, w.percent_of_machine_peak, bench::human_bytes(double(w.extra_bytes)));
    return out;
}

// Time against n, one line per implementation, each marked with its name's first letter.
std::vector<std::string> chart(const bench::forward_result& r, lang l, std::size_t width) {
    std::vector<loglog_series> series;
    for (auto& [i, k] : r.growth) {
        loglog_series s{std::string(attention::impl_name(i)), attention::impl_name(i)[0], {}, {}, k};
        for (const bench::forward_row& w : r.rows)
            if (w.which == i) s.x.push_back(double(w.n)), s.y.push_back(w.ms / 1e3);
        series.push_back(std::move(s));
    }
    return loglog_lines(series, "n", tr(l, "time per forward pass"), l, std::min<std::size_t>(80, width));
}

json breakdown_json(const bench::fused_shares& b) {
    return {{"thread_cpu_seconds", b.thread_cpu_seconds},
            {"pack_weights", b.pack_weights},
            {"project_k_v", b.project_k_v},
            {"project_q", b.project_q},
            {"scores", b.scores},
            {"softmax_exps", b.softmax_exps},
            {"weighted_sum", b.weighted_sum},
            {"output_projection", b.output_projection},
            {"running", b.running},
            {"idle_tile_slots", b.idle_tile_slots},
            {"exps_in_scores", b.exps_in_scores}};
}

}  // namespace

std::string bench_text(const bench::forward_result& r, const render_options& o) {
    const lang l = o.language;
    std::string out = header(r, l, o.width) + "\n" + table(r, l);
    std::vector<std::string> parts;
    for (auto& [i, k] : r.growth) parts.push_back(fmt::format("{} {}", attention::impl_name(i), detail::exponent_text(k)));
    out += detail::set_apart(fmt::format(fmt::runtime(tr(l, "growth exponent (time ∝ n^k, least squares of log t on log n): {}")),
                                         fmt::join(parts, ", ")), o.width);
    const std::vector<std::string> lines = chart(r, l, o.width);
    for (const std::string& line : lines) out += line + "\n";
    if (!lines.empty()) out += "\n";
    return out + explain(r.asked, o);
}

json bench_json(const bench::forward_result& r) {
    const bench::peaks& pk = r.peak;
    json j;
    j["peak_gflops"] = pk.sgemm.gflops;
    j["machine_peak_gflops"] = pk.machine.gflops;
    j["machine_isa"] = detail::isa_json(pk.machine.isa);
    j["openblas_corename"] = pk.corename;
    j["openblas_kernel_bits"] = pk.kernel_bits ? json(pk.kernel_bits) : json(nullptr);
    j["openblas_kernel_narrower"] = pk.narrower();
    j["fused_kernels"] = pk.fused_kernels;
    j["results"] = json::array();
    for (const bench::forward_row& w : r.rows) {
        j["results"].push_back({{"impl", attention::impl_name(w.which)}, {"n", w.n}, {"d_model", r.asked.d_model},
                                {"heads", r.asked.heads}, {"threads", w.threads}, {"ms", w.ms}, {"gflops", w.gflops},
                                {"percent_of_peak", w.percent_of_peak}, {"percent_of_machine_peak", w.percent_of_machine_peak},
                                {"extra_bytes", w.extra_bytes}});
        if (w.breakdown) j["results"].back()["breakdown"] = breakdown_json(*w.breakdown);
    }
    j["growth_exponent"] = json::object();
    for (auto& [i, k] : r.growth) j["growth_exponent"][std::string(attention::impl_name(i))] = detail::number_or_null(k);
    j["causal"] = r.asked.causal;      // the text's header says it; the FLOPs counted depend on it
    j["sgemm_size"] = pk.sgemm.size;   // the sgemm peak's square matrices
    return j;
}

}  // namespace qkv
