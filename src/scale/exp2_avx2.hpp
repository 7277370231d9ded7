// Private to attention at scale: 2^x on eight floats with AVX2, for the tile kernels that finish a
// block of scores in registers (and the softmax's row kernels, which may share it). AVX2 has
// neither of AVX-512's two ends of 2^x (vreduceps, vscalefps), so it is exp2_approx_t's way
// (row_kernels.cpp) written out: x clamped to [-126, 127] so that 2^k stays a normal float, k =
// round(x) by adding 1.5 · 2^23, r = x − k in [-1/2, 1/2], 2^r by the same degree-5 polynomial
// (1.9e-7 relative in float), and 2^k made in the exponent bits. Thirteen operations for eight
// floats; at d_k = 64 the product behind them took 64 multiply-adds.
#pragma once

#include "x86_intrinsics.hpp"

namespace qkv::attention::detail {

[[gnu::target("avx2,fma"), gnu::always_inline]] inline __m256 exp2_ymm(__m256 x) {
    x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(-126.0f)), _mm256_set1_ps(127.0f));
    const __m256 round_magic = _mm256_set1_ps(12582912.0f);  // 1.5 · 2^23
    const __m256 t = _mm256_add_ps(x, round_magic);
    const __m256 r = _mm256_sub_ps(x, _mm256_sub_ps(t, round_magic));  // exact
    // k + 127 in the low bits of t's pattern, moved up to the exponent
    const __m256i two_k = _mm256_slli_epi32(
        _mm256_add_epi32(_mm256_sub_epi32(_mm256_castps_si256(t), _mm256_castps_si256(round_magic)),
                         _mm256_set1_epi32(127)),
        23);
    __m256 q = _mm256_fmadd_ps(r, _mm256_set1_ps(0.00132647238f), _mm256_set1_ps(0.00967151299f));
    q = _mm256_fmadd_ps(r, q, _mm256_set1_ps(0.0555073358f));
    q = _mm256_fmadd_ps(r, q, _mm256_set1_ps(0.240222424f));
    q = _mm256_fmadd_ps(r, q, _mm256_set1_ps(0.693147004f));
    q = _mm256_fmadd_ps(r, q, _mm256_set1_ps(1.0f));
    return _mm256_mul_ps(q, _mm256_castsi256_ps(two_k));
}

}  // namespace qkv::attention::detail
