// Multi-head attention forward (attention.hpp): the reference loops and per-head BLAS, and the
// choice among them and the fused pass. Letters: n tokens, d = d_model, h heads, d_k = d / h.
#include "qkv/attention.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "qkv/attention_fused.hpp"
#include "qkv/blas.hpp"
#include "qkv/enum_names.hpp"
#include "qkv/kernels.hpp"
#include "qkv/parallel_for.hpp"
#include "qkv/row_kernels.hpp"
#include "reference_heads.hpp"

namespace qkv::attention {

namespace {

using blas::trans;
using detail::exp2_row;
using detail::scale_row;

// Keys row i may see: all of them, or with the causal mask those up to and including i.
std::size_t visible(std::size_t i, std::size_t n, bool causal) { return causal ? std::min(i + 1, n) : n; }

}  // namespace

// --- reference: the lessons' formulas, one kernel each ------------------------------------------

matrix forward_reference(const matrix& X, const weights& W, const options& o) {
    const detail::reference_heads heads = detail::project_heads(X, W, o);
    matrix Zc(X.rows, X.cols);  // Zc: [n, d], the heads' outputs side by side
    for (std::size_t i = 0; i < o.heads; ++i) {
        const detail::reference_head h = heads.at(i);
        detail::put_columns(Zc, i * heads.d_k, kernels::matmul_ref(h.A, h.V_i));  // Z_i: [n, d_k]
    }
    return kernels::matmul_ref(Zc, W.W_O);  // [n, d]
}

// --- blas: per head, the whole n × n matrix ------------------------------------------------------

namespace {

// A = softmax(S) over each row in place (S: [n, n]), the masked part set to 0.
void softmax_in_place(float* S, std::size_t n, bool causal, int threads) {
    constexpr std::size_t rows_per_task = 64;
    parallel_for((n + rows_per_task - 1) / rows_per_task, threads, [&](std::size_t t, int) {
        for (std::size_t i = t * rows_per_task; i < std::min(n, (t + 1) * rows_per_task); ++i) {
            float* s = S + i * n;
            const std::size_t v = visible(i, n, causal);
            // the max is subtracted for numerical stability: exp never sees a large argument
            const float sum = exp2_row(s, v);  // S is in log2 units: 2^s = e^(s ln 2)
            scale_row(s, v, 1.0f / sum);
            std::fill(s + v, s + n, 0.0f);
        }
    });
}

}  // namespace

matrix forward_blas(const matrix& X, const weights& W, const options& o) {
    check_shapes(X, W, o);
    const std::size_t n = X.rows, d = X.cols, d_k = d / o.heads;
    const blas::scoped_threads blas_threads(o.threads);
    std::vector<float> Q_i(n * d_k), K_i(n * d_k), V_i(n * d_k);  // each [n, d_k]
    std::vector<float> S(n * n);                                     // S: [n, n], then A in place
    matrix Zc(n, d);                                                 // Zc: [n, d]
    for (std::size_t i = 0; i < o.heads && n > 0; ++i) {
        const std::size_t c0 = i * d_k;
        blas::gemm_raw(n, d_k, d, 1.0f, X.data.data(), d, W.W_Q.data.data() + c0, d, trans::no, 0.0f, Q_i.data(), d_k);
        blas::gemm_raw(n, d_k, d, 1.0f, X.data.data(), d, W.W_K.data.data() + c0, d, trans::no, 0.0f, K_i.data(), d_k);
        blas::gemm_raw(n, d_k, d, 1.0f, X.data.data(), d, W.W_V.data.data() + c0, d, trans::no, 0.0f, V_i.data(), d_k);
        // S = Q_i K_i^T / sqrt(d_k), times log2(e) so the softmax can use 2^x
        blas::gemm_raw(n, n, d_k, std::numbers::log2e_v<float> / std::sqrt(float(d_k)), Q_i.data(), d_k, K_i.data(), d_k, trans::yes, 0.0f, S.data(), n);
        softmax_in_place(S.data(), n, o.causal, o.threads);
        // Zc[:, c0 …] = A V_i
        blas::gemm_raw(n, d_k, n, 1.0f, S.data(), n, V_i.data(), d_k, trans::no, 0.0f, Zc.data.data() + c0, d);
    }
    matrix Z;
    blas::gemm(Z, Zc, trans::no, W.W_O, trans::no);  // Z: [n, d]
    return Z;
}

matrix forward(impl which, const matrix& X, const weights& W, const options& o) {
    switch (which) {
        case impl::reference: return forward_reference(X, W, o);
        case impl::blas: return forward_blas(X, W, o);
        case impl::fused: return forward_fused(X, W, o);
    }
    throw std::invalid_argument("attention: unknown implementation");
}

std::size_t extra_bytes(impl which, std::size_t n, std::size_t d, const options& o) {
    const std::size_t h = std::max<std::size_t>(o.heads, 1), d_k = d / h;
    std::size_t floats = 0;
    switch (which) {
        case impl::reference:  // Q, K, V, Zc; one head's Q_i, K_i, V_i, K_i^T, Z_i; mask, S and A
            floats = 4 * n * d + 5 * n * d_k + 3 * n * n;
            break;
        case impl::blas:  // Q_i, K_i, V_i; S; Zc
            floats = 3 * n * d_k + n * n + n * d;
            break;
        case impl::fused:
            floats = fused_extra_floats(n, d, o);
            break;
    }
    return floats * sizeof(float);
}

namespace {
constexpr enum_name<impl> impl_names[] = {{impl::reference, "reference"}, {impl::blas, "blas"}, {impl::fused, "fused"}};
}  // namespace

std::string_view impl_name(impl which) { return name_in<impl>(impl_names, which); }

std::optional<impl> parse_impl(std::string_view name) { return value_in<impl>(impl_names, name); }

}  // namespace qkv::attention