// `qkv bench --backward`'s measurement: the fused backward, the forward that keeps what it needs,
// and both, against the machine's FMA peak, with their memory, growth in n and where the backward's
// time went. Plain values, no words: report_bench.hpp turns them into text or JSON.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "qkv/attention_backward.hpp"
#include "qkv/bench_peaks.hpp"
#include "qkv/bench_progress.hpp"
#include "qkv/bench_setup.hpp"

namespace qkv::bench {

enum class pass { forward, backward, both };
inline constexpr pass passes[] = {pass::forward, pass::backward, pass::both};

// "forward", "backward", "forward+backward": the names the table, the JSON and the progress line use
std::string_view pass_name(pass p);

// Where one fused backward's time went (attention::backward_breakdown), as shares of its threads'
// processor time; and the share of its wall time × threads that the threads ran.
struct backward_shares {
    double thread_cpu_seconds = 0;
    double output_gradient = 0, weight_gradients = 0, input_gradient = 0, row_dots = 0, copies = 0, scores = 0,
           dP = 0, softmax_exps = 0, dV = 0, dK = 0, dQ = 0;
    double running = 0;
};
backward_shares shares_of(const attention::backward_breakdown& b);

struct pass_row {
    pass which;
    std::size_t n = 0;
    double ms = 0;                        // median of the timed runs
    double gflops = 0;                    // the formulas' work (pass_flops) / the median
    double percent_of_machine_peak = 0;
    std::size_t extra_bytes = 0;          // pass_extra_bytes
    std::optional<backward_shares> breakdown;  // backward, when setup.breakdown: one more run, clocks on
};

// ∝ n^k, least squares on log n; nullopt with fewer than two sizes
struct growth {
    std::optional<double> time, memory;
};

struct backward_result {
    setup asked;
    peaks peak;                      // the machine's only: the fused passes do not run on OpenBLAS's sgemm
    std::vector<pass_row> rows;      // by n, then forward, backward, both
    std::map<pass, growth> growths;  // of time and of extra memory, per pass
};

// The FLOPs counted for GFLOP/s: attention_flops, backward_flops or both (bench.hpp).
double pass_flops(pass p, std::size_t n, const setup& s);

// Bytes beyond X, the weights, Z, dZ and the five gradients: what the forward keeps for the
// backward (Q, K, V, O and the log-sum-exps), and beside it the forward's or the backward's own
// working memory, whichever the pass needs (both: the larger, as one is freed before the other).
std::size_t pass_extra_bytes(pass p, std::size_t n, const setup& s);

// Measures the machine's peak, then the three passes at each n (writing setup.dump_dir's files
// first at each n), telling `progress` before each run.
backward_result measure_backward(const setup& s, const progress_fn& progress);

}  // namespace qkv::bench
