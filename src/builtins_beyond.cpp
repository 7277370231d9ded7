// The built-ins of lessons 0 and 9–14. Those that teach a process (rnn, kv_decode,
// tiled_attention) record each step in ctx.steps so that a stepper can show it; products go
// through blas::gemm and the SVD through lapack::svd, like everything else.
#include "qkv/builtins_beyond.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include <fmt/format.h>

#include "qkv/blas.hpp"
#include "qkv/kernels.hpp"
#include "qkv/lapack.hpp"

namespace qkv {
namespace {

using args_t = std::vector<value>;

const matrix& need_matrix(const value& v, const char* fn, const char* param, const eval_context& ctx) {
    if (!v.is_matrix())
        formula_error(ctx, fmt::format("{}: {} must be a matrix, got {}", fn, param,
                                       v.is_scalar() ? "a scalar" : "a stack " + v.shape_str()));
    return v.mat();
}

// A count or a size: a whole number of at least `min`.
std::size_t whole(const value& v, std::size_t min, const char* fn, const char* param, const eval_context& ctx) {
    if (!v.is_scalar() || v.number != std::floor(v.number) || v.number < static_cast<float>(min) ||
        v.number > 16777216.0f)
        formula_error(ctx, fmt::format("{}: {} must be a whole number of at least {}, got {}", fn, param, min,
                                       v.is_scalar() ? fmt::format("{}", v.number) : v.shape_str()));
    return static_cast<std::size_t>(v.number);
}

// A result of [r, c] must fit the limit of every value (matrix.hpp): refused before allocating.
void need_cells(std::size_t r, std::size_t c, const char* fn, const eval_context& ctx) {
    if (r != 0 && c > max_cells / r)
        formula_error(ctx, fmt::format("{}: [{}, {}] would be more than the limit of 2^28 = {} cells", fn, r, c,
                                       max_cells));
}

void need_inner(const matrix& A, const matrix& B, const char* fn, const char* what, const eval_context& ctx) {
    if (A.cols != B.rows)
        formula_error(ctx, fmt::format("{}: {} do not chain: {} @ {}", fn, what, shape_str(A), shape_str(B)));
}

// A (m, k) @ B (k, n) -> (m, n), and A (m, k) @ B (n, k)^T -> (m, n).
matrix mm(const matrix& A, const matrix& B) {
    matrix C;
    blas::gemm(C, A, blas::trans::no, B, blas::trans::no);
    return C;
}
matrix mm_t(const matrix& A, const matrix& B) {
    matrix C;
    blas::gemm(C, A, blas::trans::no, B, blas::trans::yes);
    return C;
}

// Rows [r0, r0 + count) of M, and the labels that go with them.
matrix row_block(const matrix& M, std::size_t r0, std::size_t count) {
    matrix out(count, M.cols);
    std::copy_n(M.row(r0), count * M.cols, out.row(0));
    return out;
}
labels label_block(const labels& l, std::size_t r0, std::size_t count) {
    labels out{{}, l.axis};
    if (l.names.size() >= r0 + count) out.names.assign(l.names.begin() + r0, l.names.begin() + r0 + count);
    return out;
}

// Rows and columns tagged, names kept only where they fit.
value labelled(matrix m, labels rows, labels cols) {
    if (!rows.names.empty() && rows.names.size() != m.rows) rows.names.clear();
    if (!cols.names.empty() && cols.names.size() != m.cols) cols.names.clear();
    return value::of(std::move(m), std::move(rows), std::move(cols));
}

void record(eval_context& ctx, std::string label, std::vector<std::pair<std::string, value>> values) {
    if (ctx.steps) ctx.steps->push_back({std::move(label), std::move(values)});
}

// ---------------------------------------------------------------------------------------------
// Lesson 0: the recurrence.

value tanh_fn(const args_t& a, eval_context&) {
    value out = a[0];
    out.number = std::tanh(out.number);
    for (matrix& m : out.mats)
        for (float& x : m.data) x = std::tanh(x);
    out.weights = false;
    return out;
}

value one_hot_fn(const args_t& a, eval_context& ctx) {
    std::size_t n = whole(a[0], 1, "one_hot", "n", ctx);
    std::size_t i = whole(a[1], 1, "one_hot", "i", ctx);
    if (i > n) formula_error(ctx, fmt::format("one_hot(n, i): i = {} is past n = {} (rows count from 1)", i, n));
    matrix e(n, 1);  // e: [n, 1]
    e(i - 1, 0) = 1.0f;
    return value::of(std::move(e));
}

value range_fn(const args_t& a, eval_context& ctx) {
    std::size_t n = whole(a[0], 1, "range", "n", ctx);
    matrix t(n, 1);  // t: [n, 1] = 1, 2, ..., n
    for (std::size_t i = 0; i < n; ++i) t(i, 0) = static_cast<float>(i + 1);
    return value::of(std::move(t));
}

// h_t = tanh(x_t · W_xh + h_{t-1} · W_hh), h_0 = 0: each step waits for the one before.
value rnn_fn(const args_t& a, eval_context& ctx) {
    const matrix& X = need_matrix(a[0], "rnn", "X", ctx);       // [n, d]
    const matrix& W_xh = need_matrix(a[1], "rnn", "W_xh", ctx);  // [d, d_h]
    const matrix& W_hh = need_matrix(a[2], "rnn", "W_hh", ctx);  // [d_h, d_h]
    need_inner(X, W_xh, "rnn(X, W_xh, W_hh)", "X and W_xh", ctx);
    if (W_hh.rows != W_xh.cols || W_hh.cols != W_xh.cols)
        formula_error(ctx, fmt::format("rnn(X, W_xh, W_hh): W_hh must be [d_h, d_h] = [{0}, {0}] to match W_xh {1}, got {2}",
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

// |h_t - h'_t| for every t, where h' is the run with x_1 = 0: what the first token still
// contributes to each later state. [n, 1]
value rnn_influence_fn(const args_t& a, eval_context& ctx) {
    const matrix& X = need_matrix(a[0], "rnn_influence", "X", ctx);
    const matrix& W_xh = need_matrix(a[1], "rnn_influence", "W_xh", ctx);
    const matrix& W_hh = need_matrix(a[2], "rnn_influence", "W_hh", ctx);
    need_inner(X, W_xh, "rnn_influence(X, W_xh, W_hh)", "X and W_xh", ctx);
    if (W_hh.rows != W_xh.cols || W_hh.cols != W_xh.cols)
        formula_error(ctx, fmt::format("rnn_influence(X, W_xh, W_hh): W_hh must be [{0}, {0}], got {1}", W_xh.cols, shape_str(W_hh)));
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

// ---------------------------------------------------------------------------------------------
// Lesson 9: decoding one token at a time with a cache of keys and values.

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
        formula_error(ctx, fmt::format("{}: W_Q {} and W_K {} need the same d_k", fn, shape_str(W_Q), shape_str(W_K)));
    const std::size_t n = X.rows, d_k = W_K.cols, d_v = W_V.cols;
    const float scale = 1.0f / std::sqrt(static_cast<float>(d_k));
    const labels feat{{}, "features"};
    matrix K_cache(0, d_k), V_cache(0, d_v);  // grow to [t, d_k] and [t, d_v]
    matrix Z(n, d_v);                         // Z: [n, d_v], row t written at step t
    for (std::size_t t = 0; t < n; ++t) {
        matrix x_t = row_block(X, t, 1);  // the new token only: [1, d_model]
        matrix q_t = mm(x_t, W_Q), k_t = mm(x_t, W_K), v_t = mm(x_t, W_V);  // [1, d_k], [1, d_k], [1, d_v]
        K_cache.data.insert(K_cache.data.end(), k_t.data.begin(), k_t.data.end()), ++K_cache.rows;
        V_cache.data.insert(V_cache.data.end(), v_t.data.begin(), v_t.data.end()), ++V_cache.rows;
        matrix s_t = mm_t(q_t, K_cache);  // [1, t]: the new query against every cached key
        for (float& s : s_t.data) s *= scale;
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

// ---------------------------------------------------------------------------------------------
// Lesson 11: splitting a matrix across devices by columns, and joining the shares.

value split_cols_fn(const args_t& a, eval_context& ctx) {
    const matrix& A = need_matrix(a[0], "split_cols", "A", ctx);  // [r, c]
    std::size_t p = whole(a[1], 1, "split_cols", "p", ctx);
    if (A.cols % p != 0)
        formula_error(ctx, fmt::format("split_cols(A, p): p = {} must divide the {} columns of A", p, A.cols));
    const std::size_t w = A.cols / p;
    std::vector<matrix> parts;
    for (std::size_t i = 0; i < p; ++i) {
        matrix part(A.rows, w);  // A_i: [r, c/p], columns i*w .. (i+1)*w - 1
        for (std::size_t r = 0; r < A.rows; ++r) std::copy_n(A.row(r) + i * w, w, part.row(r));
        parts.push_back(std::move(part));
    }
    return value::stack(std::move(parts), a[0].rows, {{}, a[0].cols.axis});
}

value concat_cols_fn(const args_t& a, eval_context& ctx) {
    if (!a[0].is_stack())
        formula_error(ctx, fmt::format("concat_cols(S): S must be a stack of parts, got {}", a[0].shape_str()));
    const std::vector<matrix>& parts = a[0].mats;  // each [n, w]
    const std::size_t n = parts.front().rows, w = parts.front().cols;
    matrix out(n, parts.size() * w);  // [n, p*w] = [Y_1, Y_2, ...]
    for (std::size_t i = 0; i < parts.size(); ++i)
        for (std::size_t r = 0; r < n; ++r) std::copy_n(parts[i].row(r), w, out.row(r) + i * w);
    return value::of(std::move(out), a[0].rows, {{}, a[0].cols.axis});
}

// ---------------------------------------------------------------------------------------------
// Lesson 12: singular values, rank-k approximations, random features.

double frobenius(const matrix& M) {
    double sum = 0.0;
    for (float x : M.data) sum += double(x) * double(x);
    return std::sqrt(sum);
}

// U_k · diag(sigma_k) · Vt_k: the best rank-k approximation (Eckart–Young).
matrix rank_k_of(const lapack::svd_result& f, std::size_t k) {
    matrix US(f.U.rows, k);  // [m, k]
    for (std::size_t i = 0; i < US.rows; ++i)
        for (std::size_t j = 0; j < k; ++j) US(i, j) = f.U(i, j) * f.sigma[j];
    return mm(US, row_block(f.Vt, 0, k));  // [m, k] @ [k, n]
}

lapack::svd_result svd_of(const matrix& A, const char* fn, const eval_context& ctx) {
    if (A.size() == 0) formula_error(ctx, fmt::format("{}: A has no entries ({})", fn, shape_str(A)));
    try {
        return lapack::svd(A);
    } catch (const std::exception& e) {
        formula_error(ctx, fmt::format("{}: {}", fn, e.what()));
    }
}

value singular_values_fn(const args_t& a, eval_context& ctx) {
    const matrix& A = need_matrix(a[0], "singular_values", "A", ctx);
    lapack::svd_result f = svd_of(A, "singular_values(A)", ctx);
    return value::of(matrix(f.sigma.size(), 1, f.sigma));  // [min(m, n), 1], largest first
}

value rank_k_fn(const args_t& a, eval_context& ctx) {
    const matrix& A = need_matrix(a[0], "rank_k", "A", ctx);
    std::size_t k = whole(a[1], 1, "rank_k", "k", ctx);
    if (k > std::min(A.rows, A.cols))
        formula_error(ctx, fmt::format("rank_k(A, k): k = {} is more than min(m, n) = {} for A {}", k,
                                       std::min(A.rows, A.cols), shape_str(A)));
    value out = value::of(rank_k_of(svd_of(A, "rank_k(A, k)", ctx), k), a[0].rows, a[0].cols);
    return out;
}

value rank_errors_fn(const args_t& a, eval_context& ctx) {
    const matrix& A = need_matrix(a[0], "rank_errors", "A", ctx);
    lapack::svd_result f = svd_of(A, "rank_errors(A)", ctx);
    const double whole_norm = frobenius(A);
    matrix err(f.sigma.size(), 1);  // row k: |A - A_k| / |A|, by reconstruction
    for (std::size_t k = 1; k <= f.sigma.size(); ++k) {
        matrix D = rank_k_of(f, k);
        for (std::size_t c = 0; c < D.size(); ++c) D.data[c] = A.data[c] - D.data[c];
        err(k - 1, 0) = whole_norm == 0.0 ? 0.0f : static_cast<float>(frobenius(D) / whole_norm);
    }
    return value::of(std::move(err));
}

// [k, n]: row i averages the keys of segment i (n/k neighbours), a fixed Linformer-style E.
value mean_pool_fn(const args_t& a, eval_context& ctx) {
    std::size_t n = whole(a[0], 1, "mean_pool", "n", ctx);
    std::size_t k = whole(a[1], 1, "mean_pool", "k", ctx);
    if (n % k != 0) formula_error(ctx, fmt::format("mean_pool(n, k): k = {} must divide n = {}", k, n));
    const std::size_t w = n / k;
    need_cells(k, n, "mean_pool", ctx);
    matrix E(k, n);  // E: [k, n]
    for (std::size_t i = 0; i < k; ++i)
        for (std::size_t j = i * w; j < (i + 1) * w; ++j) E(i, j) = 1.0f / static_cast<float>(w);
    return value::of(std::move(E));
}

value norm_fn(const args_t& a, eval_context& ctx) {
    if (a[0].is_scalar()) return value::scalar(std::fabs(a[0].number));
    double sum = 0.0;
    for (const matrix& m : a[0].mats) sum += frobenius(m) * frobenius(m);
    (void)ctx;
    return value::scalar(static_cast<float>(std::sqrt(sum)));
}

// phi(x) = exp(x · w_i - |x|^2 / 2) / sqrt(m) for m directions w_i ~ N(0, I): positive random
// features, E[phi(q) · phi(k)] = exp(q · k). Omega: [d, m], the same seed for Q and K.
matrix features_of(const matrix& M, std::size_t m, std::uint64_t seed) {
    matrix proj = mm(M, kernels::randn(M.cols, m, seed));  // [n, m]
    const float norm = 1.0f / std::sqrt(static_cast<float>(m));
    for (std::size_t i = 0; i < M.rows; ++i) {
        double sq = 0.0;
        for (std::size_t j = 0; j < M.cols; ++j) sq += double(M(i, j)) * double(M(i, j));
        for (std::size_t j = 0; j < m; ++j)
            proj(i, j) = static_cast<float>(std::exp(double(proj(i, j)) - sq / 2.0)) * norm;
    }
    return proj;
}

value random_features_fn(const args_t& a, eval_context& ctx) {
    const matrix& M = need_matrix(a[0], "random_features", "M", ctx);
    std::size_t m = whole(a[1], 1, "random_features", "m", ctx);
    std::size_t seed = whole(a[2], 0, "random_features", "seed", ctx);
    need_cells(std::max(M.rows, M.cols), m, "random_features", ctx);
    return value::of(features_of(M, m, seed), a[0].rows, {{}, "features"});  // [n, m]
}

// softmax(Q K^T / sqrt(d_k)) V without the [n, n] matrix: phi(Q) (phi(K)^T V), row-normalised.
matrix performer(const matrix& Q, const matrix& K, const matrix& V, std::size_t m, std::uint64_t seed) {
    const float quarter = 1.0f / std::sqrt(std::sqrt(static_cast<float>(Q.cols)));  // d_k^(-1/4) on each side
    matrix Qs = Q, Ks = K;
    for (float& x : Qs.data) x *= quarter;
    for (float& x : Ks.data) x *= quarter;
    matrix phi_Q = features_of(Qs, m, seed), phi_K = features_of(Ks, m, seed);  // [n, m], [n_k, m]
    matrix KV = mm(kernels::transpose(phi_K), V);               // [m, d_v]
    matrix k_sum = kernels::row_sums(kernels::transpose(phi_K));  // [m, 1]
    matrix Z = mm(phi_Q, KV), den = mm(phi_Q, k_sum);            // [n, d_v], [n, 1]
    for (std::size_t i = 0; i < Z.rows; ++i)
        for (std::size_t j = 0; j < Z.cols; ++j) Z(i, j) /= den(i, 0);
    return Z;
}

matrix exact_attention(const matrix& Q, const matrix& K, const matrix& V) {
    matrix S = mm_t(Q, K);  // [n, n_k]
    const float scale = 1.0f / std::sqrt(static_cast<float>(Q.cols));
    for (float& s : S.data) s *= scale;
    return mm(kernels::softmax_rows(S), V);
}

void need_qkv(const matrix& Q, const matrix& K, const matrix& V, const char* fn, const eval_context& ctx) {
    if (Q.cols != K.cols || K.rows != V.rows)
        formula_error(ctx, fmt::format("{}: Q {}, K {} and V {} do not fit (Q and K need the same d_k, K and V "
                                       "the same number of rows)", fn, shape_str(Q), shape_str(K), shape_str(V)));
}

value performer_attention_fn(const args_t& a, eval_context& ctx) {
    const char* fn = "performer_attention(Q, K, V, m, seed)";
    const matrix& Q = need_matrix(a[0], "performer_attention", "Q", ctx);
    const matrix& K = need_matrix(a[1], "performer_attention", "K", ctx);
    const matrix& V = need_matrix(a[2], "performer_attention", "V", ctx);
    need_qkv(Q, K, V, fn, ctx);
    std::size_t m = whole(a[3], 1, "performer_attention", "m", ctx);
    std::size_t seed = whole(a[4], 0, "performer_attention", "seed", ctx);
    need_cells(std::max({Q.rows, K.rows, Q.cols}), m, "performer_attention", ctx);
    return value::of(performer(Q, K, V, m, seed), a[0].rows, a[2].cols);
}

// The mean over seeds 1..trials of |Z_performer - Z| / |Z| (Frobenius): one seed is luck,
// the average is what the number of features buys.
value performer_error_fn(const args_t& a, eval_context& ctx) {
    const char* fn = "performer_error(Q, K, V, m, trials)";
    const matrix& Q = need_matrix(a[0], "performer_error", "Q", ctx);
    const matrix& K = need_matrix(a[1], "performer_error", "K", ctx);
    const matrix& V = need_matrix(a[2], "performer_error", "V", ctx);
    need_qkv(Q, K, V, fn, ctx);
    std::size_t m = whole(a[3], 1, "performer_error", "m", ctx);
    std::size_t trials = whole(a[4], 1, "performer_error", "trials", ctx);
    // Each trial draws features for every row: the same limit on all of them together, or a
    // formula could ask for hours of work.
    need_cells(std::max({Q.rows, K.rows, Q.cols}) * trials, m, "performer_error (rows × trials, m)", ctx);
    const matrix Z = exact_attention(Q, K, V);
    const double z_norm = frobenius(Z);
    double sum = 0.0;
    for (std::size_t s = 1; s <= trials; ++s) {
        matrix D = performer(Q, K, V, m, s);
        for (std::size_t c = 0; c < D.size(); ++c) D.data[c] -= Z.data[c];
        sum += z_norm == 0.0 ? frobenius(D) : frobenius(D) / z_norm;
    }
    return value::scalar(static_cast<float>(sum / double(trials)));
}

// ---------------------------------------------------------------------------------------------
// Lesson 13: attention over blocks of keys with a running max and sum (online softmax).

value tiled_attention_fn(const args_t& a, eval_context& ctx) {
    const char* fn = "tiled_attention(Q, K, V, block)";
    const matrix& Q = need_matrix(a[0], "tiled_attention", "Q", ctx);  // [n, d_k]
    const matrix& K = need_matrix(a[1], "tiled_attention", "K", ctx);  // [n_k, d_k]
    const matrix& V = need_matrix(a[2], "tiled_attention", "V", ctx);  // [n_k, d_v]
    need_qkv(Q, K, V, fn, ctx);
    const std::size_t b = whole(a[3], 1, "tiled_attention", "block", ctx);
    const std::size_t n = Q.rows, n_k = K.rows, d_v = V.cols;
    const float scale = 1.0f / std::sqrt(static_cast<float>(Q.cols));
    const labels col{{}, ""};
    matrix m(n, 1, -std::numeric_limits<float>::infinity());  // running max of each row
    matrix l(n, 1);                                            // running sum of exp(s - m)
    matrix O(n, d_v);                                          // running sum of exp(s - m) v
    for (std::size_t j0 = 0; j0 < n_k; j0 += b) {
        const std::size_t w = std::min(b, n_k - j0);
        matrix S_j = mm_t(Q, row_block(K, j0, w));  // [n, w]: this block's scores only
        for (float& s : S_j.data) s *= scale;
        matrix rescale(n, 1), P = S_j;
        for (std::size_t i = 0; i < n; ++i) {
            float m_new = m(i, 0);
            for (std::size_t j = 0; j < w; ++j) m_new = std::max(m_new, S_j(i, j));
            // pass 1: a larger max shrinks everything summed so far by exp(m_old - m_new)
            rescale(i, 0) = std::exp(m(i, 0) - m_new);
            m(i, 0) = m_new;
            // pass 2: this block's exp, relative to the running max (never above 1)
            for (std::size_t j = 0; j < w; ++j) P(i, j) = std::exp(S_j(i, j) - m_new);
        }
        matrix PV = mm(P, row_block(V, j0, w));  // [n, d_v]
        for (std::size_t i = 0; i < n; ++i) {
            float sum = 0.0f;
            for (std::size_t j = 0; j < w; ++j) sum += P(i, j);
            l(i, 0) = l(i, 0) * rescale(i, 0) + sum;
            for (std::size_t c = 0; c < d_v; ++c) O(i, c) = O(i, c) * rescale(i, 0) + PV(i, c);
        }
        labels keys = label_block(a[1].rows, j0, w);
        if (keys.names.empty())  // unnamed keys: number them across blocks, not from 1 in each
            for (std::size_t j = j0; j < j0 + w; ++j) keys.names.push_back(std::to_string(j + 1));
        record(ctx, w == 1 ? fmt::format("j = {}", j0 + 1) : fmt::format("j = {}…{}", j0 + 1, j0 + w),
               {{"S_j", labelled(S_j, {a[0].rows.names, "queries"}, {keys.names, "keys"})}, {"m", labelled(m, a[0].rows, col)},
                {"rescale", labelled(rescale, a[0].rows, col)}, {"l", labelled(l, a[0].rows, col)},
                {"O", labelled(O, a[0].rows, {{}, "features"})}});
    }
    // pass 3: divide by the sum once, at the end
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t c = 0; c < d_v; ++c) O(i, c) /= l(i, 0);
    return labelled(std::move(O), a[0].rows, {{}, "features"});
}

// ---------------------------------------------------------------------------------------------
// Lesson 14: positions, and the order of the rows.

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

}  // namespace

std::vector<builtin> beyond_builtins() {
    return {
        {"tanh", 1, 1, "tanh(x)", "hyperbolic tangent of every entry; scalar, matrix or stack", tanh_fn},
        {"one_hot", 2, 2, "one_hot(n, i)", "[n, 1] column of zeros with a 1 in row i (from 1)", one_hot_fn},
        {"range", 1, 1, "range(n)", "[n, 1] column 1, 2, ..., n", range_fn},
        {"rnn", 3, 3, "rnn(X, W_xh, W_hh)", "h_t = tanh(x_t W_xh + h_{t-1} W_hh) from h_0 = 0, one step per row: [n, d] -> H [n, d_h]; records each step", rnn_fn},
        {"rnn_influence", 3, 3, "rnn_influence(X, W_xh, W_hh)", "|h_t - h'_t| for each t, h' the same RNN with x_1 = 0: how much of token 1 is left in each state -> [n, 1]", rnn_influence_fn},
        {"kv_decode", 4, 4, "kv_decode(X, W_Q, W_K, W_V)", "causal attention one token at a time with a growing K/V cache: [n, d_model] -> Z [n, d_v]; records each step", kv_decode_fn},
        {"split_cols", 2, 2, "split_cols(A, p)", "[r, c] -> stack [p, r, c/p]: A = [A_1, ..., A_p] by columns (one part per device)", split_cols_fn},
        {"concat_cols", 1, 1, "concat_cols(S)", "stack [p, n, w] -> [n, p*w]: the parts side by side, [Y_1, ..., Y_p]", concat_cols_fn},
        {"singular_values", 1, 1, "singular_values(A)", "singular values of A [m, n] (LAPACK) -> [min(m, n), 1], largest first", singular_values_fn},
        {"rank_k", 2, 2, "rank_k(A, k)", "the best rank-k approximation U_k diag(sigma_k) V_k^T of A [m, n] -> [m, n]", rank_k_fn},
        {"rank_errors", 1, 1, "rank_errors(A)", "relative error |A - A_k| / |A| (Frobenius) for k = 1 .. min(m, n) -> [min(m, n), 1]", rank_errors_fn},
        {"mean_pool", 2, 2, "mean_pool(n, k)", "[k, n]: row i averages n/k neighbouring rows (segment i); E @ K turns n keys into k", mean_pool_fn},
        {"norm", 1, 1, "norm(M)", "Frobenius norm: the square root of the sum of every entry squared -> scalar", norm_fn},
        {"random_features", 3, 3, "random_features(M, m, seed)", "positive random features exp(x w - |x|^2/2) / sqrt(m), w ~ N(0, I) seeded: [n, d] -> [n, m]", random_features_fn},
        {"performer_attention", 5, 5, "performer_attention(Q, K, V, m, seed)", "softmax attention estimated with m random features, linear in n (Performer) -> [n, d_v]", performer_attention_fn},
        {"performer_error", 5, 5, "performer_error(Q, K, V, m, trials)", "mean over seeds 1..trials of |Z_performer - Z| / |Z| (Frobenius) -> scalar", performer_error_fn},
        {"tiled_attention", 4, 4, "tiled_attention(Q, K, V, block)", "softmax(Q K^T / sqrt(d_k)) V over blocks of keys with a running max and sum (online softmax); records each block", tiled_attention_fn},
        {"sinusoidal_positions", 2, 2, "sinusoidal_positions(n, d)", "[n, d] sine/cosine position encodings, PE(pos, 2i) = sin(pos / 10000^(2i/d)), pos from 0", sinusoidal_positions_fn},
        {"reverse_rows", 1, 1, "reverse_rows(M)", "the rows (and their labels) in reverse order", reverse_rows_fn},
        {"reverse_cols", 1, 1, "reverse_cols(M)", "the columns (and their labels) in reverse order", reverse_cols_fn},
    };
}

}  // namespace qkv
