// Batches drawn from (seed, step) through the engine's seeded uniform generator, so a step's batch
// is the same on every machine and can be made again on its own; and the held-out sequence. What a
// task makes of the draws is its entry's in the tasks' table (tasks.cpp).
#include "qkv/task_data.hpp"

#include <algorithm>
#include <numeric>

#include "qkv/kernels.hpp"
#include "qkv/tasks.hpp"

namespace qkv::train {

prediction_range predictable(task t, const repeat_span& r) { return rule_of(t).predictable(r); }

std::size_t source_of(task t, std::span<const int> tokens, const repeat_span& r, std::size_t p) {
    return rule_of(t).source_of(tokens, r, p);
}

namespace {

// The stream of one step: splitmix64 inside the generator spreads neighbouring seeds apart.
std::uint64_t stream_of(std::uint64_t seed, std::uint64_t step) { return seed * 0x9e3779b97f4a7c15ULL + step; }

}  // namespace

batch make_batch(const train_config& c, std::size_t step) {
    const std::size_t T = c.size.seq;
    batch b{c.batch, T, std::vector<int>(c.batch * T), std::vector<repeat_span>(c.batch)};
    const matrix u = kernels::draw_uniform(c.batch, T + 3, stream_of(c.seed, step));  // one a step: never kept  // [batch, T + 3]
    const task_rule& rule = rule_of(c.what);
    for (std::size_t s = 0; s < c.batch; ++s) rule.fill(c, u.row(s), &b.tokens[s * T], b.spans[s]);
    return b;
}

batch held_out(const train_config& c) {
    const std::size_t T = c.size.seq, V = c.size.vocab;
    // its own stream, the same whatever --seed says, so runs with different seeds are shown alike
    const matrix u = kernels::rand_uniform(1, T + 3 + V, 0x5eed0fc0ffeeULL + T * 131 + V);
    std::vector<int> order(V);  // a shuffle of the vocabulary (Fisher–Yates): its head is the segment
    std::iota(order.begin(), order.end(), 0);
    for (std::size_t i = V - 1; i > 0; --i) std::swap(order[i], order[whole_in(u.data[T + 3 + i], 0, i)]);
    batch b{1, T, std::vector<int>(T), std::vector<repeat_span>(1)};
    rule_of(c.what).fill_held_out(c, u.data.data(), order, b.tokens.data(), b.spans[0]);
    return b;
}

std::string token_label(int token, std::size_t vocab) {
    if (vocab <= 26) return std::string(1, static_cast<char>('a' + token));
    return std::to_string(token);
}

}  // namespace qkv::train
