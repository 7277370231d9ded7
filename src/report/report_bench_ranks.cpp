// `qkv bench --tensor-parallel`'s result in words (report_bench.hpp): per rank its heads, the time
// computing and in the all-reduce, the bytes moved; the speed-up against one rank.
#include <fmt/format.h>

#include "qkv/report_bench.hpp"

namespace qkv {

using json = nlohmann::ordered_json;

std::string bench_text(const bench::tensor_parallel_result& t, const render_options& o) {
    const lang l = o.language;
    std::string out = fmt::format(
        fmt::runtime(pick(l, "qkv bench --tensor-parallel：融合注意力，n = {}，d_model = {}，h = {}，按头分给 P = {} 个 rank（每个 {} 个线程），{} 次的中位数\n\n",
                          "qkv bench --tensor-parallel: fused attention, n = {0}, d_model = {1}, h = {2}, split by heads over P = {3} rank{6} ({4} thread{7} each), median of {5} runs\n\n")),
        t.n, t.d_model, t.heads, t.ranks, t.threads, t.runs, t.ranks == 1 ? "" : "s", t.threads == 1 ? "" : "s");
    out += fmt::format("{:>5} {:>6} {:>12} {:>15} {:>12} {:>12}\n", "rank", pick(l, "头", "heads"), pick(l, "计算 ms", "compute ms"),
                       pick(l, "all-reduce ms", "all-reduce ms"), pick(l, "发送", "sent"), pick(l, "接收", "received"));
    for (std::size_t q = 0; q < t.per_rank.size(); ++q) {
        const bench::rank_split& r = t.per_rank[q];
        out += fmt::format("{:>5} {:>6} {:>12.1f} {:>15.2f} {:>12} {:>12}\n", q, r.heads, r.compute_ms, r.comm_ms,
                           bench::human_bytes(double(r.bytes_sent)), bench::human_bytes(double(r.bytes_received)));
    }
    out += fmt::format(fmt::runtime(pick(l, "\n一个 rank（P = 1）：{:.1f} ms；{} 个 rank：{:.1f} ms（最慢的 rank 的计算加 all-reduce）\n加速比 {:.2f}×，并行效率 {:.0f}%\n",
                                         "\none rank (P = 1): {:.1f} ms; on {} ranks: {:.1f} ms (the slowest rank's compute and all-reduce)\nspeed-up {:.2f}×, parallel efficiency {:.0f}%\n")),
                       t.one_rank_ms, t.ranks, t.parallel_ms(), t.speed_up(), 100 * t.efficiency());
    out += fmt::format(fmt::runtime(pick(l, "与一个 rank 的 Z 最大相差 {:.2e}（float32 的和换了次序）\n",
                                         "largest |Z on the ranks − Z on one rank| = {:.2e} (float32 sums in another order)\n")),
                       t.max_difference);
    if (t.ranks == 1)
        out += pick(l, "\n在真正的多个 rank 上运行：mpirun -np 2 qkv bench --tensor-parallel（root 加 --allow-run-as-root，rank 多于核心加 --oversubscribe）\n",
                    "\nOn real ranks: mpirun -np 2 qkv bench --tensor-parallel (as root add --allow-run-as-root; more ranks than cores: --oversubscribe)\n");
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
