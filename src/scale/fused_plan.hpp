// Private to attention at scale: the fused attention's plan (block sizes, heads per pass, the
// memory they take), which attention_fused.cpp follows.
#pragma once

#include <algorithm>
#include <cstddef>

#include "qkv/attention_args.hpp"

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
    // per thread: Q, Z, S, and m, l, sum while attending; the same floats hold a key block's
    // projections before
    std::size_t scratch_floats() const {
        return std::max(bq * d_k + bq * wg() + bq * bk + 3 * bq, std::min(bk, n) * wg());
    }
};

// The plan for n tokens of d = d_model: the blocks and heads per pass o asks for, or where it
// leaves them 0, the tuned ones. Throws std::invalid_argument when the heads per pass do not divide h.
fused_plan plan_fused(std::size_t n, std::size_t d, const options& o);

}  // namespace qkv::attention
