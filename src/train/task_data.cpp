// Batches drawn from (seed, step) through the engine's seeded uniform generator, so a step's batch
// is the same on every machine and can be made again on its own; and the held-out sequence.
#include "qkv/task_data.hpp"

#include <algorithm>
#include <numeric>

#include "qkv/kernels.hpp"

namespace qkv::train {

prediction_range predictable(task t, const repeat_span& r) {
    if (t == task::induction) return {r.second, r.second + r.length - 1};
    return {r.length - 1, 2 * r.length - 1};
}

std::size_t source_of(task t, const repeat_span& r, std::size_t p) {
    switch (t) {
        case task::induction: return r.first + (p - r.second) + 1;
        case task::reverse: return 2 * r.length - 2 - p;
        case task::copy: return p + 1 - r.length;
    }
    return 0;
}

namespace {

// A uniform draw in [0, 1) made into a whole number in [lo, hi].
std::size_t pick(float u, std::size_t lo, std::size_t hi) {
    const auto k = static_cast<std::size_t>(double(u) * double(hi - lo + 1));
    return lo + std::min(k, hi - lo);
}

// The stream of one step: splitmix64 inside the generator spreads neighbouring seeds apart.
std::uint64_t stream_of(std::uint64_t seed, std::uint64_t step) { return seed * 0x9e3779b97f4a7c15ULL + step; }

// One sequence of `u` (seq + 3 uniforms): tokens from the first seq, the span from the last three.
void fill(const train_config& c, const float* u, int* tokens, repeat_span& span) {
    const std::size_t T = c.size.seq, V = c.size.vocab;
    for (std::size_t i = 0; i < T; ++i) tokens[i] = static_cast<int>(pick(u[i], 0, V - 1));
    if (c.what != task::induction) {
        const std::size_t m = T / 2;
        span = {0, m, m};
        for (std::size_t k = 0; k < m; ++k) tokens[m + k] = tokens[c.what == task::copy ? k : m - 1 - k];
        return;
    }
    const std::size_t len = pick(u[T], c.segment_min, c.segment_max);
    const std::size_t first = pick(u[T + 1], 0, T - 2 * len);
    const std::size_t second = pick(u[T + 2], first + len, T - len);
    span = {first, second, len};
    std::copy(tokens + first, tokens + first + len, tokens + second);
}

}  // namespace

batch make_batch(const train_config& c, std::size_t step) {
    const std::size_t T = c.size.seq;
    batch b{c.batch, T, std::vector<int>(c.batch * T), std::vector<repeat_span>(c.batch)};
    const matrix u = kernels::rand_uniform(c.batch, T + 3, stream_of(c.seed, step));  // [batch, T + 3]
    for (std::size_t s = 0; s < c.batch; ++s) fill(c, u.row(s), &b.tokens[s * T], b.spans[s]);
    return b;
}

batch held_out(const train_config& c) {
    const std::size_t T = c.size.seq, V = c.size.vocab;
    // its own stream, the same whatever --seed says, so runs with different seeds are shown alike
    const matrix u = kernels::rand_uniform(1, T + 3 + V, 0x5eed0fc0ffeeULL + T * 131 + V);
    std::vector<int> order(V);  // a shuffle of the vocabulary (Fisher–Yates): its head is the segment
    std::iota(order.begin(), order.end(), 0);
    for (std::size_t i = V - 1; i > 0; --i) std::swap(order[i], order[pick(u.data[T + 3 + i], 0, i)]);
    batch b{1, T, std::vector<int>(T), std::vector<repeat_span>(1)};
    repeat_span& r = b.spans[0];
    if (c.what == task::induction) {
        const std::size_t len = (c.segment_min + c.segment_max) / 2;
        r.length = len;
        r.first = pick(u.data[T + 1], 0, T - 2 * len);
        r.second = pick(u.data[T + 2], r.first + len, T - len);
        for (std::size_t i = 0; i < T; ++i) b.tokens[i] = order[pick(u.data[i], len, V - 1)];
        for (std::size_t k = 0; k < len; ++k) b.tokens[r.first + k] = b.tokens[r.second + k] = order[k];
        return b;
    }
    const std::size_t m = T / 2;
    r = {0, m, m};
    for (std::size_t k = 0; k < m; ++k) b.tokens[k] = order[k];
    for (std::size_t k = 0; k < m; ++k) b.tokens[m + k] = b.tokens[c.what == task::copy ? k : m - 1 - k];
    return b;
}

std::string token_label(int token, std::size_t vocab) {
    if (vocab <= 26) return std::string(1, static_cast<char>('a' + token));
    return std::to_string(token);
}

}  // namespace qkv::train
