// The tensor-parallel measurement (tensor_parallel.hpp). Rank 0 first times the whole layer alone
// (P = 1) while the others wait; then every rank times its own heads and the all-reduce, run by run.
#include "qkv/tensor_parallel.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "qkv/attention_fused.hpp"
#include "qkv/bench.hpp"
#include "qkv/devices.hpp"
#include "qkv/error.hpp"
#include "qkv/ranks.hpp"

namespace qkv::ranks {

namespace {

using clock = std::chrono::steady_clock;

double seconds_since(clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); }

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// The median seconds of `runs` calls after one that only warms caches and page tables.
template <typename F>
double median_seconds(int runs, F f) {
    f();
    std::vector<double> t;
    for (int k = 0; k < runs; ++k) {
        const auto t0 = clock::now();
        f();
        t.push_back(seconds_since(t0));
    }
    return median(t);
}

constexpr std::size_t figures = 7;  // heads, compute, comm, step, sent, received, difference

}  // namespace

bench::tensor_parallel_result run_tensor_parallel(std::size_t n, std::size_t d_model, std::size_t heads, int threads, int runs) {
    devices::group& g = devices::current();
    const std::size_t P = g.size(), r = g.rank();
    if (heads % P != 0)
        throw input_error(fmt::format("bench --tensor-parallel: {} ranks do not divide the {} heads; run mpirun -np P "
                                      "with P dividing {}",
                                      P, heads, heads));
    const bench::inputs in = bench::make_inputs(n, d_model);  // X [n, d], W_Q, W_K, W_V, W_O [d, d]
    attention::options whole;
    whole.heads = heads, whole.threads = threads;

    // P = 1: rank 0 alone, the others waiting at the gathering of its time
    matrix Z_one;  // [n, d] on rank 0
    double one_rank_s = 0;
    if (r == 0) one_rank_s = median_seconds(runs, [&] { Z_one = attention::forward_fused(in.X, in.W, whole); });
    const double one_rank_ms = g.all_gather_figures(std::vector<double>{one_rank_s * 1e3})[0];

    attention::options mine = whole;  // this rank's heads: r·h/P … (r+1)·h/P − 1
    mine.first_head = r * heads / P, mine.head_count = heads / P;
    matrix Z(n, d_model);  // [n, d]: Σ over every rank's heads of head_i·W_O,i
    std::vector<double> compute, comm, step;
    devices::message_cost cost;
    for (int k = 0; k <= runs; ++k) {  // run 0 warms up and is not counted
        const auto t0 = clock::now();
        const matrix partial = attention::forward_fused(in.X, in.W, mine);  // [n, d]: this rank's Σ head_i·W_O,i
        const double c = seconds_since(t0);
        cost = g.all_reduce_sum(partial.data, Z.data);
        if (k == 0) continue;
        compute.push_back(c), comm.push_back(cost.seconds), step.push_back(c + cost.seconds);
    }
    double diff = 0;
    if (r == 0)
        for (std::size_t i = 0; i < Z.size(); ++i) diff = std::max(diff, double(std::abs(Z.data[i] - Z_one.data[i])));
    const std::vector<double> all = g.all_gather_figures(std::vector<double>{
        double(mine.head_count), median(compute) * 1e3, median(comm) * 1e3, median(step) * 1e3, double(cost.bytes_sent),
        double(cost.bytes_received), diff});

    bench::tensor_parallel_result out{n, d_model, heads, P, threads, runs, built_with_mpi(), one_rank_ms, {}, all[figures - 1]};
    for (std::size_t q = 0; q < P; ++q) {
        const double* f = all.data() + q * figures;
        out.per_rank.push_back({std::size_t(f[0]), f[1], f[2], f[3], std::size_t(f[4]), std::size_t(f[5])});
    }
    return out;
}

}  // namespace qkv::ranks
