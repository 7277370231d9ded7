// Token and position embeddings, forward and backward.
#include "qkv/embedding.hpp"

namespace qkv::train {

void embedding_forward(float* X, const int* tokens, const float* E, const float* P, std::size_t B, std::size_t T,
                       std::size_t C) {
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t t = 0; t < T; ++t) {
            float* x = X + (b * T + t) * C;
            const float* e = E + static_cast<std::size_t>(tokens[b * T + t]) * C;
            const float* p = P + t * C;
            for (std::size_t c = 0; c < C; ++c) x[c] = e[c] + p[c];
        }
}

void embedding_backward(float* dE, float* dP, const float* dX, const int* tokens, std::size_t B, std::size_t T,
                        std::size_t C) {
    for (std::size_t b = 0; b < B; ++b)
        for (std::size_t t = 0; t < T; ++t) {
            const float* dx = dX + (b * T + t) * C;
            float* de = dE + static_cast<std::size_t>(tokens[b * T + t]) * C;
            float* dp = dP + t * C;
            for (std::size_t c = 0; c < C; ++c) de[c] += dx[c], dp[c] += dx[c];
        }
}

}  // namespace qkv::train
