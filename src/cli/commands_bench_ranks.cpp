// `qkv bench --tensor-parallel`: attention at scale split by heads over real ranks (under mpirun),
// per rank the time computing and communicating and the bytes moved, and the speed-up against one
// rank; text or JSON, printed by rank 0.
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "qkv/bench.hpp"
#include "qkv/cli.hpp"
#include "qkv/i18n.hpp"
#include "qkv/ranks.hpp"
#include "qkv/tensor_parallel.hpp"
#include "bench_common.hpp"

namespace qkv::cli {
namespace {

namespace po = boost::program_options;
using json = nlohmann::ordered_json;

struct tp_args {
    std::size_t n = 4096, d_model = 512, heads = 8;
    int threads = 1, repeats = 3;
    std::string format_name, lang_name;
};

std::string text_of(const ranks::tensor_parallel_run& t, lang l) {
    std::string out = fmt::format(
        fmt::runtime(pick(l, "qkv bench --tensor-parallel：融合注意力，n = {}，d_model = {}，h = {}，按头分给 P = {} 个 rank（每个 {} 个线程），{} 次的中位数\n\n",
                          "qkv bench --tensor-parallel: fused attention, n = {0}, d_model = {1}, h = {2}, split by heads over P = {3} rank{6} ({4} thread{7} each), median of {5} runs\n\n")),
        t.n, t.d_model, t.heads, t.ranks, t.threads, t.runs, t.ranks == 1 ? "" : "s", t.threads == 1 ? "" : "s");
    out += fmt::format("{:>5} {:>6} {:>12} {:>15} {:>12} {:>12}\n", "rank", pick(l, "头", "heads"), pick(l, "计算 ms", "compute ms"),
                       pick(l, "all-reduce ms", "all-reduce ms"), pick(l, "发送", "sent"), pick(l, "接收", "received"));
    for (std::size_t q = 0; q < t.per_rank.size(); ++q) {
        const ranks::rank_split& r = t.per_rank[q];
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

std::string json_of(const ranks::tensor_parallel_run& t) {
    json j{{"n", t.n}, {"d_model", t.d_model}, {"heads", t.heads}, {"ranks", t.ranks}, {"threads", t.threads},
           {"runs", t.runs}, {"mpi", ranks::built_with_mpi()}, {"per_rank", json::array()}};
    for (std::size_t q = 0; q < t.per_rank.size(); ++q) {
        const ranks::rank_split& r = t.per_rank[q];
        j["per_rank"].push_back({{"rank", q}, {"heads", r.heads}, {"compute_ms", r.compute_ms}, {"comm_ms", r.comm_ms},
                                 {"step_ms", r.step_ms}, {"bytes_sent", r.bytes_sent}, {"bytes_received", r.bytes_received}});
    }
    j["one_rank_ms"] = t.one_rank_ms;
    j["parallel_ms"] = t.parallel_ms();
    j["speed_up"] = t.speed_up();
    j["efficiency"] = t.efficiency();
    j["max_difference"] = t.max_difference;
    return j.dump(2) + "\n";
}

}  // namespace

int cmd_bench_tensor_parallel(const args& a, const console& io) {
    tp_args b;
    bool tensor_parallel = false;
    po::options_description desc("Options");
    add_help_option(desc);
    desc.add_options()
        ("tensor-parallel", po::bool_switch(&tensor_parallel), "split by heads over the ranks of mpirun -np P (P must divide --heads)")
        ("n", po::value(&b.n)->default_value(4096), "sequence length");
    add_shape_options(desc, b.d_model, b.heads);
    desc.add_options()
        ("threads", po::value(&b.threads)->default_value(1), "threads per rank")
        ("repeats", po::value(&b.repeats)->default_value(3), "timed runs (after one that warms up)");
    add_format_option(desc, b.format_name, "text or json");
    add_lang_option(desc, b.lang_name);
    if (!parse(io, "bench", a, desc)) return 0;
    const format form = text_or_json(b.format_name);
    const lang l = language_of(b.lang_name);
    if (b.n < 1 || b.n > (1u << 20)) throw usage_error("--n must be 1 to 1048576");
    check_shape(b.d_model, b.heads, b.threads);
    if (b.repeats < 1 || b.repeats > 1000) throw usage_error("--repeats must be 1 to 1000");
    const ranks::tensor_parallel_run t = ranks::run_tensor_parallel(b.n, b.d_model, b.heads, b.threads, b.repeats);
    io.print(form == format::json ? json_of(t) : text_of(t, l));
    return 0;
}

}  // namespace qkv::cli
