// Built-ins of positions (lesson 14): sinusoidal position encodings, and the rows or columns of
// a matrix in reverse order, to show that attention without positions cannot tell.
#include "builtin_functions.hpp"

#include <algorithm>
#include <cmath>

#include "qkv/builtin_values.hpp"

namespace qkv::builtin_functions {

using namespace builtin_detail;

// PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d)), pos from 0.
value sinusoidal_positions_fn(const args_t& a, eval_context& ctx) {
    std::size_t n = whole(a[0], 1, "sinusoidal_positions", "n", ctx);
    std::size_t d = whole(a[1], 1, "sinusoidal_positions", "d", ctx);
    need_cells(n, d, "sinusoidal_positions", ctx);
    matrix PE(n, d);  // PE: [n, d]
    for (std::size_t pos = 0; pos < n; ++pos)
        for (std::size_t c = 0; c < d; ++c) {
            double freq = std::pow(10000.0, -double(c - c % 2) / double(d));
            double angle = double(pos) * freq;
            PE(pos, c) = static_cast<float>(c % 2 == 0 ? std::sin(angle) : std::cos(angle));
        }
    return value::of(std::move(PE), {}, {{}, "features"});
}

value reverse_rows_fn(const args_t& a, eval_context& ctx) {
    const matrix& M = need_matrix(a[0], "reverse_rows", "M", ctx);
    matrix out(M.rows, M.cols);
    for (std::size_t i = 0; i < M.rows; ++i) std::copy_n(M.row(M.rows - 1 - i), M.cols, out.row(i));
    labels rows = a[0].rows;
    std::reverse(rows.names.begin(), rows.names.end());
    value v = value::of(std::move(out), rows, a[0].cols);
    v.weights = a[0].weights;
    return v;
}

value reverse_cols_fn(const args_t& a, eval_context& ctx) {
    const matrix& M = need_matrix(a[0], "reverse_cols", "M", ctx);
    matrix out(M.rows, M.cols);
    for (std::size_t i = 0; i < M.rows; ++i)
        for (std::size_t j = 0; j < M.cols; ++j) out(i, j) = M(i, M.cols - 1 - j);
    labels cols = a[0].cols;
    std::reverse(cols.names.begin(), cols.names.end());
    value v = value::of(std::move(out), a[0].rows, cols);
    v.weights = a[0].weights;
    return v;
}

}  // namespace qkv::builtin_functions
