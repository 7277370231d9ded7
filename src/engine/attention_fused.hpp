// Private to the engine: the fused attention's plan (block sizes, heads per pass, the memory
// they take), shared by attention_fused.cpp, which follows it, and attention.cpp, which reports it.
#pragma once

#include <algorithm>
#include <cstddef>

#include "qkv/attention.hpp"

namespace qkv::attention {

// Tokens n, d = d_model, h heads of d_k, g heads per pass, bq / bk rows per query / key block,
// ldk the row stride of K^T (n padded, see plan_fused).
struct fused_plan {
    std::size_t n, d, h, d_k, g, bq, bk, ldk;
    std::size_t wg() const { return g * d_k; }
    std::size_t kv_floats() const { return wg() * ldk + n * wg(); }  // K_g^T, V_g
    // per thread: Q, Z, S, m, l while attending; the same floats hold a projection's rows before
    std::size_t scratch_floats() const {
        return std::max(2 * bq * wg() + bq * bk + 2 * bq, std::min<std::size_t>(192, n) * wg());
    }
};

fused_plan plan_fused(std::size_t n, std::size_t d, const options& o);

// Floats forward_fused allocates for these sizes, beyond X, the weights and the result.
std::size_t fused_extra_floats(std::size_t n, std::size_t d, const options& o);

// Throws std::invalid_argument when heads does not divide d_model or the shapes disagree.
void check_shapes(const matrix& X, const weights& W, const options& o);

}  // namespace qkv::attention
