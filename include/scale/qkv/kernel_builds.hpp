// The build qkv's own kernels run on (the builds and which this processor runs: cpu_features.hpp),
// and how to pin one for both kernel tables at once.
#pragma once

#include <string_view>

namespace qkv::attention {

// The build of the tile kernels forward_fused runs on: the widest this processor runs, unless
// pinned; never OpenBLAS's.
std::string_view fused_kernels_in_use();

// Pins qkv's own kernels (the fused products and every softmax's exps) to the build `build`;
// false, and nothing changed, when this processor cannot run it.
bool use_kernels(std::string_view build);

}  // namespace qkv::attention
