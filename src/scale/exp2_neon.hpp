// Private to attention at scale: 2^x on four floats with Advanced SIMD (NEON, every arm64
// processor has it), for the NEON tile kernels that finish a block of scores in registers. It is
// exp2_ymm's way (exp2_avx2.hpp) in NEON's words: x clamped to [-125, 127] so that 2^x stays a
// normal float, k = round(x) by adding 1.5 · 2^23, r = x − k in [-1/2, 1/2], 2^r by the same
// degree-5 polynomial (1.9e-7 relative in float), and k added to its exponent.
#pragma once

#if !defined(__aarch64__)
#error "NEON: include this only behind #if defined(__aarch64__)"
#endif

#include <arm_neon.h>

namespace qkv::attention::detail {

[[gnu::always_inline]] inline float32x4_t exp2_q(float32x4_t x) {
    x = vminq_f32(vmaxq_f32(x, vdupq_n_f32(-125.0f)), vdupq_n_f32(127.0f));
    // adding 1.5 · 2^23 rounds x to an integer k (to nearest, as the FPU rounds) and leaves k in
    // the low bits of the pattern; shifted up 23, the bits above them are gone and k is left in
    // the exponent field
    const float32x4_t magic = vdupq_n_f32(12582912.0f);
    const float32x4_t t = vaddq_f32(x, magic);
    const float32x4_t r = vsubq_f32(x, vsubq_f32(t, magic));  // exact, in [-1/2, 1/2]
    const int32x4_t k_up = vshlq_n_s32(vreinterpretq_s32_f32(t), 23);
    // vfmaq_f32(a, b, c) = a + b · c, each step one fused multiply-add
    float32x4_t q = vfmaq_f32(vdupq_n_f32(0.00967151299f), r, vdupq_n_f32(0.00132647238f));
    q = vfmaq_f32(vdupq_n_f32(0.0555073358f), r, q);
    q = vfmaq_f32(vdupq_n_f32(0.240222424f), r, q);
    q = vfmaq_f32(vdupq_n_f32(0.693147004f), r, q);
    q = vfmaq_f32(vdupq_n_f32(1.0f), r, q);
    // q · 2^k by adding k to q's exponent: q in [0.7, 1.42] has exponent 126 or 127, so with k in
    // [-125, 127] (k = 127 only with r <= 0, q <= 1) the sum stays a normal float's, 1 to 254
    return vreinterpretq_f32_s32(vaddq_s32(vreinterpretq_s32_f32(q), k_up));
}

}  // namespace qkv::attention::detail
