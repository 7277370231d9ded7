// Private to attention at scale: 2^x on sixteen floats with AVX-512, shared by the softmax's row
// kernels and the tile kernels that finish a block of scores in registers. AVX-512 has both ends
// of 2^x as instructions: vreduceps gives r = x − floor(x) in [0, 1) in one step, and vscalefps
// makes q · 2^floor(x) from x itself, handling the range as it goes (below 2^-126 a denormal or 0,
// above 2^127 inf), so no k and no clamp: eight operations where the portable code needs twelve.
// Its own polynomial, fitted like exp2_approx_t's (row_kernels.cpp) but on [0, 1): 8e-8 relative
// in exact arithmetic, 1.6e-7 in float.
#pragma once

#include "x86_intrinsics.hpp"

namespace qkv::attention::detail {

[[gnu::target("avx512f,avx512vl,avx512bw,avx512dq,fma"), gnu::always_inline]] inline __m512 exp2_zmm(__m512 x) {
    const __m512 r = _mm512_reduce_ps(x, _MM_FROUND_TO_NEG_INF);
    __m512 q = _mm512_fmadd_ps(r, _mm512_set1_ps(0.00186711829f), _mm512_set1_ps(0.00901705492f));
    q = _mm512_fmadd_ps(r, q, _mm512_set1_ps(0.055799894f));
    q = _mm512_fmadd_ps(r, q, _mm512_set1_ps(0.240164459f));
    q = _mm512_fmadd_ps(r, q, _mm512_set1_ps(0.693151295f));
    q = _mm512_fmadd_ps(r, q, _mm512_set1_ps(1.0f));
    return _mm512_scalef_ps(q, x);
}

}  // namespace qkv::attention::detail
