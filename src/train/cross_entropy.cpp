// Softmax cross-entropy of the next token, forward and backward.
#include "qkv/cross_entropy.hpp"

#include <algorithm>
#include <cmath>

namespace qkv::train {

void cross_entropy_forward(float* losses, float* logits, const int* tokens, std::size_t B, std::size_t T,
                           std::size_t V) {
    for (std::size_t r = 0; r < B * T; ++r) {
        float* z = logits + r * V;
        float top = z[0];
        for (std::size_t v = 1; v < V; ++v) top = std::max(top, z[v]);
        float sum = 0.0f;
        const bool last = r % T == T - 1;
        const float target = last ? 0.0f : z[tokens[r + 1]] - top;  // read before z becomes p
        for (std::size_t v = 0; v < V; ++v) sum += (z[v] = std::exp(z[v] - top));
        const float inv = 1.0f / sum;
        for (std::size_t v = 0; v < V; ++v) z[v] *= inv;
        losses[r] = last ? 0.0f : std::log(sum) - target;
    }
}

void cross_entropy_backward(float* dlogits, const float* probs, const int* tokens, std::size_t B, std::size_t T,
                            std::size_t V, float scale) {
    for (std::size_t r = 0; r < B * T; ++r) {
        float* d = dlogits + r * V;
        if (r % T == T - 1) {
            std::fill(d, d + V, 0.0f);
            continue;
        }
        const float* p = probs + r * V;
        for (std::size_t v = 0; v < V; ++v) d[v] = scale * p[v];
        d[tokens[r + 1]] -= scale;
    }
}

}  // namespace qkv::train
