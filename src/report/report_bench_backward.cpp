// `qkv bench --backward`'s result in words (report_bench.hpp): the machine's peak and the kernels,
// a row per pass and n, the growth of time and memory in n, and what the figures count.
#include <vector>

#include <fmt/format.h>

#include "qkv/command_text.hpp"
#include "qkv/report_bench.hpp"
#include "qkv/wrap.hpp"
#include "bench_words.hpp"

namespace qkv {

using json = nlohmann::ordered_json;

namespace {

json breakdown_json(const bench::backward_shares& b) {
    return {{"thread_cpu_seconds", b.thread_cpu_seconds},
            {"output_gradient", b.output_gradient},
            {"weight_gradients", b.weight_gradients},
            {"input_gradient", b.input_gradient},
            {"row_dots", b.row_dots},
            {"copies", b.copies},
            {"scores", b.scores},
            {"dP", b.dP},
            {"softmax_exps", b.softmax_exps},
            {"dV", b.dV},
            {"dK", b.dK},
            {"dQ", b.dQ},
            {"running", b.running}};
}

}  // namespace

std::string bench_text(const bench::backward_result& r, const render_options& o) {
    const lang l = o.language;
    const bench::setup& s = r.asked;
    std::string out = fmt::format(
        fmt::runtime(tr(l, "qkv bench --backward: multi-head attention forward and backward, d_model = {0}, h = {1} (d_k = {2}), {3} thread{5}, {4}\n")),
        s.d_model, s.heads, s.d_k(), s.threads, detail::mask_text(s.causal, l), s.threads == 1 ? "" : "s");
    out += detail::machine_peak_line(r.peak.machine, l);
    out += fmt::format(fmt::runtime(tr(l, "products on qkv's own {} tile kernels")), r.peak.fused_kernels);
    out = wrap_each_line(out, o.width, "  ") + "\n";  // the header's facts fit the terminal; the table is 71 columns
    out += fmt::format("{:<18} {:>6} {:>11} {:>9} {:>9} {:>13}\n", tr(l, "pass"), "n", tr(l, "ms"),
                       "GFLOP/s", tr(l, "% machine"), tr(l, "extra memory"));
    for (const bench::pass_row& w : r.rows)
        out += fmt::format("{:<18} {:>6} {:>11.2f} {:>9.1f} {:>8.0f}% {:>13}\n", bench::pass_name(w.which), w.n, w.ms, w.gflops,
                           w.percent_of_machine_peak, bench::human_bytes(double(w.extra_bytes)));
    std::vector<std::string> t, m;
    for (auto& [p, g] : r.growths) {
        t.push_back(fmt::format("{} {}", bench::pass_name(p), detail::exponent_text(g.time)));
        m.push_back(fmt::format("{} {}", bench::pass_name(p), detail::exponent_text(g.memory)));
    }
    out += detail::set_apart(fmt::format(fmt::runtime(tr(l, "growth exponent (∝ n^k, least squares on log n): time {}; extra memory {}")),
                                         fmt::join(t, ", "), fmt::join(m, ", ")), o.width);
    return out + reflowed(command_text("bench", "backward").in(l), o.width);
}

json bench_json(const bench::backward_result& r) {
    const bench::setup& s = r.asked;
    json j;
    j["machine_peak_gflops"] = r.peak.machine.gflops;
    j["machine_isa"] = detail::isa_json(r.peak.machine.isa);
    j["fused_kernels"] = r.peak.fused_kernels;
    j["causal"] = s.causal;
    j["results"] = json::array();
    for (const bench::pass_row& w : r.rows) {
        j["results"].push_back({{"pass", bench::pass_name(w.which)}, {"n", w.n}, {"d_model", s.d_model}, {"heads", s.heads},
                                {"threads", s.threads}, {"ms", w.ms}, {"gflops", w.gflops},
                                {"percent_of_machine_peak", w.percent_of_machine_peak}, {"extra_bytes", w.extra_bytes}});
        if (w.breakdown) j["results"].back()["breakdown"] = breakdown_json(*w.breakdown);
    }
    for (auto& [p, g] : r.growths) {
        j["growth_exponent"][std::string(bench::pass_name(p))] = detail::number_or_null(g.time);
        j["memory_growth_exponent"][std::string(bench::pass_name(p))] = detail::number_or_null(g.memory);
    }
    return j;
}

}  // namespace qkv
