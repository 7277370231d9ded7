// The whole model's forward and backward pass over `count` sequences, calling the layers in order,
// and the activations the forward keeps for the backward. Letters as everywhere in this layer:
// B sequences, T positions, C = d_model, H heads, V the vocabulary size, L layers; N = B·T rows.
#pragma once

#include <cstddef>
#include <vector>

#include "qkv/parameters.hpp"

namespace qkv::train {

struct activations {
    activations(const model_size& s, std::size_t count);

    std::size_t count;
    std::vector<float> X;       // (L + 1, N, C): the residual stream entering each layer, then leaving the last
    std::vector<float> Q, K, V; // (L, N, C): heads side by side
    std::vector<float> A;       // (L, B, H, T, T): attention weights, 0 above the diagonal
    std::vector<float> lse;     // (L, B, H, T): each row's log2 Σ 2^s, for the fused backward
    std::vector<float> Z;       // (L, N, C): the heads' outputs side by side, before W_O
    std::vector<float> probs;   // (N, V): the logits, then their softmax
    std::vector<float> losses;  // (N): the loss of the prediction made at each position (0 at the last)
    // the backward pass's own
    std::vector<float> dX, dQ, dK, dV, dZ;  // (N, C)
    std::vector<float> dS;                  // (T, T)
    std::vector<float> dlogits;             // (N, V)
};

// Heads switched off (an ablation): ablated[l · H + h] zeroes head h of layer l's output.
using head_mask = std::vector<bool>;

// Fills a's X, Q, K, V, A, Z, probs and losses for tokens (count, T).
void model_forward(activations& a, const model_weights& w, const model_size& s, const int* tokens,
                   const head_mask* ablated = nullptr);

// Adds to g the gradient of scale · Σ losses (scale = 1 / the predictions the batch's loss averages);
// a holds the forward's activations for the same tokens.
void model_backward(const model_weights& g, activations& a, const model_weights& w, const model_size& s,
                    const int* tokens, float scale);

}  // namespace qkv::train
