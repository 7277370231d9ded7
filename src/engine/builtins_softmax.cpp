// Built-ins of the softmax: the stable one, the two common mistakes beside it (no max
// subtracted, down the columns), the causal mask, how flat a softmax's gradient is, and the
// online softmax over blocks of keys (lesson 13), which records each block.
#include "builtin_functions.hpp"

#include <cmath>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "qkv/builtin_values.hpp"
#include "qkv/kernels.hpp"

namespace qkv::builtin_functions {

using namespace builtin_detail;

value softmax_fn(const args_t& a, eval_context& ctx) {
    return weights_of_each(a[0], "softmax", "S", ctx, kernels::softmax_rows);
}

value softmax_naive_fn(const args_t& a, eval_context& ctx) {
    return weights_of_each(a[0], "softmax_naive", "S", ctx, kernels::softmax_rows_naive);
}

value softmax_cols_fn(const args_t& a, eval_context& ctx) {
    need_mats(a[0], "softmax_cols", "S", ctx);
    return map_mats(a[0], kernels::softmax_cols);
}

value causal_mask_fn(const args_t& a, eval_context& ctx) {
    std::size_t n = whole(a[0], 0, "causal_mask", "n", ctx);
    need_cells(n, n, "causal_mask", ctx);
    return value::of(kernels::causal_mask(n), {{}, "queries"}, {{}, "keys"});  // [n, n]
}

value softmax_jacobian_norm_fn(const args_t& a, eval_context& ctx) {
    return column_of_each(a[0], "softmax_jacobian_norm", "P", ctx, kernels::softmax_jacobian_norm);
}

namespace {

// The running state of the online softmax, one row per query.
struct online_rows {
    matrix m;  // [n, 1]: running max of each row
    matrix l;  // [n, 1]: running sum of exp(s - m)
    matrix O;  // [n, d_v]: running sum of exp(s - m) v
};

// Folds one block of scores S_j [n, w] and its values V_j [w, d_v] into the running state;
// returns the factor each row's earlier sums were shrunk by.
matrix fold_block(online_rows& r, const matrix& S_j, const matrix& V_j) {
    const std::size_t n = S_j.rows, w = S_j.cols;
    matrix rescale(n, 1), P = S_j;
    for (std::size_t i = 0; i < n; ++i) {
        float m_new = r.m(i, 0);
        for (std::size_t j = 0; j < w; ++j) m_new = std::max(m_new, S_j(i, j));
        // pass 1: a larger max shrinks everything summed so far by exp(m_old - m_new)
        rescale(i, 0) = std::exp(r.m(i, 0) - m_new);
        r.m(i, 0) = m_new;
        // pass 2: this block's exp, relative to the running max (never above 1)
        for (std::size_t j = 0; j < w; ++j) P(i, j) = std::exp(S_j(i, j) - m_new);
    }
    matrix PV = mm(P, V_j);  // [n, d_v]
    for (std::size_t i = 0; i < n; ++i) {
        float sum = 0.0f;
        for (std::size_t j = 0; j < w; ++j) sum += P(i, j);
        r.l(i, 0) = r.l(i, 0) * rescale(i, 0) + sum;
        for (std::size_t c = 0; c < r.O.cols; ++c) r.O(i, c) = r.O(i, c) * rescale(i, 0) + PV(i, c);
    }
    return rescale;
}

}  // namespace

value tiled_attention_fn(const args_t& a, eval_context& ctx) {
    const auto [Q, K, V] = need_qkv(a, "tiled_attention", "tiled_attention(Q, K, V, block)", ctx);
    const std::size_t b = whole(a[3], 1, "tiled_attention", "block", ctx);
    const std::size_t n = Q.rows, n_k = K.rows, d_v = V.cols;  // Q [n, d_k], K [n_k, d_k], V [n_k, d_v]
    const float scale = 1.0f / std::sqrt(static_cast<float>(Q.cols));
    const labels col{{}, ""};
    online_rows r{matrix(n, 1, -std::numeric_limits<float>::infinity()), matrix(n, 1), matrix(n, d_v)};
    for (std::size_t j0 = 0; j0 < n_k; j0 += b) {
        const std::size_t w = std::min(b, n_k - j0);
        matrix S_j = mm_t(Q, row_block(K, j0, w));  // [n, w]: this block's scores only
        for (float& s : S_j.data) s *= scale;
        matrix rescale = fold_block(r, S_j, row_block(V, j0, w));
        labels keys = label_block(a[1].rows, j0, w);
        if (keys.names.empty())  // unnamed keys: number them across blocks, not from 1 in each
            for (std::size_t j = j0; j < j0 + w; ++j) keys.names.push_back(std::to_string(j + 1));
        record(ctx, w == 1 ? fmt::format("j = {}", j0 + 1) : fmt::format("j = {}…{}", j0 + 1, j0 + w),
               {{"S_j", labelled(S_j, {a[0].rows.names, "queries"}, {keys.names, "keys"})}, {"m", labelled(r.m, a[0].rows, col)},
                {"rescale", labelled(rescale, a[0].rows, col)}, {"l", labelled(r.l, a[0].rows, col)},
                {"O", labelled(r.O, a[0].rows, {{}, "features"})}});
    }
    // pass 3: divide by the sum once, at the end
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t c = 0; c < d_v; ++c) r.O(i, c) /= r.l(i, 0);
    return labelled(std::move(r.O), a[0].rows, {{}, "features"});
}

}  // namespace qkv::builtin_functions
