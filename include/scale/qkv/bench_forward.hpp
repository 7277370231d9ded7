// `qkv bench`'s measurement: every forward implementation at every n, timed against the two peaks,
// with the memory each takes, how its time grows with n, and where the fused pass's time went.
// Plain values, no words: report_bench.hpp turns them into text or JSON.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <vector>

#include "qkv/attention.hpp"
#include "qkv/attention_fused.hpp"
#include "qkv/bench_peaks.hpp"
#include "qkv/bench_progress.hpp"
#include "qkv/bench_setup.hpp"

namespace qkv::bench {

// Where one fused forward's time went (attention::fused_breakdown), as shares of its threads'
// processor time; and the share of its wall time × threads that the threads ran.
struct fused_shares {
    double thread_cpu_seconds = 0;
    double pack_weights = 0, project_k_v = 0, project_q = 0, scores = 0, softmax_exps = 0, weighted_sum = 0,
           output_projection = 0;
    double running = 0;
    double idle_tile_slots = 0;  // of the multiply-add slots the tiles issue, counted from the plan
    double exps_in_scores = 0;   // the share of the scores' product that 2^x takes (bench::exps_in_scores)
};
fused_shares shares_of(const attention::fused_breakdown& b, double exps_in_scores);

struct forward_row {
    attention::impl which;
    std::size_t n = 0;
    int threads = 1;               // the reference's is always 1
    double ms = 0;                 // median of the timed runs
    double gflops = 0;             // attention_flops / the median
    double percent_of_peak = 0;    // of the sgemm peak
    double percent_of_machine_peak = 0;
    std::size_t extra_bytes = 0;   // beyond X, the weights and Z
    std::optional<fused_shares> breakdown;  // fused, when setup.breakdown: one more run with the clocks on
};

struct forward_result {
    setup asked;
    peaks peak;
    std::vector<forward_row> rows;  // by n, then by implementation, as asked
    // time ∝ n^k, least squares of log t on log n, per implementation (nullopt: fewer than two n)
    std::map<attention::impl, std::optional<double>> growth;
};

// Measures the peaks, then each implementation at each n (writing setup.dump_dir's files as it
// goes, prepare_dump_dir having checked them), telling `progress` before each run.
forward_result measure_forward(const setup& s, const progress_fn& progress);

}  // namespace qkv::bench
