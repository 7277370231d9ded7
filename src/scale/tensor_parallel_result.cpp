// The figures a tensor-parallel run derives from its ranks' (tensor_parallel_result.hpp).
#include "qkv/tensor_parallel_result.hpp"

#include <algorithm>

namespace qkv::bench {

double tensor_parallel_result::parallel_ms() const {
    double slowest = 0;
    for (const rank_split& r : per_rank) slowest = std::max(slowest, r.step_ms);
    return slowest;
}

}  // namespace qkv::bench
