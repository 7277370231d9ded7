// What `qkv bench --tensor-parallel` measured (the ranks layer fills it, tensor_parallel.hpp): per
// rank the time computing and communicating and the bytes moved, and the whole layer on one rank
// beside it. Plain values, here rather than beside MPI, so that a report of them needs no MPI.
#pragma once

#include <cstddef>
#include <vector>

namespace qkv::bench {

struct rank_split {
    std::size_t heads = 0;                           // the heads this rank computed
    double compute_ms = 0, comm_ms = 0;              // medians over the runs
    double step_ms = 0;                              // median of compute + all-reduce, run by run
    std::size_t bytes_sent = 0, bytes_received = 0;  // of one run's all-reduce messages
};

struct tensor_parallel_result {
    std::size_t n = 0, d_model = 0, heads = 0, ranks = 1;
    int threads = 1, runs = 0;
    bool mpi = false;                  // this qkv was built with MPI (else it is always one process)
    double one_rank_ms = 0;            // the whole layer on rank 0 alone (P = 1), median
    std::vector<rank_split> per_rank;  // in rank order
    double max_difference = 0;         // largest |Z on the ranks − Z on one rank|
    double parallel_ms() const;        // the slowest rank's step
    double speed_up() const { return one_rank_ms / parallel_ms(); }
    double efficiency() const { return speed_up() / double(ranks); }
};

}  // namespace qkv::bench
