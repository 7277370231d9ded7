// The last layer's loss: at every position but the last, the cross-entropy of the next token
// under the softmax of the logits.
#pragma once

#include <cstddef>

namespace qkv::train {

// logits (B·T, V) become their softmax in place; losses (B·T) get −log p(tokens[b, t + 1]) at
// t < T − 1, computed as logsumexp − logit so that a tiny p keeps its precision, and 0 at the last
// position, which predicts nothing.
void cross_entropy_forward(float* losses, float* logits, const int* tokens, std::size_t B, std::size_t T,
                           std::size_t V);

// dlogits (B·T, V) = scale · (p − one_hot(next token)) at t < T − 1, 0 at the last position;
// scale is 1 / the number of predictions the loss averages.
void cross_entropy_backward(float* dlogits, const float* probs, const int* tokens, std::size_t B, std::size_t T,
                            std::size_t V, float scale);

}  // namespace qkv::train
