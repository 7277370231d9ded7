// How the built-ins make their results: f over every matrix of a value (the one, or each head),
// rows and their labels cut out, products through blas, sub-steps recorded for the stepper.
// Shared by the src/builtins_*.cpp files.
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "qkv/builtin_args.hpp"
#include "qkv/i18n.hpp"

namespace qkv {

// The label a training checkpoint's recorded step carries, "step 160": the one recorded label made
// of words. The renderers show it in the learner's language (step_heading); the JSON keeps it.
std::string step_label(std::size_t step);
// A recorded step's label as its heading in `l`: "第 160 步" for step_label's; the math's own
// labels ("t = 3", "j = 1…4") as they are.
std::string step_heading(const std::string& label, lang l);

// A KV-cache decode step's scores: the new query against every cached key, scaled.
// q_t [1, d_k], K_cache [t, d_k] -> s_t [1, t] = q_t K_cacheᵀ / √d_k. kv_decode's own, and what a
// pointed-at a_t is explained from.
matrix kv_scores(const matrix& q_t, const matrix& K_cache);

}  // namespace qkv

namespace qkv::builtin_detail {

// f on every matrix of v (the one, or each head); labels kept, no longer attention weights.
template <typename F>
value map_mats(const value& v, F f) {
    value out = v;
    for (matrix& m : out.mats) m = f(m);
    out.weights = false;
    return out;
}

// The built-ins fn(P) of one matrix or stack that apply f to each matrix: the result read as
// attention weights (softmax), or as one number per row, [n, 1] (row sums, row maxima).
template <typename F>
value weights_of_each(const value& v, const char* fn, const char* param, const eval_context& ctx, F f) {
    need_mats(v, fn, param, ctx);
    value out = map_mats(v, f);
    out.weights = true;
    return out;
}
template <typename F>
value column_of_each(const value& v, const char* fn, const char* param, const eval_context& ctx, F f) {
    need_mats(v, fn, param, ctx);
    value out = map_mats(v, f);  // [n, 1] each
    out.cols = {};
    return out;
}

// f on every entry, a scalar's included.
template <typename F>
value map_entries(const value& v, F f) {
    value out = v;
    out.number = f(out.number);
    for (matrix& m : out.mats)
        for (float& x : m.data) x = f(x);
    out.weights = false;
    return out;
}

// f on matching heads of a and b: a matrix meets every head of a stack; two stacks pair up.
template <typename F>
value zip_mats(const value& a, const value& b, const char* fn, const eval_context& ctx, F f) {
    need_mats(a, fn, "the first argument", ctx);
    need_mats(b, fn, "the second argument", ctx);
    if (a.is_stack() && b.is_stack() && a.mats.size() != b.mats.size())
        formula_error(ctx, said("{}: the stacks have different numbers of heads: {} and {}",
                                fn, a.shape_str(), b.shape_str()));
    std::size_t h = std::max(a.mats.size(), b.mats.size());
    std::vector<matrix> out;
    for (std::size_t i = 0; i < h; ++i)
        out.push_back(f(a.is_stack() ? a.mats[i] : a.mat(), b.is_stack() ? b.mats[i] : b.mat()));
    if (a.is_stack() || b.is_stack()) return value::stack(std::move(out));
    return value::of(std::move(out.front()));
}

// A (m, k) @ B (k, n) -> (m, n), and A (m, k) @ B (n, k)^T -> (m, n), through blas::gemm.
matrix mm(const matrix& A, const matrix& B);
matrix mm_t(const matrix& A, const matrix& B);

// The Frobenius norm, sqrt of the sum of every entry squared, summed in double.
double frobenius(const matrix& M);

// Rows [r0, r0 + count) of M, and the labels that go with them.
matrix row_block(const matrix& M, std::size_t r0, std::size_t count);
labels label_block(const labels& l, std::size_t r0, std::size_t count);

// A matrix value with its rows and columns tagged, names kept only where they fit.
value labelled(matrix m, labels rows, labels cols);

// One sub-step of a built-in that teaches a process, kept when ctx asks for them.
void record(eval_context& ctx, std::string label, std::vector<std::pair<std::string, value>> values);

}  // namespace qkv::builtin_detail
