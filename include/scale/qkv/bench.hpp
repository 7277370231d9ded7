// Measurement for `qkv bench`: the machine's own sgemm rate, medians over repeats, the FLOP count
// of one forward pass (attention_flops), growth exponents, and KV-cache decode timings.
// Nothing here prints; bench_forward.hpp and its siblings gather these numbers into results, and
// report_bench.hpp turns a result into a table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "qkv/attention_args.hpp"
#include "qkv/matrix.hpp"

namespace qkv::bench {

// FLOPs of one forward pass as counted for GFLOP/s: 2·n·d² for each of the four projections, and
// 2·n²·d each for the scores and the weighted sum (half of those two under the causal mask).
double attention_flops(std::size_t n, std::size_t d_model, bool causal);

// FLOPs of one backward pass as counted for GFLOP/s, the formulas' work only: 2·n·d² for each of
// eight projection products (dO = dZ·W_Oᵀ, dW_O, dW_Q, dW_K, dW_V, and dX's three), and 2·n²·d
// each for dV = Aᵀ·dO, dA = dO·Vᵀ, dQ = dS·K and dK = dSᵀ·Q (half under the mask). The scores the
// fused backward computes again (one more 2·n²·d) are not counted: they are its cost, not work.
double backward_flops(std::size_t n, std::size_t d_model, bool causal);

// The inputs of one timed forward pass: X [n, d] ~ N(0, 1) and weights ~ N(0, 1/d), from fixed
// seeds, the same on every machine.
struct inputs {
    matrix X;
    attention::weights W;
};
inputs make_inputs(std::size_t n, std::size_t d_model, std::uint64_t seed = 2024);

// Bytes of X, the four weights and the output: what every implementation needs anyway.
std::size_t io_bytes(std::size_t n, std::size_t d_model);

// How long to keep repeating: at least min_runs and min_seconds, at most max_runs, and never
// past max_seconds once one run is in. runs > 0 fixes the count instead.
struct repeat_policy {
    int runs = 0;
    int min_runs = 3, max_runs = 9;
    double min_seconds = 0.5, max_seconds = 8.0;
};

struct timing {
    double median_s = 0;
    int runs = 0;
};

// The median time of one call of fn. A first run under 0.25 s only warms caches and page tables
// and is not counted; a call under 2 ms is timed in batches of calls (a run = one batch).
// before_run(k) is called before each counted run k = 1, 2, … (for a progress line). prepare(),
// when given, runs before every call of fn off the clock, for a call that uses up its input (the
// fused backward spends what the forward kept); such calls are timed one at a time, never batched.
timing time_median(const std::function<void()>& fn, const repeat_policy& p,
                   const std::function<void(int)>& before_run = {}, const std::function<void()>& prepare = {});

// The practical peak: OpenBLAS sgemm on square matrices of `size`, on `threads` threads, GFLOP/s
// of the best of a few medians (the best, so that percentages of it are never flattered).
struct peak {
    double gflops = 0;
    std::size_t size = 0;
    int threads = 1;
};
peak measure_peak(int threads, std::size_t size = 2048);

// What 2^x costs the fused pass's scores: its product for one block of the plan at n tokens
// (bq queries × bk keys × d_k), in cache on this thread, made plain (the scores stored) and
// finished (2^(s − m) and the rows' sums, as every block after a row's first that the mask
// leaves whole is made), the best of alternating batches of each. The share of the finished
// product's time the plain one does not need: 1 − plain / finished.
double exps_in_scores(std::size_t n, std::size_t d_model, const attention::options& o);

// Least-squares slope of log t against log n: t grows like n^slope. nullopt with fewer than two
// distinct n.
std::optional<double> growth_exponent(const std::vector<double>& n, const std::vector<double>& t);

// Decoding: the time to produce the token at `position` (1-based, so position - 1 tokens came
// before it) with the KV cache (one decode_step) and without it (the whole causal pass over
// the position tokens, as a model without a cache reruns it for every new token).
struct decode_point {
    std::size_t position = 0;
    double s_cached = 0, s_uncached = 0;
};
decode_point time_decode_at(const inputs& P, std::size_t heads, std::size_t position, int threads,
                            const repeat_policy& rp);

// Powers of two (and the 3·2^k between them) from 64 up to tokens, and tokens itself.
std::vector<std::size_t> decode_positions(std::size_t tokens);

// "12.0 MiB", "1.0 GiB", "512 B"
std::string human_bytes(double bytes);

// Writes M as a NumPy .npy file (npy.hpp), for bench/compare_torch.py.
// Throws input_error when the file cannot be written.
void write_npy(const std::string& path, const matrix& M);

}  // namespace qkv::bench
