// What every attention pass at scale takes, whichever way it computes: the weights, the options,
// and the check that their shapes agree with X.
#pragma once

#include <cstddef>

#include "qkv/matrix.hpp"

namespace qkv::attention {

struct fused_breakdown;  // attention_fused.hpp

// The four projections, each [d_model, d_model]; head i uses columns i·d_k … (i+1)·d_k−1 of
// W_Q, W_K, W_V and rows i·d_k … of W_O (convention Q = X·W_Q, as the lessons use).
struct weights {
    matrix W_Q, W_K, W_V, W_O;
};

struct options {
    std::size_t heads = 8;
    bool causal = false;
    int threads = 1;  // the reference always runs on one
    // fused only; 0 picks the tuned default. Tests set them small so a few tokens span blocks.
    std::size_t block_q = 0;
    std::size_t block_k = 0;
    std::size_t heads_per_pass = 0;  // 0: as many as fit the memory budget below
    std::size_t max_kv_bytes = std::size_t(48) << 20;
    // fused only: heads first_head … first_head + head_count − 1 alone (0: every head), their
    // Σ head_i·W_O,i: what one rank of tensor parallelism computes. head_count divides heads.
    std::size_t first_head = 0;
    std::size_t head_count = 0;
    fused_breakdown* breakdown = nullptr;  // fused only: where its time went, when not null
};

// Throws std::invalid_argument when heads does not divide d_model or the shapes disagree.
void check_shapes(const matrix& X, const weights& W, const options& o);

}  // namespace qkv::attention
