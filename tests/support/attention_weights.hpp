// The random layers the attention-at-scale suites run on: weights like a trained layer's, drawn from
// the plain kernels' randn with a seed, so that every suite's cases are reproducible.
#pragma once

#include <cmath>
#include <cstdint>

#include "qkv/attention.hpp"
#include "qkv/kernels.hpp"

namespace qkv::test {

inline matrix scaled(matrix M, float c) {
    for (float& x : M.data) x *= c;
    return M;
}

// W_Q, W_K, W_V, W_O ~ N(0, 1/d) (seeds seed … seed + 3) keep Q, K, V and Z entries near unit size.
inline attention::weights random_weights(std::size_t d, std::uint64_t seed) {
    const float c = 1.0f / std::sqrt(float(d));
    return {scaled(kernels::randn(d, d, seed), c), scaled(kernels::randn(d, d, seed + 1), c),
            scaled(kernels::randn(d, d, seed + 2), c), scaled(kernels::randn(d, d, seed + 3), c)};
}

}  // namespace qkv::test
