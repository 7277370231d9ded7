// The attention of one layer over a batch, forward and backward: for every sequence b and head h,
// A = softmax(causal(Q Kᵀ / √d_k)) and Z = A V, the heads' outputs side by side in Z's columns.
// Q, K, V and Z are (B·T, C) with head h in columns h·d_k … (h+1)·d_k − 1; A is (B, H, T, T).
#pragma once

#include <cstddef>

namespace qkv::train {

struct attention_shape {
    std::size_t B, T, C, H;
    std::size_t d_k() const { return C / H; }
};

// A (B, H, T, T) with 0 above the diagonal (query i sees keys j ≤ i); Z (B·T, C); lse (B, H, T)
// each row's log2 Σ_j 2^(s_ij), s = q·k·log2(e)/√d_k, for the fused backward.
void attention_forward(float* Z, float* A, float* lse, const float* Q, const float* K, const float* V,
                       const attention_shape& s);

// Whether the fused backward (attention at scale's core_backward, which recomputes each block of
// A from lse instead of reading it) is the faster at these sizes: from T = 128 on.
bool fused_backward_pays(const attention_shape& s);

// dQ, dK, dV (B·T, C) from dZ (B·T, C) and the forward's A, Q, K, V; dS is scratch of (T, T).
// With fused, from Q, K, V, Z and lse instead, A unread: the backward qkv bench times.
void attention_backward(float* dQ, float* dK, float* dV, float* dS, const float* dZ, const float* A, const float* Q,
                        const float* K, const float* V, const attention_shape& s);
void attention_backward_fused(float* dQ, float* dK, float* dV, const float* dZ, const float* Z, const float* lse,
                              const float* Q, const float* K, const float* V, const attention_shape& s);

}  // namespace qkv::train
