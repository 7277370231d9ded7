// Private to attention at scale: 2^x on eight floats with AVX2, for the tile kernels that finish a
// block of scores in registers (and the softmax's row kernels, which may share it). AVX2 has
// neither of AVX-512's two ends of 2^x (vreduceps, vscalefps), so it is exp2_approx_t's way
// (row_kernels.cpp) written out: x clamped to [-125, 127] so that 2^x stays a normal float, k =
// round(x) by adding 1.5 · 2^23, r = x − k in [-1/2, 1/2], 2^r by the same degree-5 polynomial
// (1.9e-7 relative in float), and k added to its exponent. Twelve operations for eight floats,
// six of them on the multiply units; at d_k = 64 the product behind them took 64 multiply-adds.
// (Below 2^-125 the softmax's terms only ever meet sums of at least 1.)
#pragma once

#include "x86_intrinsics.hpp"

namespace qkv::attention::detail {

[[gnu::target("avx2,fma"), gnu::always_inline]] inline __m256 exp2_ymm(__m256 x) {
    x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-125.0f)), _mm256_set1_ps(127.0f));
    // adding 1.5 · 2^23 rounds x to an integer k and leaves k in the low bits of the pattern,
    // whose bits above them (0x4B400000's) are zeros from bit 9 down: shifted up 23 they are
    // gone, and k is left in the exponent field, in one shift
    const __m256 magic = _mm256_set1_ps(12582912.0f);
    const __m256 t = _mm256_add_ps(x, magic);
    const __m256 r = _mm256_sub_ps(x, _mm256_sub_ps(t, magic));  // exact, in [-1/2, 1/2]
    const __m256i k_up = _mm256_slli_epi32(_mm256_castps_si256(t), 23);
    __m256 q = _mm256_fmadd_ps(r, _mm256_set1_ps(0.00132647238f), _mm256_set1_ps(0.00967151299f));
    q = _mm256_fmadd_ps(r, q, _mm256_set1_ps(0.0555073358f));
    q = _mm256_fmadd_ps(r, q, _mm256_set1_ps(0.240222424f));
    q = _mm256_fmadd_ps(r, q, _mm256_set1_ps(0.693147004f));
    q = _mm256_fmadd_ps(r, q, _mm256_set1_ps(1.0f));
    // q · 2^k by adding k to q's exponent (an integer add, off the multiply units): q in
    // [0.7, 1.42] has exponent 126 or 127, so with k in [-125, 127] (and k = 127 only with
    // r <= 0, q <= 1) the sum stays a normal float's, 1 to 254
    return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(q), k_up));
}

}  // namespace qkv::attention::detail
