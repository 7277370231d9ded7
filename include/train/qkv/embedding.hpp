// The first layer: each token's row of E plus its position's row of P.
#pragma once

#include <cstddef>

namespace qkv::train {

// X (B·T, C): X[b, t] = E[tokens[b, t]] + P[t].
void embedding_forward(float* X, const int* tokens, const float* E, const float* P, std::size_t B, std::size_t T,
                       std::size_t C);

// dE[tokens[b, t]] += dX[b, t] and dP[t] += dX[b, t]: a token that occurs twice gathers both.
void embedding_backward(float* dE, float* dP, const float* dX, const int* tokens, std::size_t B, std::size_t T,
                        std::size_t C);

}  // namespace qkv::train
