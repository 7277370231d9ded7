// A matrix product as a layer of the model, forward and backward, through the engine's one door to
// BLAS: at these sizes (rows = batch · seq, a few dozen columns) OpenBLAS's small-matrix kernels
// beat plain loops by about ten times, and a call costs well under a microsecond.
#pragma once

#include <cstddef>

namespace qkv::train {

// out (N, M) = inp (N, K) @ W (K, M); with accumulate, out += inp @ W instead (a residual add).
void matmul_forward(float* out, const float* inp, const float* W, std::size_t N, std::size_t K, std::size_t M,
                    bool accumulate = false);

// The backward pass of out = inp @ W: dW (K, M) += inpᵀ @ dout, and dinp (N, K) = dout @ Wᵀ, or
// dinp += dout @ Wᵀ with accumulate (inp fed more than one product, as X feeds Q, K and V).
void matmul_backward(float* dinp, float* dW, const float* dout, const float* inp, const float* W, std::size_t N,
                     std::size_t K, std::size_t M, bool accumulate = false);

}  // namespace qkv::train
