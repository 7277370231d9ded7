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

// Where one fused forward's time went (filled when options::breakdown points here): each stage's
// processor time in seconds, summed over the threads (each thread's own clock, read around each
// stage of each block: a few thousand reads in a pass at n = 4096), and the pass's wall time. The
// stages' sum over threads × wall is the share of the time the threads ran; the rest they waited,
// for each other or for other processes.
struct fused_breakdown {
    double pack = 0;        // the weights into panels
    double project_kv = 0;  // each key block's K (transposed) and V
    double project_q = 0;   // each query block's Q
    double scores = 0;      // S = Q·Kᵀ, block by block, and 2^(s − m) with the rows' max and sum in the
                            // same product for every block after a row's first that the mask leaves whole
    double exps = 0;        // the rest of the softmax: the first and the mask's diagonal blocks' 2^(s − m),
                            // every block's joining to the running max and sum, the rare rescaling
    double weighted = 0;    // Z += P·V and the division by the sums
    double output = 0;      // out += Z·W_O
    double wall = 0;
    int threads = 1;
    // of the multiply-add slots the scores' and weighted sums' tiles issue (6 rows × vectors of
    // 16 floats), the share that part-filled tiles and, under the mask, the diagonal's masked
    // part leave idle: counted from the plan, not timed
    double idle_slots = 0;
};

// Floats forward_fused allocates for these sizes, beyond X, the weights and the result.
std::size_t fused_extra_floats(std::size_t n, std::size_t d, const options& o);

}  // namespace qkv::attention
