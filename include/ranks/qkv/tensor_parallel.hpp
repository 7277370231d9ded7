// `qkv bench --tensor-parallel`: the fused multi-head attention split by heads over the ranks (each
// rank its own heads on qkv's tile kernels, then one all-reduce of their Σ head_i·W_O,i), against
// the whole layer on one rank. Every rank calls it and gets the same figures; nothing here prints
// (the figures are a plain value of the scale layer, tensor_parallel_result.hpp).
#pragma once

#include <cstddef>

#include "qkv/tensor_parallel_result.hpp"

namespace qkv::ranks {

// On the ranks in use (devices.hpp; the one process when not under mpirun). Throws input_error when
// the ranks do not divide the heads: the same line on every rank.
bench::tensor_parallel_result run_tensor_parallel(std::size_t n, std::size_t d_model, std::size_t heads, int threads, int runs);

}  // namespace qkv::ranks
