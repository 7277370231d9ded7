// Built-ins that turn a matrix into a stack and back: heads by columns (split_heads) or rows
// (split_rows), the parts of a matrix split across devices (split_cols, lesson 11, the same
// split), joining them side by side, and the sum or mean over heads.
#include "builtin_functions.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "qkv/builtin_values.hpp"

namespace qkv::builtin_functions {

using namespace builtin_detail;

namespace {

// The matrix of v [r, p·w] as a stack of p blocks [r, w]: block i takes columns i·w … (i+1)·w − 1.
value split_columns(const value& v, std::size_t p) {
    const matrix& M = v.mat();
    const std::size_t w = M.cols / p;
    std::vector<matrix> blocks;
    for (std::size_t i = 0; i < p; ++i) {
        matrix block(M.rows, w);  // [r, w]
        for (std::size_t r = 0; r < M.rows; ++r) std::copy_n(M.row(r) + i * w, w, block.row(r));
        blocks.push_back(std::move(block));
    }
    return value::stack(std::move(blocks), v.rows, {{}, v.cols.axis});
}

// The stack v of p blocks [n, w] side by side -> [n, p·w]: the inverse of split_columns.
value join_columns(const value& v) {
    const std::vector<matrix>& blocks = v.mats;
    const std::size_t n = blocks.front().rows, w = blocks.front().cols;
    matrix out(n, blocks.size() * w);  // out: [n, p·w]
    for (std::size_t i = 0; i < blocks.size(); ++i)
        for (std::size_t r = 0; r < n; ++r) std::copy_n(blocks[i].row(r), w, out.row(r) + i * w);
    return value::of(std::move(out), v.rows, {{}, v.cols.axis});
}

// split_heads(M, h) and split_cols(A, p): a matrix and a count that divides its columns, then
// the same split; `not_dividing` words the error the way each lesson speaks of it.
template <typename Words>
value split_columns_fn(const args_t& a, eval_context& ctx, const char* fn, const char* M_name,
                       const char* p_name, Words not_dividing) {
    const matrix& M = need_matrix(a[0], fn, M_name, ctx);  // [n, c]
    std::size_t p = whole(a[1], 1, fn, p_name, ctx);
    if (M.cols % p != 0) formula_error(ctx, not_dividing(p, M.cols));
    return split_columns(a[0], p);  // [p, n, c/p]
}

}  // namespace

value split_heads_fn(const args_t& a, eval_context& ctx) {
    return split_columns_fn(a, ctx, "split_heads", "M", "h", [](std::size_t h, std::size_t d_model) {
        return said("heads ({}) must divide d_model ({}), the columns of M in split_heads(M, h)", h, d_model);
    });
}

value split_cols_fn(const args_t& a, eval_context& ctx) {
    value out = split_columns_fn(a, ctx, "split_cols", "A", "p", [](std::size_t p, std::size_t cols) {
        return said("split_cols(A, p): p = {} must divide the {} columns of A", p, cols);
    });
    out.stack_axis = "devices";  // one part per device, not one head
    return out;
}

value split_rows_fn(const args_t& a, eval_context& ctx) {
    const matrix& W = need_matrix(a[0], "split_rows", "W", ctx);  // W: [r, c]
    std::size_t h = whole(a[1], 1, "split_rows", "h", ctx);
    if (W.rows % h != 0)
        formula_error(ctx, said("heads ({}) must divide the rows of W ({}) in "
                                "split_rows(W, h)", h, W.rows));
    std::size_t r = W.rows / h;
    std::vector<matrix> blocks;
    for (std::size_t i = 0; i < h; ++i) blocks.push_back(row_block(W, i * r, r));  // [r, c]
    return value::stack(std::move(blocks), {{}, a[0].rows.axis}, a[0].cols);
}

value concat_heads_fn(const args_t& a, eval_context& ctx) {
    need_stack(a[0], "concat_heads", "S", ctx);
    return join_columns(a[0]);  // [n, h·d_k]
}

value concat_cols_fn(const args_t& a, eval_context& ctx) {
    if (!a[0].is_stack())
        formula_error(ctx, said("concat_cols(S): S must be a stack of parts, got {}", a[0].shape_str()));
    return join_columns(a[0]);  // [n, p·w] = [Y_1, Y_2, ...]
}

namespace {

// Sum over heads -> [n, d], in double so the mean of many heads loses nothing.
matrix head_sum(const std::vector<matrix>& heads, double scale) {
    const matrix& first = heads.front();
    matrix out(first.rows, first.cols);
    for (std::size_t c = 0; c < first.size(); ++c) {
        double sum = 0.0;
        for (const matrix& m : heads) sum += m.data[c];
        out.data[c] = static_cast<float>(sum * scale);
    }
    return out;
}

}  // namespace

value sum_heads_fn(const args_t& a, eval_context& ctx) {
    need_stack(a[0], "sum_heads", "S", ctx);
    return value::of(head_sum(a[0].mats, 1.0), a[0].rows, a[0].cols);
}

value mean_heads_fn(const args_t& a, eval_context& ctx) {
    need_stack(a[0], "mean_heads", "S", ctx);
    double h = static_cast<double>(a[0].mats.size());
    value out = value::of(head_sum(a[0].mats, 1.0 / h), a[0].rows, a[0].cols);
    out.weights = a[0].weights;  // the mean of distributions is a distribution
    return out;
}

value batch_fn(const args_t& a, eval_context& ctx) {
    need_matrix(a[0], "batch", "M", ctx);
    value out = value::stack({a[0].mat()}, a[0].rows, a[0].cols);  // [1, n, d]
    out.weights = a[0].weights;
    out.stack_axis = "samples";  // PyTorch's batch axis: one sample, not one head
    return out;
}

}  // namespace qkv::builtin_functions
