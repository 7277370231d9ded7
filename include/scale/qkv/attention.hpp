// Multi-head attention forward at scale, three ways that give the same numbers: the plain loops
// the lessons teach, per-head BLAS with the whole n × n matrix, and a fused kernel that never
// holds it (key blocks, online softmax) and makes its products on its own tile kernels
// (tile_kernels.hpp) rather than OpenBLAS. `qkv bench` times them; tests hold them together.
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

// Z = concat_i softmax(Q_i K_i^T / sqrt(d_k) [+ causal mask]) V_i @ W_O -> [n, d_model].
// Throws std::invalid_argument when heads does not divide d_model or shapes disagree.
matrix forward_reference(const matrix& X, const weights& W, const options& o);
matrix forward_blas(const matrix& X, const weights& W, const options& o);
matrix forward_fused(const matrix& X, const weights& W, const options& o);
matrix forward(impl which, const matrix& X, const weights& W, const options& o);

// Bytes each implementation allocates beyond X, the weights and the result, for these sizes
// (computed from the same plan the implementation follows, so refusals can be made up front).
std::size_t extra_bytes(impl which, std::size_t n, std::size_t d_model, const options& o);

std::string_view impl_name(impl which);

// The build of the tile kernels forward_fused runs on: "avx512", "avx2" or "plain", the widest this
// processor runs (tile_kernels.hpp); never OpenBLAS's.
std::string_view fused_kernels_in_use();
// Pins qkv's own kernels (the fused products and every softmax's exps) to the build `build`;
// false, and nothing changed, when this processor cannot run it.
bool use_kernels(std::string_view build);
std::optional<impl> parse_impl(std::string_view name);

// The softmax's row kernels, and how to pin one build of them for a test: row_kernels.hpp.

// --- decoding one token at a time -----------------------------------------------------------

// The keys and values of the tokens seen so far, all heads side by side: [capacity, d_model].
struct kv_cache {
    matrix K, V;
    std::size_t len = 0;
    explicit kv_cache(std::size_t capacity, std::size_t d_model) : K(capacity, d_model), V(capacity, d_model) {}
};

// The cache after the tokens X [t, d_model] (t <= capacity): their keys and values, nothing else.
void prefill(kv_cache& cache, const matrix& X, const weights& W);

// One decoding step with the cache: x [1, d_model] is the new token; its key and value join
// the cache and its output row (causal attention over every cached token) is returned [1, d_model].
matrix decode_step(kv_cache& cache, const matrix& x, const weights& W, std::size_t heads);

}  // namespace qkv::attention
