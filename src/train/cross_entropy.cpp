// Softmax cross-entropy of the next token, forward and backward.
#include "qkv/cross_entropy.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "qkv/row_kernels.hpp"

namespace qkv::train {

namespace {


}  // namespace

void cross_entropy_forward(float* losses, float* logits, const int* tokens, std::size_t B, std::size_t T,
                           std::size_t V) {
    const attention::detail::row_kernels& rk = attention::detail::active_row_kernels();
    for (std::size_t r = 0; r < B * T; ++r) {
        float* z = logits + r * V;
        const float top = rk.row_max(z, V);
        const bool last = r % T == T - 1;
        const float target = last ? 0.0f : z[tokens[r + 1]] - top;  // read before z becomes p
        // e^(z − top) as 2^((z − top)·log2 e): a whole row per call of the row kernels
        for (std::size_t v = 0; v < V; ++v) z[v] = (z[v] - top) * std::numbers::log2e_v<float>;
        float largest = 0.0f;
        const float sum = rk.exp2_sum(z, V, 0.0f, largest);
        attention::detail::scale_row(z, V, 1.0f / sum);
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
