// The softmax's row kernels for attention at scale: the max of a row, and 2^(s − m) in place
// with its sum, in each build of the table (kernel_builds.hpp); the widest this processor runs is
// used, and tests may pin another. 2^x rather than e^x: see exp2_approx_t in row_kernels.cpp.
#pragma once

#include <cstddef>
#include <string_view>

namespace qkv::attention::detail {

// One build's kernels (its name is the table's).
struct row_kernels {
    // max over s[0, n)
    float (*row_max)(const float* s, std::size_t n);
    // s[j] = 2^(s[j] - m) in place over [0, n); returns their sum, and in s_max the largest s[j]
    // as it was. m need not be the max: the fused softmax passes the max of earlier key blocks and
    // checks s_max afterwards (2^x saturates at 2^127, clamped or as inf depending on the build,
    // so a result is only to be trusted when s_max - m is well below that).
    float (*exp2_sum)(float* s, std::size_t n, float m, float& s_max);
};

// The build in use: the best this processor runs, unless a test pinned another.
const row_kernels& active_row_kernels();

// z[0, n) *= c: a row of weights or of outputs brought to another scale.
void scale_row(float* z, std::size_t n, float c);

// A row's softmax numerators in place, 2^(s[j] - max): returns their sum.
float exp2_row(float* s, std::size_t n);

// 2^x to about 2e-7 relative, in plain arithmetic GCC vectorises; exposed for its test. (The
// softmax computes exp(s) as 2^(s · log2 e), the factor folded into the product that makes s.)
float exp2_approx(float x);

// Pins the build `build` (kernel_builds.hpp); false when there is none of that name or this
// processor cannot run it.
bool use_row_kernels(std::string_view build);
std::string_view row_kernels_in_use();

}  // namespace qkv::attention::detail
