// Multi-head attention forward at scale, three ways that give the same numbers: the plain loops
// the lessons teach and per-head BLAS with the whole n × n matrix (here), and a fused pass that
// never holds it (attention_fused.hpp). `qkv bench` times them; tests hold them together.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "qkv/matrix.hpp"

namespace qkv::attention {

// The four projections, each [d_model, d_model]; head i uses columns i·d_k … (i+1)·d_k−1 of
// W_Q, W_K, W_V and rows i·d_k … of W_O (convention Q = X·W_Q, as the lessons use).
struct weights {
    matrix W_Q, W_K, W_V, W_O;
};

enum class impl { reference, blas, fused };

struct options {
    std::size_t heads = 8;
    bool causal = false;
    int threads = 1;  // the reference always runs on one
    // fused only; 0 picks the tuned default. Tests set them small so a few tokens span blocks.
    std::size_t block_q = 0;
    std::size_t block_k = 0;
    std::size_t heads_per_pass = 0;  // 0: as many as fit the memory budget below
    std::size_t max_kv_bytes = std::size_t(48) << 20;
};

// Throws std::invalid_argument when heads does not divide d_model or the shapes disagree.
void check_shapes(const matrix& X, const weights& W, const options& o);

// Z = concat_i softmax(Q_i K_i^T / sqrt(d_k) [+ causal mask]) V_i @ W_O -> [n, d_model].
// Throws std::invalid_argument when heads does not divide d_model or shapes disagree.
matrix forward_reference(const matrix& X, const weights& W, const options& o);
matrix forward_blas(const matrix& X, const weights& W, const options& o);
// The same Z by the implementation `which` (fused: forward_fused, attention_fused.hpp).
matrix forward(impl which, const matrix& X, const weights& W, const options& o);

// Bytes each implementation allocates beyond X, the weights and the result, for these sizes
// (computed from the same plan the implementation follows, so refusals can be made up front).
std::size_t extra_bytes(impl which, std::size_t n, std::size_t d_model, const options& o);

std::string_view impl_name(impl which);
std::optional<impl> parse_impl(std::string_view name);

}  // namespace qkv::attention
