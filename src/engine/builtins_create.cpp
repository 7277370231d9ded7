// Built-ins that make a matrix from sizes alone: random samples from a seed, zeros, the identity,
// the uniform distribution, a one-hot column and the column 1 … n. Every size is checked against
// the cell limit before anything is allocated.
#include "builtin_functions.hpp"

#include <fmt/format.h>

#include "qkv/builtin_values.hpp"
#include "qkv/kernels.hpp"

namespace qkv::builtin_functions {

using namespace builtin_detail;

namespace {

// randn(r, c, seed) and rand(r, c, seed): the same checks, then samples from `draw`.
template <typename Draw>
value random_matrix(const args_t& a, eval_context& ctx, const char* fn, Draw draw) {
    std::size_t r = whole(a[0], 0, fn, "r", ctx);
    std::size_t c = whole(a[1], 0, fn, "c", ctx);
    std::size_t seed = whole(a[2], 0, fn, "seed", ctx);
    need_cells(r, c, fn, ctx);
    return value::of(draw(r, c, seed));  // [r, c]
}

}  // namespace

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
    if (i > n) formula_error(ctx, said("one_hot(n, i): i = {} is past n = {} (rows count from 1)", i, n));
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

}  // namespace qkv::builtin_functions
