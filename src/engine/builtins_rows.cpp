// Built-ins that work row by row: cosine similarity of rows, and each row's sum, largest entry
// or dot product with the matching row of another matrix.
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "qkv/builtin_values.hpp"
#include "qkv/kernels.hpp"

namespace qkv {
namespace {

using namespace builtin_detail;

value cosine_fn(const args_t& a, eval_context& ctx) {
    const value& A = a[0];
    const value& B = a[1];
    need_mats(A, "cosine", "A", ctx);
    need_mats(B, "cosine", "B", ctx);
    if (A.mats.front().cols != B.mats.front().cols)
        formula_error(ctx, fmt::format("cosine(A, B) compares rows of equal length: the first "
                                       "argument is {}, the second is {}",
                                       A.shape_str(), B.shape_str()));
    value out = zip_mats(A, B, "cosine", ctx, kernels::cosine_rows);  // [m, n]
    out.rows = A.rows;
    out.cols = B.rows;  // one column per row of B
    return out;
}

value row_sums_fn(const args_t& a, eval_context& ctx) {
    need_mats(a[0], "row_sums", "A", ctx);
    value out = map_mats(a[0], kernels::row_sums);  // [n, 1]
    out.cols = {};
    return out;
}

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

value row_max_fn(const args_t& a, eval_context& ctx) {
    need_mats(a[0], "row_max", "A", ctx);
    value out = map_mats(a[0], row_max);  // [n, 1]
    out.cols = {};
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

value rowdot_fn(const args_t& a, eval_context& ctx) {
    need_mats(a[0], "rowdot", "A", ctx);
    need_mats(a[1], "rowdot", "B", ctx);
    const matrix& A = a[0].mats.front();
    const matrix& B = a[1].mats.front();
    if (A.rows != B.rows || A.cols != B.cols)
        formula_error(ctx, fmt::format("rowdot(A, B) needs two matrices of the same shape: the "
                                       "first argument is {}, the second is {}",
                                       a[0].shape_str(), a[1].shape_str()));
    value out = zip_mats(a[0], a[1], "rowdot", ctx, rowdot);
    out.rows = a[0].rows;
    return out;
}

}  // namespace

std::vector<builtin> builtin_groups::rows() {
    return {
        {"cosine", 2, 2, "cosine(A, B)",
         "cosine similarity of each row of A [m, d] with each row of B [n, d] -> [m, n]",
         cosine_fn},
        {"row_sums", 1, 1, "row_sums(A)", "sum of each row: [n, m] -> [n, 1]", row_sums_fn},
        {"row_max", 1, 1, "row_max(A)", "largest entry of each row: [n, m] -> [n, 1]", row_max_fn},
        {"rowdot", 2, 2, "rowdot(A, B)",
         "dot product of matching rows: [n, d] and [n, d] -> [n, 1]",
         rowdot_fn},
    };
}

}  // namespace qkv
