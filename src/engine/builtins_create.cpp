// Built-ins that make a matrix from sizes alone: random samples from a seed, zeros, the identity,
// the uniform distribution, a one-hot column and the column 1 … n. Every size is checked against
// the cell limit before anything is allocated.
#include <fmt/format.h>

#include "qkv/builtin_values.hpp"
#include "qkv/kernels.hpp"

namespace qkv {
namespace {

using namespace builtin_detail;

// randn(r, c, seed) and rand(r, c, seed): the same checks, then samples from `draw`.
template <typename Draw>
value random_matrix(const args_t& a, eval_context& ctx, const char* fn, Draw draw) {
    std::size_t r = whole(a[0], 0, fn, "r", ctx);
    std::size_t c = whole(a[1], 0, fn, "c", ctx);
    std::size_t seed = whole(a[2], 0, fn, "seed", ctx);
    need_cells(r, c, fn, ctx);
    return value::of(draw(r, c, seed));  // [r, c]
}

value randn_fn(const args_t& a, eval_context& ctx) { return random_matrix(a, ctx, "randn", kernels::randn); }
value rand_fn(const args_t& a, eval_context& ctx) { return random_matrix(a, ctx, "rand", kernels::rand_uniform); }

value uniform_fn(const args_t& a, eval_context& ctx) {
    std::size_t n = whole(a[0], 0, "uniform", "n", ctx);
    std::size_t m = whole(a[1], 1, "uniform", "m", ctx);
    need_cells(n, m, "uniform", ctx);
    value out = value::of(matrix(n, m, 1.0f / static_cast<float>(m)));  // [n, m]
    out.weights = true;
    return out;
}

value zeros_fn(const args_t& a, eval_context& ctx) {
    std::size_t r = whole(a[0], 0, "zeros", "r", ctx);
    std::size_t c = whole(a[1], 0, "zeros", "c", ctx);
    need_cells(r, c, "zeros", ctx);
    return value::of(matrix(r, c));  // [r, c]
}

value identity_fn(const args_t& a, eval_context& ctx) {
    std::size_t n = whole(a[0], 0, "identity", "n", ctx);
    need_cells(n, n, "identity", ctx);
    matrix I(n, n);  // I: [n, n]
    for (std::size_t i = 0; i < n; ++i) I(i, i) = 1.0f;
    return value::of(std::move(I));
}

value one_hot_fn(const args_t& a, eval_context& ctx) {
    std::size_t n = whole(a[0], 1, "one_hot", "n", ctx);
    std::size_t i = whole(a[1], 1, "one_hot", "i", ctx);
    if (i > n) formula_error(ctx, fmt::format("one_hot(n, i): i = {} is past n = {} (rows count from 1)", i, n));
    need_cells(n, 1, "one_hot", ctx);
    matrix e(n, 1);  // e: [n, 1]
    e(i - 1, 0) = 1.0f;
    return value::of(std::move(e));
}

value range_fn(const args_t& a, eval_context& ctx) {
    std::size_t n = whole(a[0], 1, "range", "n", ctx);
    need_cells(n, 1, "range", ctx);
    matrix t(n, 1);  // t: [n, 1] = 1, 2, ..., n
    for (std::size_t i = 0; i < n; ++i) t(i, 0) = static_cast<float>(i + 1);
    return value::of(std::move(t));
}

}  // namespace

std::vector<builtin> builtin_groups::create() {
    return {
        {"randn", 3, 3, "randn(r, c, seed)",
         "[r, c] of N(0, 1) samples; the same seed gives the same numbers on every machine",
         randn_fn},
        {"rand", 3, 3, "rand(r, c, seed)",
         "[r, c] of samples uniform in [0, 1); the same seed gives the same numbers on every machine",
         rand_fn},
        {"uniform", 2, 2, "uniform(n, m)",
         "[n, m] with every entry 1/m: each row the uniform distribution",
         uniform_fn},
        {"zeros", 2, 2, "zeros(r, c)", "[r, c] of zeros", zeros_fn},
        {"identity", 1, 1, "identity(n)", "[n, n] identity matrix", identity_fn},
        {"one_hot", 2, 2, "one_hot(n, i)", "[n, 1] column of zeros with a 1 in row i (from 1)", one_hot_fn},
        {"range", 1, 1, "range(n)", "[n, 1] column 1, 2, ..., n", range_fn},
    };
}

}  // namespace qkv
