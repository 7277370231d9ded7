// Private to the engine: the fused attention's plan (block sizes, heads per pass, the memory
// they take), shared by attention_fused.cpp, which follows it, and attention.cpp, which reports it.
#pragma once

#include <algorithm>
#include <cstddef>

#include "qkv/attention.hpp"

namespace qkv::attention {

// Tokens n, d = d_model, h heads of d_k, g heads per pass, bq / bk rows per query / key block.
// K^T is kept key block by key block: head j's block b is [d_k, bk] with rows kb_ld apart.
struct fused_plan {
    std::size_t n, d, h, d_k, g, bq, bk;
    std::size_t wg() const { return g * d_k; }
    std::size_t key_blocks() const { return (n + bk - 1) / bk; }
    // a block's rows a cache line more than its width apart: a multiple of 1 KiB would put the
    // rows a scores tile reads into a few sets of the L1 cache
    std::size_t kb_ld() const { return bk + 16; }
    std::size_t kv_floats() const { return g * key_blocks() * d_k * kb_ld() + n * wg(); }  // K_g^T, V_g
    // per thread: Q, Z, S, m, l while attending; the same floats hold a key block's projections before
    std::size_t scratch_floats() const {
        return std::max(bq * d_k + bq * wg() + bq * bk + 2 * bq, std::min(bk, n) * wg());
    }
};

fused_plan plan_fused(std::size_t n, std::size_t d, const options& o);

// Floats forward_fused allocates for these sizes, beyond X, the weights and the result.
std::size_t fused_extra_floats(std::size_t n, std::size_t d, const options& o);

// Throws std::invalid_argument when heads does not divide d_model or the shapes disagree.
void check_shapes(const matrix& X, const weights& W, const options& o);

}  // namespace qkv::attention
