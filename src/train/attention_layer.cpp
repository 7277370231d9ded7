// Causal multi-head attention, forward and backward, one (sequence, head) block at a time: the
// products through BLAS on the head's columns in place (a row stride of C), the softmax by hand.
#include "qkv/attention_layer.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "qkv/attention_backward.hpp"
#include "qkv/blas.hpp"
#include "qkv/row_kernels.hpp"

namespace qkv::train {

using blas::trans;

namespace {

// Scores are made in base-2 units (the product's alpha carries log2 e): the row kernels of
// attention at scale then give e^(s − max) as 2^(s·log2 e − max), a whole row per call in this
// CPU's widest vector instructions, where std::exp took one call per weight.

// One row of scores s[0 … i] (base 2) made into weights in place: the row max subtracted first so
// the exponentials never overflow; the keys after i get exactly 0.
// Returns the row's log2 Σ 2^s, what the fused backward recomputes the weights from.
float causal_softmax_row(float* s, std::size_t i, std::size_t T, const attention::detail::row_kernels& rk) {
    float top = 0.0f;
    const float max = rk.row_max(s, i + 1), sum = rk.exp2_sum(s, i + 1, max, top);
    attention::detail::scale_row(s, i + 1, 1.0f / sum);
    std::fill(s + i + 1, s + T, 0.0f);
    return max + std::log2(sum);
}

}  // namespace

void attention_forward(float* Z, float* A, float* lse, const float* Q, const float* K, const float* V, const attention_shape& s) {
    const std::size_t T = s.T, C = s.C, d_k = s.d_k();
    const float scale = std::numbers::log2e_v<float> / std::sqrt(static_cast<float>(d_k));
    const attention::detail::row_kernels& rk = attention::detail::active_row_kernels();
    for (std::size_t b = 0; b < s.B; ++b)
        for (std::size_t h = 0; h < s.H; ++h) {
            const std::size_t at = b * T * C + h * d_k;  // this head's first column in row 0 of sequence b
            float* Ab = A + (b * s.H + h) * T * T;
            // pass 1: S (T, T) = Q_h (T, d_k) @ K_hᵀ (d_k, T) / √d_k, times log2 e; m = n = T, k = d_k, lda = ldb = C
            blas::gemm_raw(T, T, d_k, scale, Q + at, C, K + at, C, trans::yes, 0.0f, Ab, T);
            // pass 2: each row's softmax over the keys it may see
            float* lse_b = lse + (b * s.H + h) * T;
            for (std::size_t i = 0; i < T; ++i) lse_b[i] = causal_softmax_row(Ab + i * T, i, T, rk);
            // pass 3: Z_h (T, d_k) = A (T, T) @ V_h (T, d_k); ldc = C writes the head's columns
            blas::gemm_raw(T, d_k, T, 1.0f, Ab, T, V + at, C, trans::no, 0.0f, Z + at, C);
        }
}

void attention_backward(float* dQ, float* dK, float* dV, float* dS, const float* dZ, const float* A, const float* Q,
                        const float* K, const float* V, const attention_shape& s) {
    const std::size_t T = s.T, C = s.C, d_k = s.d_k();
    const float scale = 1.0f / std::sqrt(static_cast<float>(d_k));
    for (std::size_t b = 0; b < s.B; ++b)
        for (std::size_t h = 0; h < s.H; ++h) {
            const std::size_t at = b * T * C + h * d_k;
            const float* Ab = A + (b * s.H + h) * T * T;
            // dA (T, T) = dZ_h (T, d_k) @ V_hᵀ (d_k, T)
            blas::gemm_raw(T, T, d_k, 1.0f, dZ + at, C, V + at, C, trans::yes, 0.0f, dS, T);
            // through the softmax, row by row: dS = A ⊙ (dA − rowsum(dA ⊙ A)), then through the
            // 1/√d_k of the scores; masked keys have a = 0 and so get 0
            for (std::size_t i = 0; i < T; ++i) {
                float* row = dS + i * T;
                const float* a = Ab + i * T;
                float dot = 0.0f;
                for (std::size_t j = 0; j <= i; ++j) dot += row[j] * a[j];
                for (std::size_t j = 0; j <= i; ++j) row[j] = a[j] * (row[j] - dot) * scale;
                for (std::size_t j = i + 1; j < T; ++j) row[j] = 0.0f;
            }
            // dQ_h = dS @ K_h, dK_h = dSᵀ @ Q_h, dV_h = Aᵀ @ dZ_h: each (T, d_k), written into
            // the head's own columns (ldc = C), which no other head touches
            blas::gemm_raw(T, d_k, T, 1.0f, dS, T, K + at, C, trans::no, 0.0f, dQ + at, C);
            blas::gemm_raw(T, d_k, T, 1.0f, dS, T, trans::yes, Q + at, C, trans::no, 0.0f, dK + at, C);
            blas::gemm_raw(T, d_k, T, 1.0f, Ab, T, trans::yes, dZ + at, C, trans::no, 0.0f, dV + at, C);
        }
}

bool fused_backward_pays(const attention_shape& s) { return s.T >= 128; }

void attention_backward_fused(float* dQ, float* dK, float* dV, const float* dZ, const float* Z, const float* lse,
                              const float* Q, const float* K, const float* V, const attention_shape& s) {
    const std::size_t T = s.T, C = s.C;
    for (std::size_t b = 0; b < s.B; ++b) {
        const std::size_t at = b * T * C;  // sequence b's rows
        attention::core_backward({Q + at, K + at, V + at, Z + at, dZ + at, lse + b * s.H * T}, dQ + at, dK + at,
                                 dV + at, {T, C, s.H, s.d_k(), true, 1.0f, 1});
    }
}

}  // namespace qkv::train
