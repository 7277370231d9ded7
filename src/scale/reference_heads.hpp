// Private to attention at scale: the lessons' formulas head by head, one plain kernel each, which
// the reference forward (attention.cpp) and the reference backward
// (attention_backward_reference.cpp) share, so both hold the fast passes to one computation.
#pragma once

#include <cstddef>

#include "qkv/attention_args.hpp"
#include "qkv/matrix.hpp"

namespace qkv::attention::detail {

// The columns c0 … c0+w−1 of M as their own matrix; and C written back into M from column c0.
matrix columns(const matrix& M, std::size_t c0, std::size_t w);
void put_columns(matrix& M, std::size_t c0, const matrix& C);

// One head's slices of the projections and its attention weights.
struct reference_head {
    matrix Q_i, K_i, V_i;  // each [n, d_k]
    matrix A;              // softmax(Q_i K_iᵀ / sqrt(d_k) [+ causal mask]): [n, n]
};

// X projected once for every head, and each head's slices and weights on demand.
struct reference_heads {
    std::size_t d_k;
    float scale;         // 1 / sqrt(d_k)
    matrix Q, K, V;      // X·W_Q, X·W_K, X·W_V: [n, d]
    matrix mask;         // [n, n]: 0, or −inf above the diagonal with the causal mask
    reference_head at(std::size_t i) const;
};

// Throws std::invalid_argument, as check_shapes does, before anything is computed.
reference_heads project_heads(const matrix& X, const weights& W, const options& o);

}  // namespace qkv::attention::detail
