// Multi-head self-attention's backward pass at scale: from dZ, the gradients of X and of the four
// weights, FlashAttention-2's way (no n × n matrix: each row's softmax recomputed from the
// log-sum-exp the fused forward keeps), and a plain reference that holds the whole matrices.
#pragma once

#include <cstddef>
#include <vector>

#include "qkv/attention_args.hpp"
#include "qkv/matrix.hpp"

namespace qkv::attention {

// What the fused forward keeps for the backward: each [n, d], heads side by side (head i in
// columns i·d_k …), and each query row's log-sum-exp. O(n·d): nothing n × n.
struct saved_forward {
    matrix Q;                // X·W_Q times log2(e)/sqrt(d_k): the scores come out in base 2
    matrix K, V;             // X·W_K, X·W_V
    matrix O;                // the heads' outputs before W_O
    std::vector<float> lse;  // [h, n]: log2 Σ_j 2^(s_ij) over the keys row i sees, s in base 2
    bool spent = false;      // a backward has used it up (its memory now holds dQ, dK, dV)
};

struct gradients {
    matrix dX, dW_Q, dW_K, dW_V, dW_O;
};

// Where one fused backward's time went (filled when options::backward_times points here): each
// stage's processor time in seconds, summed over the threads (each thread's own clock, read around
// each stage of each block), and the pass's wall time. As for the forward (fused_breakdown), the
// stages' sum over threads × wall is the share of the time the threads ran.
struct backward_breakdown {
    double output_grad = 0;   // dO = dZ·W_Oᵀ
    double weight_grads = 0;  // dW_O = Oᵀ·dZ, dW_Q = Xᵀ·dQ, dW_K, dW_V: slices of Oᵀ and Xᵀ, their products
    double input_grad = 0;    // dX = dQ·W_Qᵀ + dK·W_Kᵀ + dV·W_Vᵀ
    double row_dots = 0;      // D = rowsum(dO ⊙ O), each head's
    double copies = 0;        // each block's K, Kᵀ, Vᵀ, Q and dO out of the rows d apart
    double scores = 0;        // S = Q·Kᵀ again, block by block (and P = 2^(s − lse) in the same product
                              // where the mask leaves the block whole)
    double dP = 0;            // dP = dO·Vᵀ (and dS = P ⊙ (dP − D) in the same product, likewise)
    double exps = 0;          // P and dS of the blocks the mask cuts
    double dV = 0, dK = 0, dQ = 0;  // Pᵀ·dO, dSᵀ·Q, dS·K
    double wall = 0;
    int threads = 1;
    backward_breakdown& operator+=(const backward_breakdown& b);
};

// forward_fused's Z (attention_fused.hpp), keeping in `keep` what backward_fused needs. Memory
// `keep` holds already at the right size (what an earlier step's backward used up) is written
// over rather than made afresh, so the steps of a training loop reuse it instead of mapping fresh
// pages each time.
matrix forward_fused_keep(const matrix& X, const weights& W, const options& o, saved_forward& keep);

// The gradients of Σ Z ⊙ dZ from what the forward kept, on o.threads threads. What the forward
// kept is used up, as autograd's saved tensors are: dQ, dK and dV are made in the memory of O, K
// and V (each is read for the last time before its gradient is written there) and `kept` is marked
// spent; its memory stays for the next forward_fused_keep (kept = {} releases it). Throws
// std::invalid_argument when the shapes disagree or `kept` is spent, before anything is used.
gradients backward_fused(const matrix& X, const weights& W, saved_forward& kept, const matrix& dZ, const options& o);

// The same gradients by the lessons' formulas, head by head with the whole n × n weights.
gradients backward_reference(const matrix& X, const weights& W, const matrix& dZ, const options& o);

// The attention core alone, for callers that keep their own projections (qkv train): Q, K, V,
// O, dO, dQ, dK, dV are [n, ld] with head i in columns i·d_k … of the first heads·d_k.
struct core_inputs {
    const float *Q, *K, *V, *O, *dO;
    const float* lse;  // [heads, n], base 2, of the scores Q·Kᵀ·log2(e)/(sqrt(d_k)·q_scale)
};
struct core_shape {
    std::size_t n, ld, heads, d_k;
    bool causal = false;
    float q_scale = 1.0f;  // what Q was multiplied by already (the fused forward keeps log2(e)/sqrt(d_k))
    int threads = 1;
    std::size_t block_q = 0, block_k = 0;  // 0: the tuned sizes
    backward_breakdown* times = nullptr;  // when not null, the core's stages are added to it
};
// dQ, dK, dV (written, not added to) from dO, key block by key block. dQ may be in.O, dK in.K and
// dV in.V: O is read only for D, before any dQ is written, and each key block's K and V rows are
// copied out by the one task that reads them before it writes their dK and dV rows.
void core_backward(const core_inputs& in, float* dQ, float* dK, float* dV, const core_shape& s);
// Floats core_backward allocates.
std::size_t core_extra_floats(const core_shape& s);

// Floats backward_fused allocates beyond its inputs, what the forward kept and the five gradients.
std::size_t backward_extra_floats(std::size_t n, std::size_t d, const options& o);

}  // namespace qkv::attention
