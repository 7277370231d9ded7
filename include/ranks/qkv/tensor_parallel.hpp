// `qkv bench --tensor-parallel`: the fused multi-head attention split by heads over the ranks (each
// rank its own heads on qkv's tile kernels, then one all-reduce of their Σ head_i·W_O,i), against
// the whole layer on one rank. Every rank calls it and gets the same figures; nothing here prints.
#pragma once

#include <cstddef>
#include <vector>

namespace qkv::ranks {

struct rank_split {
    std::size_t heads = 0;                           // the heads this rank computed
    double compute_ms = 0, comm_ms = 0;              // medians over the runs
    double step_ms = 0;                              // median of compute + all-reduce, run by run
    std::size_t bytes_sent = 0, bytes_received = 0;  // of one run's all-reduce messages
};

struct tensor_parallel_run {
    std::size_t n = 0, d_model = 0, heads = 0, ranks = 1;
    int threads = 1, runs = 0;
    double one_rank_ms = 0;            // the whole layer on rank 0 alone (P = 1), median
    std::vector<rank_split> per_rank;  // in rank order
    double max_difference = 0;         // largest |Z on the ranks − Z on one rank|
    double parallel_ms() const;        // the slowest rank's step
    double speed_up() const { return one_rank_ms / parallel_ms(); }
    double efficiency() const { return speed_up() / double(ranks); }
};

// On the ranks in use (devices.hpp; the one process when not under mpirun). Throws input_error when
// the ranks do not divide the heads: the same line on every rank.
tensor_parallel_run run_tensor_parallel(std::size_t n, std::size_t d_model, std::size_t heads, int threads, int runs);

}  // namespace qkv::ranks
