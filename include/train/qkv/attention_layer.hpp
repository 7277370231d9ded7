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

// A (B, H, T, T) with 0 above the diagonal (query i sees keys j ≤ i); Z (B·T, C).
void attention_forward(float* Z, float* A, const float* Q, const float* K, const float* V, const attention_shape& s);

// dQ, dK, dV (B·T, C) from dZ (B·T, C) and the forward's A, Q, K, V; dS is scratch of (T, T).
void attention_backward(float* dQ, float* dK, float* dV, float* dS, const float* dZ, const float* A, const float* Q,
                        const float* K, const float* V, const attention_shape& s);

}  // namespace qkv::train
