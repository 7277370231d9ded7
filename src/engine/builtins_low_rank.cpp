// Built-ins of low rank (lesson 12): singular values and the best rank-k approximations (through
// lapack::svd), a fixed Linformer-style pooling of keys, and the Performer's positive random
// features, which estimate softmax attention without the [n, n] matrix.
#include "builtin_functions.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "qkv/blas.hpp"
#include "qkv/builtin_values.hpp"
#include "qkv/kernels.hpp"
#include "qkv/lapack.hpp"
#include "qkv/work_budget.hpp"

namespace qkv::builtin_functions {

using namespace builtin_detail;

namespace {

// U_k · diag(sigma_k) · Vt_k: the best rank-k approximation (Eckart–Young).
matrix rank_k_of(const lapack::svd_result& f, std::size_t k) {
    matrix US(f.U.rows, k);  // [m, k]
    for (std::size_t i = 0; i < US.rows; ++i)
        for (std::size_t j = 0; j < k; ++j) US(i, j) = f.U(i, j) * f.sigma[j];
    return mm(US, row_block(f.Vt, 0, k));  // [m, k] @ [k, n]
}

lapack::svd_result svd_of(const matrix& A, const char* fn, const eval_context& ctx) {
    if (A.size() == 0) formula_error(ctx, said("{}: A has no entries ({})", fn, shape_str(A)));
    // lapack::svd refuses these too (sgesvd would spin for ever), in English only: said here first
    for (std::size_t c = 0; c < A.size(); ++c)
        if (!std::isfinite(A.data[c]))
            formula_error(ctx, said("{}: A[{}, {}] is {}; the SVD needs finite entries", fn, c / A.cols + 1, c % A.cols + 1,
                                    std::isnan(A.data[c]) ? "NaN" : A.data[c] > 0 ? "inf" : "-inf"));
    try {
        return lapack::svd(A);
    } catch (const work_exceeded&) {
        throw;  // the evaluator names the operation and the limit
    } catch (const std::exception& e) {
        formula_error(ctx, said("{}: {}", fn, e.what()));
    }
}

}  // namespace

value singular_values_fn(const args_t& a, eval_context& ctx) {
    const matrix& A = need_matrix(a[0], "singular_values", "A", ctx);
    lapack::svd_result f = svd_of(A, "singular_values(A)", ctx);
    return value::of(matrix(f.sigma.size(), 1, f.sigma));  // [min(m, n), 1], largest first
}

value rank_k_fn(const args_t& a, eval_context& ctx) {
    const matrix& A = need_matrix(a[0], "rank_k", "A", ctx);
    std::size_t k = whole(a[1], 1, "rank_k", "k", ctx);
    if (k > std::min(A.rows, A.cols))
        formula_error(ctx, said("rank_k(A, k): k = {} is more than min(m, n) = {} for A {}", k,
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

namespace {

// phi(x) = exp(x · w_i - |x|^2 / 2) / sqrt(m) for m directions w_i ~ N(0, I): positive random
// features, E[phi(q) · phi(k)] = exp(q · k). Omega: [d, m], the w_i as columns: one draw serves Q and K.
matrix features_of(const matrix& M, const matrix& Omega) {
    matrix proj = mm(M, Omega);  // [n, m]
    const std::size_t m = Omega.cols;
    const float norm = 1.0f / std::sqrt(static_cast<float>(m));
    for (std::size_t i = 0; i < M.rows; ++i) {
        double sq = 0.0;
        for (std::size_t j = 0; j < M.cols; ++j) sq += double(M(i, j)) * double(M(i, j));
        for (std::size_t j = 0; j < m; ++j)
            proj(i, j) = static_cast<float>(std::exp(double(proj(i, j)) - sq / 2.0)) * norm;
    }
    return proj;
}

// softmax(Q K^T / sqrt(d_k)) V without the [n, n] matrix: phi(Q) (phi(K)^T V), row-normalised.
matrix performer(const matrix& Q, const matrix& K, const matrix& V, std::size_t m, std::uint64_t seed) {
    const float quarter = 1.0f / std::sqrt(std::sqrt(static_cast<float>(Q.cols)));  // d_k^(-1/4) on each side
    matrix Qs = Q, Ks = K;
    for (float& x : Qs.data) x *= quarter;
    for (float& x : Ks.data) x *= quarter;
    const matrix Omega = kernels::randn(Q.cols, m, seed);  // [d_k, m], drawn once for both sides
    matrix phi_Q = features_of(Qs, Omega), phi_K = features_of(Ks, Omega);  // [n, m], [n_k, m]
    // phi(K)^T read in place, not made: making it was 7 % of lesson 12's time (performer_error
    // calls this 80 times, at m up to 1024); the products and sums are the same to the bit
    matrix KV;  // [m, d_v]
    blas::gemm(KV, phi_K, blas::trans::yes, V, blas::trans::no);
    matrix k_sum(m, 1);  // [m, 1]: column j of phi(K) summed, in double, row after row
    std::vector<double> column_sum(m, 0.0);
    for (std::size_t i = 0; i < phi_K.rows; ++i)
        for (std::size_t j = 0; j < m; ++j) column_sum[j] += phi_K(i, j);
    for (std::size_t j = 0; j < m; ++j) k_sum(j, 0) = static_cast<float>(column_sum[j]);
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

}  // namespace

value random_features_fn(const args_t& a, eval_context& ctx) {
    const matrix& M = need_matrix(a[0], "random_features", "M", ctx);
    std::size_t m = whole(a[1], 1, "random_features", "m", ctx);
    std::size_t seed = whole(a[2], 0, "random_features", "seed", ctx);
    need_cells(std::max(M.rows, M.cols), m, "random_features", ctx);
    return value::of(features_of(M, kernels::randn(M.cols, m, seed)), a[0].rows, {{}, "features"});  // [n, m]
}

value performer_attention_fn(const args_t& a, eval_context& ctx) {
    const auto [Q, K, V] = need_qkv(a, "performer_attention", "performer_attention(Q, K, V, m, seed)", ctx);
    std::size_t m = whole(a[3], 1, "performer_attention", "m", ctx);
    std::size_t seed = whole(a[4], 0, "performer_attention", "seed", ctx);
    need_cells(std::max({Q.rows, K.rows, Q.cols}), m, "performer_attention", ctx);
    return value::of(performer(Q, K, V, m, seed), a[0].rows, a[2].cols);
}

// The mean over seeds 1..trials of |Z_performer - Z| / |Z| (Frobenius): one seed is luck,
// the average is what the number of features buys.
value performer_error_fn(const args_t& a, eval_context& ctx) {
    const auto [Q, K, V] = need_qkv(a, "performer_error", "performer_error(Q, K, V, m, trials)", ctx);
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

// [k, n]: row i averages the keys of segment i (n/k neighbours), a fixed Linformer-style E.
value mean_pool_fn(const args_t& a, eval_context& ctx) {
    std::size_t n = whole(a[0], 1, "mean_pool", "n", ctx);
    std::size_t k = whole(a[1], 1, "mean_pool", "k", ctx);
    if (n % k != 0) formula_error(ctx, said("mean_pool(n, k): k = {} must divide n = {}", k, n));
    const std::size_t w = n / k;
    need_cells(k, n, "mean_pool", ctx);
    matrix E(k, n);  // E: [k, n]
    for (std::size_t i = 0; i < k; ++i)
        for (std::size_t j = i * w; j < (i + 1) * w; ++j) E(i, j) = 1.0f / static_cast<float>(w);
    return value::of(std::move(E));
}

}  // namespace qkv::builtin_functions
