// Causal multi-head attention, forward and backward, one (sequence, head) block at a time: the
// products through BLAS on the head's columns in place (a row stride of C), the softmax by hand.
#include "qkv/attention_layer.hpp"

#include <algorithm>
#include <cmath>

#include "qkv/blas.hpp"

namespace qkv::train {

using blas::trans;

namespace {

// One row of scores s[0 … i] made into weights in place: the row max subtracted first so exp
// never overflows; the keys after i get exactly 0.
void causal_softmax_row(float* s, std::size_t i, std::size_t T) {
    float top = s[0];
    for (std::size_t j = 1; j <= i; ++j) top = std::max(top, s[j]);
    float sum = 0.0f;
    for (std::size_t j = 0; j <= i; ++j) sum += (s[j] = std::exp(s[j] - top));
    const float inv = 1.0f / sum;
    for (std::size_t j = 0; j <= i; ++j) s[j] *= inv;
    for (std::size_t j = i + 1; j < T; ++j) s[j] = 0.0f;
}

}  // namespace

void attention_forward(float* Z, float* A, const float* Q, const float* K, const float* V, const attention_shape& s) {
    const std::size_t T = s.T, C = s.C, d_k = s.d_k();
    const float scale = 1.0f / std::sqrt(static_cast<float>(d_k));
    for (std::size_t b = 0; b < s.B; ++b)
        for (std::size_t h = 0; h < s.H; ++h) {
            const std::size_t at = b * T * C + h * d_k;  // this head's first column in row 0 of sequence b
            float* Ab = A + (b * s.H + h) * T * T;
            // pass 1: S (T, T) = Q_h (T, d_k) @ K_hᵀ (d_k, T) / √d_k; m = n = T, k = d_k, lda = ldb = C
            blas::gemm_raw(T, T, d_k, scale, Q + at, C, K + at, C, trans::yes, 0.0f, Ab, T);
            // pass 2: each row's softmax over the keys it may see
            for (std::size_t i = 0; i < T; ++i) causal_softmax_row(Ab + i * T, i, T);
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

}  // namespace qkv::train
