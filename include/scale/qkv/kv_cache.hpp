// Decoding one token at a time with a KV cache: each new token's key and value are computed once
// and kept, so a step costs one row of attention over the cache instead of the whole causal pass.
#pragma once

#include <cstddef>

#include "qkv/attention_args.hpp"

namespace qkv::attention {

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
