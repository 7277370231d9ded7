// `qkv bench --tensor-parallel`'s result in words (report_bench.hpp): per rank its heads, the time
// computing and in the all-reduce, the bytes moved; the speed-up against one rank.
#include <fmt/format.h>

#include "qkv/report_bench.hpp"

namespace qkv {

using json = nlohmann::ordered_json;

std::string bench_text(const bench::tensor_parallel_result& t, const render_options& o) {
    const lang l = o.language;
    std::string out = fmt::format(
        fmt::runtime(tr(l, "qkv bench --tensor-parallel: fused attention, n = {0}, d_model = {1}, h = {2}, split by heads over P = {3} rank{6} ({4} thread{7} each), median of {5} runs\n\n")),
        t.n, t.d_model, t.heads, t.ranks, t.threads, t.runs, t.ranks == 1 ? "" : "s", t.threads == 1 ? "" : "s");
    out += fmt::format("{:>5} {:>6} {:>12} {:>15} {:>12} {:>12}\n", "rank", tr(l, "heads"), tr(l, "compute ms"),
                       tr(l, "all-reduce ms"), tr(l, "sent"), tr(l, "received"));
    for (std::size_t q = 0; q < t.per_rank.size(); ++q) {
        const bench::rank_split& r = t.per_rank[q];
        out += fmt::format("{:>5} {:>6} {:>12.1f} {:>15.2f} {:>12} {:>12}\n", q, r.heads, r.compute_ms, r.comm_ms,
                           bench::human_bytes(double(r.bytes_sent)), bench::human_bytes(double(r.bytes_received)));
    }
    out += fmt::format(fmt::runtime(tr(l, "\none rank (P = 1): {:.1f} ms; on {} ranks: {:.1f} ms (the slowest rank's compute and all-reduce)\nspeed-up {:.2f}×, parallel efficiency {:.0f}%\n")),
                       t.one_rank_ms, t.ranks, t.parallel_ms(), t.speed_up(), 100 * t.efficiency());
    out += fmt::format(fmt::runtime(tr(l, "largest |Z on the ranks − Z on one rank| = {:.2e} (float32 sums in another order)\n")),
                       t.max_difference);
    if (t.ranks == 1)
        out += tr(l, "\nOn real ranks: mpirun -np 2 qkv bench --tensor-parallel (as root add --allow-run-as-root; more ranks than cores: --oversubscribe)\n");
    return out;
}

json bench_json(const bench::tensor_parallel_result& t) {
    json j{{"n", t.n}, {"d_model", t.d_model}, {"heads", t.heads}, {"ranks", t.ranks}, {"threads", t.threads},
           {"runs", t.runs}, {"mpi", t.mpi}, {"per_rank", json::array()}};
    for (std::size_t q = 0; q < t.per_rank.size(); ++q) {
        const bench::rank_split& r = t.per_rank[q];
        j["per_rank"].push_back({{"rank", q}, {"heads", r.heads}, {"compute_ms", r.compute_ms}, {"comm_ms", r.comm_ms},
                                 {"step_ms", r.step_ms}, {"bytes_sent", r.bytes_sent}, {"bytes_received", r.bytes_received}});
    }
    j["one_rank_ms"] = t.one_rank_ms;
    j["parallel_ms"] = t.parallel_ms();
    j["speed_up"] = t.speed_up();
    j["efficiency"] = t.efficiency();
    j["max_difference"] = t.max_difference;
    return j;
}

}  // namespace qkv
