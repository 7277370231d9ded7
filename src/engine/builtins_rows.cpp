// Built-ins that work row by row: cosine similarity of rows, each row's sum, largest entry or dot
// product with the matching row of another matrix, and each row's entry on one diagonal.
#include "builtin_functions.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "qkv/builtin_values.hpp"
#include "qkv/kernels.hpp"

namespace qkv::builtin_functions {

using namespace builtin_detail;

value cosine_fn(const args_t& a, eval_context& ctx) {
    const value& A = a[0];
    const value& B = a[1];
    need_mats(A, "cosine", "A", ctx);
    need_mats(B, "cosine", "B", ctx);
    if (A.mats.front().cols != B.mats.front().cols)
        formula_error(ctx, said("cosine(A, B) compares rows of equal length: the first "
                                "argument is {}, the second is {}",
                                A.shape_str(), B.shape_str()));
    value out = zip_mats(A, B, "cosine", ctx, kernels::cosine_rows);  // [m, n]
    out.rows = A.rows;
    out.cols = B.rows;  // one column per row of B
    return out;
}

value row_sums_fn(const args_t& a, eval_context& ctx) {
    return column_of_each(a[0], "row_sums", "A", ctx, kernels::row_sums);
}

namespace {

// Largest entry of each row -> [n, 1]; a NaN anywhere in the row makes it NaN.
matrix row_max(const matrix& A) {
    matrix out(A.rows, 1);
    for (std::size_t i = 0; i < A.rows; ++i) {
        float best = -std::numeric_limits<float>::infinity();
        for (std::size_t j = 0; j < A.cols; ++j)
            best = std::isnan(A(i, j)) || std::isnan(best) ? NAN : std::max(best, A(i, j));
        out(i, 0) = best;
    }
    return out;
}

// Dot product of matching rows -> [n, 1], accumulated in double like matmul_ref.
matrix rowdot(const matrix& A, const matrix& B) {
    matrix out(A.rows, 1);
    for (std::size_t i = 0; i < A.rows; ++i) {
        double sum = 0.0;
        for (std::size_t j = 0; j < A.cols; ++j) sum += double(A(i, j)) * double(B(i, j));
        out(i, 0) = static_cast<float>(sum);
    }
    return out;
}

}  // namespace

value row_max_fn(const args_t& a, eval_context& ctx) {
    return column_of_each(a[0], "row_max", "A", ctx, row_max);
}

value rowdot_fn(const args_t& a, eval_context& ctx) {
    need_mats(a[0], "rowdot", "A", ctx);
    need_mats(a[1], "rowdot", "B", ctx);
    const matrix& A = a[0].mats.front();
    const matrix& B = a[1].mats.front();
    if (A.rows != B.rows || A.cols != B.cols)
        formula_error(ctx, said("rowdot(A, B) needs two matrices of the same shape: the "
                                "first argument is {}, the second is {}",
                                a[0].shape_str(), a[1].shape_str()));
    value out = zip_mats(a[0], a[1], "rowdot", ctx, rowdot);
    out.rows = a[0].rows;
    return out;
}

// The entries M[i, i + k] down one diagonal: k = 0 the main one, k = −1 the one just below it
// (each row's entry one column back, where a previous-token head puts its weight).
value diagonal_fn(const args_t& a, eval_context& ctx) {
    need_mats(a[0], "diagonal", "M", ctx);
    const float k = a[1].is_scalar() ? a[1].number : 0.5f;
    const matrix& M = a[0].mats.front();
    // rows i with 0 <= i + k < cols: the diagonal has an entry only for some k
    if (!a[1].is_scalar() || k != std::round(k) || k <= -float(M.rows) || k >= float(M.cols))
        formula_error(ctx, said("diagonal(M, k): k must be a whole number from {} to {} for M {}, got {}",
                                1 - long(M.rows), long(M.cols) - 1, a[0].shape_str(), kind_text(a[1])));
    const long shift = static_cast<long>(k);
    value out = map_mats(a[0], [&](const matrix& m) {
        std::vector<float> entries;
        for (long i = 0; i < long(m.rows); ++i)
            if (i + shift >= 0 && i + shift < long(m.cols)) entries.push_back(m(std::size_t(i), std::size_t(i + shift)));
        const std::size_t count = entries.size();
        return matrix(count, 1, std::move(entries));
    });
    out.rows = out.cols = {};
    return out;
}

}  // namespace qkv::builtin_functions
