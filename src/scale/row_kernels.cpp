// The softmax's row kernels (row_kernels.hpp): generic vector code GCC compiles once per build,
// AVX-512 intrinsics where they save instructions (x86-64 only), and the choice of build at run
// time.
#include "qkv/row_kernels.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <limits>

#include "build_choice.hpp"
#include "kernel_build_parts.hpp"
#if defined(__x86_64__)
#include "exp2_avx512.hpp"
#include "x86_intrinsics.hpp"
#endif

namespace qkv::attention::detail {

namespace {

// Sixteen or eight floats (or ints) as one value: GCC turns the arithmetic on them into AVX-512,
// AVX2 or pairs of SSE instructions, whichever the function using them is compiled for (the row
// helpers below come in those three builds). Passing one by value would change the ABI without
// AVX; every function that does is always inlined, so GCC's warning about it does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"
using vf16 = float __attribute__((vector_size(64)));
using vi16 = std::int32_t __attribute__((vector_size(64)));
using vf8 = float __attribute__((vector_size(32)));
using vi8 = std::int32_t __attribute__((vector_size(32)));

// 2^x = 2^k · 2^r, k = round(x), |r| <= 1/2; for a float or a vector alike. Base 2 because the
// softmax can have it for free: scores multiplied by log2(e) (folded into the alpha of the
// product that makes them) give exp(s) = 2^(s · log2 e), and 2^x needs neither that multiply
// nor a two-part ln 2 reduction. Always inlined, so each build compiles it for its own
// instructions.
template <class F, class I>
[[gnu::always_inline]] inline F exp2_approx_t(F x) {
    // clamped so 2^k stays a normal float: below 2^-126 the true value only ever meets sums of
    // at least 1 (the softmax's largest term is 1 or more); above 2^127 is out of range
    const F lo = F{} - 126.0f, hi = F{} + 127.0f;
    x = x < lo ? lo : x;
    x = x > hi ? hi : x;
    constexpr float round_magic = 12582912.0f;  // 1.5 · 2^23: adding it rounds to an integer
    const F t = x + round_magic;
    const F r = x - (t - round_magic);  // exact
    const I k = std::bit_cast<I>(t) - std::bit_cast<std::int32_t>(round_magic);
    // 2^r = 1 + r·q(r), q of degree 4 fitted for the least largest relative error on
    // [-1/2, 1/2] (Lawson's iteration; 1.9e-7 in float, one multiply-add fewer than Taylor)
    const F p = 1.0f + r * (0.693147004f + r * (0.240222424f + r * (0.0555073358f + r * (0.00967151299f +
                    r * 0.00132647238f))));
    return p * std::bit_cast<F>((k + 127) << 23);
}

}  // namespace

float exp2_approx(float x) { return exp2_approx_t<float, std::int32_t>(x); }

namespace {

constexpr float neg_inf = -std::numeric_limits<float>::infinity();
template <class F>
[[gnu::always_inline]] inline F load(const float* s) {
    F v;
    std::memcpy(&v, s, sizeof v);  // unaligned
    return v;
}

// max over s[0, n), F lanes at a time
template <class F>
[[gnu::always_inline]] inline float row_max_t(const float* s, std::size_t n) {
    constexpr std::size_t lanes = sizeof(F) / sizeof(float);
    F acc = F{} + neg_inf;
    std::size_t j = 0;
    for (; j + lanes <= n; j += lanes) {
        const F v = load<F>(s + j);
        acc = v > acc ? v : acc;
    }
    float m = neg_inf;
    for (; j < n; ++j) m = std::max(m, s[j]);
    for (std::size_t l = 0; l < lanes; ++l) m = std::max(m, acc[l]);
    return m;
}

// s[j] = 2^(s[j] - m) in place over [0, n); returns their sum, and in s_max the largest s[j]
// as it was. m need not be the max: the fused softmax passes the max of earlier key blocks and
// checks s_max afterwards (2^x is clamped at 2^127, so a result is only to be trusted when
// s_max − m is well below that).
template <class F, class I>
[[gnu::always_inline]] inline float exp2_sum_t(float* s, std::size_t n, float m, float& s_max) {
    constexpr std::size_t lanes = sizeof(F) / sizeof(float);
    F acc = {}, top = F{} + neg_inf;
    std::size_t j = 0;
    for (; j + lanes <= n; j += lanes) {
        const F x = load<F>(s + j);
        top = x > top ? x : top;
        const F e = exp2_approx_t<F, I>(x - m);
        std::memcpy(s + j, &e, sizeof e);
        acc += e;
    }
    float sum = 0.0f, mx = neg_inf;
    for (; j < n; ++j) {
        mx = std::max(mx, s[j]);
        sum += s[j] = exp2_approx_t<float, std::int32_t>(s[j] - m);
    }
    for (std::size_t l = 0; l < lanes; ++l) sum += acc[l], mx = std::max(mx, top[l]);
    s_max = mx;
    return sum;
}

// Each build's. (Sixteen lanes only with AVX-512: GCC 12 scalarises a select wider than the
// machine's registers.)
#if defined(__x86_64__)
[[gnu::target("arch=x86-64-v4")]] float row_max_avx512(const float* s, std::size_t n) { return row_max_t<vf16>(s, n); }
[[gnu::target("arch=x86-64-v3")]] float row_max_avx2(const float* s, std::size_t n) { return row_max_t<vf8>(s, n); }
#endif
float row_max_plain(const float* s, std::size_t n) { return row_max_t<vf8>(s, n); }
#if defined(__x86_64__)
// 2^(v − m) and the running max and sum for 16 floats; `in` marks the lanes that are there.
[[gnu::target("arch=x86-64-v4"), gnu::always_inline]] inline __m512 exp2_avx512(__m512 v, __m512 mv, __m512& top,
                                                                             __m512& acc, __mmask16 in) {
    top = _mm512_mask_max_ps(top, in, top, v);
    const __m512 e = exp2_zmm(_mm512_sub_ps(v, mv));
    acc = _mm512_mask_add_ps(acc, in, acc, e);
    return e;
}
// Only the tail is masked: masked stores in the loop slowed the whole fused forward pass on
// Zen 4.
[[gnu::target("arch=x86-64-v4")]] float exp2_sum_avx512(float* s, std::size_t n, float m, float& s_max) {
    const __m512 mv = _mm512_set1_ps(m);
    __m512 acc = _mm512_setzero_ps(), top = _mm512_set1_ps(neg_inf);
    std::size_t j = 0;
    for (; j + 16 <= n; j += 16) _mm512_storeu_ps(s + j, exp2_avx512(_mm512_loadu_ps(s + j), mv, top, acc, 0xffff));
    if (j < n) {
        const __mmask16 in = __mmask16((1u << (n - j)) - 1);
        _mm512_mask_storeu_ps(s + j, in, exp2_avx512(_mm512_maskz_loadu_ps(in, s + j), mv, top, acc, in));
    }
    s_max = _mm512_reduce_max_ps(top);
    return _mm512_reduce_add_ps(acc);
}
[[gnu::target("arch=x86-64-v3")]] float exp2_sum_avx2(float* s, std::size_t n, float m, float& s_max) { return exp2_sum_t<vf8, vi8>(s, n, m, s_max); }
#endif
float exp2_sum_plain(float* s, std::size_t n, float m, float& s_max) { return exp2_sum_t<vf8, vi8>(s, n, m, s_max); }

build_choice& choice() {
    static build_choice c;
    return c;
}

}  // namespace

// each build's kernels, for the table of builds (kernel_builds.cpp; declared extern in
// kernel_build_parts.hpp)
#if defined(__x86_64__)
const row_kernels avx512_rows{row_max_avx512, exp2_sum_avx512};
const row_kernels avx2_rows{row_max_avx2, exp2_sum_avx2};
#endif
const row_kernels plain_rows{row_max_plain, exp2_sum_plain};

const row_kernels& active_row_kernels() { return *choice().active().rows; }

void scale_row(float* z, std::size_t n, float c) {
    for (std::size_t j = 0; j < n; ++j) z[j] *= c;
}

float exp2_row(float* s, std::size_t n) {
    const row_kernels& k = active_row_kernels();
    float s_max;
    return k.exp2_sum(s, n, k.row_max(s, n), s_max);
}

bool use_row_kernels(std::string_view build) { return choice().use(build); }

std::string_view row_kernels_in_use() { return choice().active().name; }

}  // namespace qkv::attention::detail
