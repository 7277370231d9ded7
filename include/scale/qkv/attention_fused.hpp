// Multi-head attention without the n × n matrix: key blocks and an online softmax, every product on
// qkv's own tile kernels (tile_kernels.hpp) rather than OpenBLAS, so its speed is this processor's
// and not the kernel OpenBLAS happened to load. The build it runs on: kernel_builds.hpp.
#pragma once

#include <cstddef>

#include "qkv/attention_args.hpp"

namespace qkv::attention {

// The same Z as forward_reference (attention.hpp), in blocks of queries and keys on o.threads
// threads. Throws std::invalid_argument when heads does not divide d_model or shapes disagree.
matrix forward_fused(const matrix& X, const weights& W, const options& o);

// Floats forward_fused allocates for these sizes, beyond X, the weights and the result.
std::size_t fused_extra_floats(std::size_t n, std::size_t d, const options& o);

}  // namespace qkv::attention
