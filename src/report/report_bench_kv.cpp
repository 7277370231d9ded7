// `qkv bench kv`'s result in words (report_bench.hpp): time per token with and without the KV
// cache at each position, the speed-up, the growth in the position, a log-log chart, and why.
#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "qkv/command_text.hpp"
#include "qkv/loglog.hpp"
#include "qkv/report_bench.hpp"
#include "qkv/wrap.hpp"
#include "bench_words.hpp"

namespace qkv {

using json = nlohmann::ordered_json;

std::string bench_text(const bench::kv_result& r, const render_options& o) {
    const lang l = o.language;
    const bench::setup& s = r.asked;
    std::string out = fmt::format(fmt::runtime(tr(l, "qkv bench kv: decoding {} tokens one at a time, d_model = {}, h = {}, {}\n\n")),
                                  s.tokens, s.d_model, s.heads, l == lang::zh ? std::to_string(s.threads) : threads_text(s.threads));
    out += fmt::format("{:>8} {:>16} {:>18} {:>9}\n", tr(l, "position"), tr(l, "with cache ms"),
                       tr(l, "without cache ms"), tr(l, "speed-up"));
    for (const bench::kv_point& p : r.points)
        out += fmt::format("{:>8} {:>16.3f} {:>18.3f} {:>8.0f}×\n", p.time.position, p.time.s_cached * 1e3, p.time.s_uncached * 1e3,
                           p.speed_up);
    out += fmt::format(fmt::runtime(tr(l, "\ngrowth exponent (time per token ∝ position^k): with cache {}, without cache {}\n\n")),
                       detail::exponent_text(r.growth_with_cache), detail::exponent_text(r.growth_without_cache));
    std::vector<double> position, cached, uncached;  // the chart's x, and its two series' y in seconds
    for (const bench::kv_point& p : r.points)
        position.push_back(double(p.time.position)), cached.push_back(p.time.s_cached), uncached.push_back(p.time.s_uncached);
    const std::vector<loglog_series> series{{tr(l, "without cache"), 'u', position, uncached, r.growth_without_cache},
                                            {tr(l, "with cache"), 'c', position, cached, r.growth_with_cache}};
    for (const std::string& line : loglog_lines(series, tr(l, "position"), tr(l, "time per token"), l,
                                                std::min<std::size_t>(80, o.width)))
        out += line + "\n";
    return out + "\n" + reflowed(command_text("bench", "kv").in(l), o.width);
}

json bench_json(const bench::kv_result& r) {
    const bench::setup& s = r.asked;
    json j{{"d_model", s.d_model}, {"heads", s.heads}, {"threads", s.threads}, {"tokens", s.tokens}, {"positions", json::array()}};
    for (const bench::kv_point& p : r.points)
        j["positions"].push_back({{"position", p.time.position}, {"ms_with_cache", p.time.s_cached * 1e3},
                                  {"ms_without_cache", p.time.s_uncached * 1e3}, {"speed_up", p.speed_up}});
    j["growth_exponent"] = {{"with_cache", detail::number_or_null(r.growth_with_cache)},
                            {"without_cache", detail::number_or_null(r.growth_without_cache)}};
    return j;
}

}  // namespace qkv
