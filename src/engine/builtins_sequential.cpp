// Built-ins that run one token at a time and record each step: the recurrence of an RNN
// (lesson 0, and how little of the first token its last state keeps) and causal attention
// decoding with a growing cache of keys and values (lesson 9).
#include "builtin_functions.hpp"

#include <cmath>

#include <fmt/format.h>

#include "qkv/builtin_values.hpp"
#include "qkv/kernels.hpp"

namespace qkv::builtin_functions {

using namespace builtin_detail;

namespace {

void need_inner(const matrix& A, const matrix& B, const char* fn, const char* what, const eval_context& ctx) {
    if (A.cols != B.rows)
        formula_error(ctx, said("{}: {} do not chain: {} @ {}", fn, what, shape_str(A), shape_str(B)));
}

}  // namespace

// h_t = tanh(x_t · W_xh + h_{t-1} · W_hh), h_0 = 0: each step waits for the one before.
value rnn_fn(const args_t& a, eval_context& ctx) {
    const matrix& X = need_matrix(a[0], "rnn", "X", ctx);       // [n, d]
    const matrix& W_xh = need_matrix(a[1], "rnn", "W_xh", ctx);  // [d, d_h]
    const matrix& W_hh = need_matrix(a[2], "rnn", "W_hh", ctx);  // [d_h, d_h]
    need_inner(X, W_xh, "rnn(X, W_xh, W_hh)", "X and W_xh", ctx);
    if (W_hh.rows != W_xh.cols || W_hh.cols != W_xh.cols)
        formula_error(ctx, said("rnn(X, W_xh, W_hh): W_hh must be [d_h, d_h] = [{0}, {0}] to match W_xh {1}, got {2}",
                                W_xh.cols, shape_str(W_xh), shape_str(W_hh)));
    const labels feat{{}, "features"};
    matrix H(X.rows, W_xh.cols);  // H: [n, d_h], row t is h_t
    matrix h(1, W_xh.cols);       // h_0 = 0: [1, d_h]
    for (std::size_t t = 0; t < X.rows; ++t) {
        matrix x_t = row_block(X, t, 1);  // [1, d]
        matrix pre = mm(x_t, W_xh), carried = mm(h, W_hh);
        matrix h_t(1, W_xh.cols);
        for (std::size_t j = 0; j < h_t.cols; ++j) h_t(0, j) = std::tanh(pre(0, j) + carried(0, j));
        std::copy_n(h_t.row(0), h_t.cols, H.row(t));
        labels tok = label_block(a[0].rows, t, 1);
        labels before = t == 0 ? labels{{"—"}, ""} : label_block(a[0].rows, t - 1, 1);  // h_0 follows no token
        record(ctx, fmt::format("t = {}", t + 1),
               {{"x_t", labelled(x_t, tok, feat)}, {"h_{t-1}", labelled(h, before, feat)}, {"h_t", labelled(h_t, tok, feat)}});
        h = std::move(h_t);
    }
    return labelled(std::move(H), a[0].rows, feat);
}

namespace {

// The states alone, recording nothing: h_t for every t.
matrix rnn_states(const matrix& X, const matrix& W_xh, const matrix& W_hh) {
    matrix H(X.rows, W_xh.cols), h(1, W_xh.cols);  // H: [n, d_h], h_0 = 0
    for (std::size_t t = 0; t < X.rows; ++t) {
        matrix pre = mm(row_block(X, t, 1), W_xh), carried = mm(h, W_hh);
        for (std::size_t j = 0; j < h.cols; ++j) h(0, j) = std::tanh(pre(0, j) + carried(0, j));
        std::copy_n(h.row(0), h.cols, H.row(t));
    }
    return H;
}

}  // namespace

// |h_t - h'_t| for every t, where h' is the run with x_1 = 0: what the first token still
// contributes to each later state. [n, 1]
value rnn_influence_fn(const args_t& a, eval_context& ctx) {
    const matrix& X = need_matrix(a[0], "rnn_influence", "X", ctx);
    const matrix& W_xh = need_matrix(a[1], "rnn_influence", "W_xh", ctx);
    const matrix& W_hh = need_matrix(a[2], "rnn_influence", "W_hh", ctx);
    need_inner(X, W_xh, "rnn_influence(X, W_xh, W_hh)", "X and W_xh", ctx);
    if (W_hh.rows != W_xh.cols || W_hh.cols != W_xh.cols)
        formula_error(ctx, said("rnn_influence(X, W_xh, W_hh): W_hh must be [{0}, {0}], got {1}", W_xh.cols, shape_str(W_hh)));
    matrix X_without = X;
    if (X.rows > 0) std::fill_n(X_without.row(0), X.cols, 0.0f);
    matrix H = rnn_states(X, W_xh, W_hh), H_without = rnn_states(X_without, W_xh, W_hh);
    matrix out(X.rows, 1);
    for (std::size_t t = 0; t < X.rows; ++t) {
        double sq = 0.0;
        for (std::size_t j = 0; j < H.cols; ++j) sq += std::pow(double(H(t, j)) - double(H_without(t, j)), 2);
        out(t, 0) = static_cast<float>(std::sqrt(sq));
    }
    return value::of(std::move(out), a[0].rows, {});
}

value kv_decode_fn(const args_t& a, eval_context& ctx) {
    const char* fn = "kv_decode(X, W_Q, W_K, W_V)";
    const matrix& X = need_matrix(a[0], "kv_decode", "X", ctx);  // [n, d_model]
    const matrix& W_Q = need_matrix(a[1], "kv_decode", "W_Q", ctx);
    const matrix& W_K = need_matrix(a[2], "kv_decode", "W_K", ctx);
    const matrix& W_V = need_matrix(a[3], "kv_decode", "W_V", ctx);
    need_inner(X, W_Q, fn, "X and W_Q", ctx);
    need_inner(X, W_K, fn, "X and W_K", ctx);
    need_inner(X, W_V, fn, "X and W_V", ctx);
    if (W_Q.cols != W_K.cols)
        formula_error(ctx, said("{}: W_Q {} and W_K {} need the same d_k", fn, shape_str(W_Q), shape_str(W_K)));
    const std::size_t n = X.rows, d_k = W_K.cols, d_v = W_V.cols;
    const labels feat{{}, "features"};
    matrix K_cache(0, d_k), V_cache(0, d_v);  // grow to [t, d_k] and [t, d_v]
    matrix Z(n, d_v);                         // Z: [n, d_v], row t written at step t
    for (std::size_t t = 0; t < n; ++t) {
        matrix x_t = row_block(X, t, 1);  // the new token only: [1, d_model]
        matrix q_t = mm(x_t, W_Q), k_t = mm(x_t, W_K), v_t = mm(x_t, W_V);  // [1, d_k], [1, d_k], [1, d_v]
        K_cache.data.insert(K_cache.data.end(), k_t.data.begin(), k_t.data.end()), ++K_cache.rows;
        V_cache.data.insert(V_cache.data.end(), v_t.data.begin(), v_t.data.end()), ++V_cache.rows;
        matrix s_t = kv_scores(q_t, K_cache);  // [1, t]: the new query against every cached key
        matrix a_t = kernels::softmax_rows(s_t);
        matrix z_t = mm(a_t, V_cache);  // [1, d_v]
        std::copy_n(z_t.row(0), d_v, Z.row(t));
        labels tok = label_block(a[0].rows, t, 1), seen = label_block(a[0].rows, 0, t + 1);
        value weights = labelled(a_t, {tok.names, "queries"}, {seen.names, "keys"});
        weights.weights = true;
        record(ctx, fmt::format("t = {}", t + 1),
               {{"q_t", labelled(q_t, tok, feat)}, {"k_t", labelled(k_t, tok, feat)}, {"v_t", labelled(v_t, tok, feat)},
                {"K_cache", labelled(K_cache, seen, feat)}, {"V_cache", labelled(V_cache, seen, feat)},
                {"a_t", weights}, {"z_t", labelled(z_t, tok, feat)}});
    }
    return labelled(std::move(Z), a[0].rows, feat);
}

}  // namespace qkv::builtin_functions

namespace qkv {

matrix kv_scores(const matrix& q_t, const matrix& K_cache) {
    const float scale = 1.0f / std::sqrt(static_cast<float>(K_cache.cols));
    matrix s_t = builtin_detail::mm_t(q_t, K_cache);  // [1, t]
    for (float& s : s_t.data) s *= scale;
    return s_t;
}

}  // namespace qkv
