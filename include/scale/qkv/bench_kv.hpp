// `qkv bench kv`'s measurement: decoding setup.tokens tokens one at a time with and without the KV
// cache, the time per token at a spread of positions, the speed-up, and how each grows with the
// position. Plain values, no words: report_bench.hpp turns them into text or JSON.
#pragma once

#include <optional>
#include <vector>

#include "qkv/bench.hpp"
#include "qkv/bench_progress.hpp"
#include "qkv/bench_setup.hpp"

namespace qkv::bench {

struct kv_point {
    decode_point time;      // seconds per token at this position, with the cache and without
    double speed_up = 0;    // without ÷ with
};

struct kv_result {
    setup asked;                   // tokens, d_model, heads, threads
    std::vector<kv_point> points;  // at decode_positions(tokens), in order
    // time per token ∝ position^k (nullopt: fewer than two positions)
    std::optional<double> growth_with_cache, growth_without_cache;
};

// The options decoding runs with: causal, as a model that decodes is.
attention::options kv_options(const setup& s);

// Times the decoding of the token at each position, telling `progress` before each.
kv_result measure_kv(const setup& s, const progress_fn& progress);

}  // namespace qkv::bench
