// The kernel build in use (kernel_builds.hpp): the tile kernels' and the row kernels', pinned together.
#include "qkv/kernel_builds.hpp"

#include "qkv/cpu_features.hpp"
#include "qkv/row_kernels.hpp"
#include "qkv/tile_kernels.hpp"

namespace qkv::attention {

std::string_view fused_kernels_in_use() { return detail::tile_kernels_in_use(); }

bool use_kernels(std::string_view build) {
    // both or neither: each refuses only a build this processor cannot run, and that is the same test
    return cpu_runs(build) && detail::use_tile_kernels(build) && detail::use_row_kernels(build);
}

}  // namespace qkv::attention
