// The fused attention's block products (tile_kernels.hpp): a micro-kernel per build that keeps a
// tile of C of up to 6 rows × 64 columns in registers while it walks k, and the loops that lay
// those tiles over C, a slice of k at a time; the same tiles finished in registers (2^x, P ⊙ x)
// before they are stored; and the transpose and panel packing that lay out what they read.
#include "qkv/tile_kernels.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

#include "qkv/row_kernels.hpp"

#include "build_choice.hpp"
#include "kernel_build_parts.hpp"
#if defined(__x86_64__)
#include "exp2_avx2.hpp"
#include "exp2_avx512.hpp"
#include "x86_intrinsics.hpp"
#endif
#if defined(__aarch64__)
#include "exp2_neon.hpp"
#endif

namespace qkv::attention::detail {

namespace {

// Rows of C one micro-kernel call keeps in registers: 6 × 4 AVX-512 accumulators (24 of 32
// registers) or 6 × 2 AVX2 ones (12 of 16), leaving room for B's row and A's broadcast. Each
// step of k then loads 4 (2) vectors of B and 6 floats of A for 24 (12) multiply-adds.
constexpr std::size_t tile_rows = 6;

// One call: C (rows, cols ≤ 64) (+)= alpha · A (rows, k) · B (k, cols), B rows ld apart: a
// column of tiles down one panel, 6 rows at a time. Each build comes twice: A as stored, entry
// (r, t) at A[r·lda + t], and A transposed, at A[t·lda + r] (tile_gemm_ta).
using tile_fn = void (*)(std::size_t k, const float* A, std::size_t lda, const float* B, std::size_t ldb, float* C,
                         std::size_t ldc, std::size_t rows, std::size_t cols, float alpha, bool accumulate);

// A finished product's operands (tile_gemm_exp2, tile_gemm_times): C (m, n) from A (m, k) · B
// and the rows' offsets o [m]; P (times) or sum [m] (exp2, when not null).
struct finished_args {
    std::size_t m, n, k;
    float alpha;  // exp2: x = alpha · (A·B) − o
    const float* A;
    std::size_t lda;
    operand_b B;
    const float* o;
    const float* P;
    std::size_t ldp;
    float* C;
    std::size_t ldc;
    float* sum;
};
using finished_fn = void (*)(const finished_args& f);

// What a finished product does with each entry x = (A·B)_ij − o_i: C = 2^x (with or without the
// rows' sums of it), or C = P ⊙ x.
enum class finish { exp2, exp2_sum, times };

// f(std::integral_constant<int, R>{}) for R = rows, 1 … 6: a tile of that many rows, its size a
// constant in each build's code. (The lambdas passed in are compiled for their build's target.)
template <class F>
[[gnu::always_inline]] inline void by_rows(std::size_t rows, F&& f) {
    switch (rows) {
        case 6: return f(std::integral_constant<int, 6>{});
        case 5: return f(std::integral_constant<int, 5>{});
        case 4: return f(std::integral_constant<int, 4>{});
        case 3: return f(std::integral_constant<int, 3>{});
        case 2: return f(std::integral_constant<int, 2>{});
        case 1: return f(std::integral_constant<int, 1>{});
        default: return;
    }
}

// A's entry (r, t) as stored (TA false) or transposed.
template <bool TA>
[[gnu::always_inline]] inline const float* a_at(const float* A, std::size_t lda, std::size_t r, std::size_t t) {
    return TA ? A + t * lda + r : A + r * lda + t;
}

#if defined(__x86_64__)

// --- AVX-512: 16 lanes; the last vector of a row is masked, so any cols ≤ 64 takes one path ---

#pragma GCC push_options
#pragma GCC target("avx512f,avx512vl,avx512bw,avx512dq,fma")

// c[r][v] += Σ_t A(r, t) · B(t, 16v …): the tile's product, in registers; the last vector of
// each row is loaded through `last`. Every loop over r and v unrolled, so the accumulators are
// registers and not an array.
template <bool TA, int R, int V>
[[gnu::always_inline]] inline void product_avx512(std::size_t k, const float* A, std::size_t lda, const float* B,
                                                  std::size_t ldb, __mmask16 last, __m512 (&c)[R][V]) {
#pragma GCC unroll 4
    for (std::size_t t = 0; t < k; ++t) {
        const float* b_row = B + t * ldb;
        __m512 b[V];
#pragma GCC unroll 4
        for (int v = 0; v < V - 1; ++v) b[v] = _mm512_loadu_ps(b_row + 16 * v);
        b[V - 1] = _mm512_maskz_loadu_ps(last, b_row + 16 * (V - 1));  // with a full mask as fast as a load
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) {
            const __m512 a = _mm512_set1_ps(*a_at<TA>(A, lda, r, t));
#pragma GCC unroll 4
            for (int v = 0; v < V; ++v) c[r][v] = _mm512_fmadd_ps(a, b[v], c[r][v]);
        }
    }
}

template <bool TA, int R, int V>
[[gnu::always_inline]] inline void tile_avx512_t(std::size_t k, const float* A, std::size_t lda, const float* B,
                                                 std::size_t ldb, float* C, std::size_t ldc, __mmask16 last,
                                                 float alpha, bool accumulate) {
    __m512 c[R][V];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) c[r][v] = _mm512_setzero_ps();
    product_avx512<TA, R, V>(k, A, lda, B, ldb, last, c);
    const __m512 alpha_v = _mm512_set1_ps(alpha);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) {
            float* out = C + r * ldc + 16 * v;
            const __mmask16 m = v == V - 1 ? last : __mmask16(0xffff);
            __m512 x = alpha == 1.0f ? c[r][v] : _mm512_mul_ps(c[r][v], alpha_v);
            if (accumulate) x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(m, out));
            _mm512_mask_storeu_ps(out, m, x);
        }
}

template <bool TA, int R>
void tile_avx512_rows(std::size_t k, const float* A, std::size_t lda, const float* B, std::size_t ldb, float* C,
                      std::size_t ldc, std::size_t cols, float alpha, bool accumulate) {
    const std::size_t vectors = (cols + 15) / 16;
    const __mmask16 last = __mmask16(0xffffu >> (16 * vectors - cols));
    switch (vectors) {
        case 4: return tile_avx512_t<TA, R, 4>(k, A, lda, B, ldb, C, ldc, last, alpha, accumulate);
        case 3: return tile_avx512_t<TA, R, 3>(k, A, lda, B, ldb, C, ldc, last, alpha, accumulate);
        case 2: return tile_avx512_t<TA, R, 2>(k, A, lda, B, ldb, C, ldc, last, alpha, accumulate);
        default: return tile_avx512_t<TA, R, 1>(k, A, lda, B, ldb, C, ldc, last, alpha, accumulate);
    }
}

template <bool TA>
void tile_avx512(std::size_t k, const float* A, std::size_t lda, const float* B, std::size_t ldb, float* C,
                 std::size_t ldc, std::size_t rows, std::size_t cols, float alpha, bool accumulate) {
    // the common case, whole 6 × 64 tiles down the panel, in one loop without a call per tile
    if (cols == panel_cols)
        for (; rows >= 6; rows -= 6, A += TA ? 6 : 6 * lda, C += 6 * ldc)
            tile_avx512_t<TA, 6, 4>(k, A, lda, B, ldb, C, ldc, __mmask16(0xffff), alpha, accumulate);
    for (; rows > 6; rows -= 6, A += TA ? 6 : 6 * lda, C += 6 * ldc)
        tile_avx512_rows<TA, 6>(k, A, lda, B, ldb, C, ldc, cols, alpha, accumulate);
    by_rows(rows, [&](auto R) { tile_avx512_rows<TA, R.value>(k, A, lda, B, ldb, C, ldc, cols, alpha, accumulate); });
}

// A finished product's tile (tile_gemm_exp2, tile_gemm_times): its rows start from −o_r, so the
// product comes out as x = A·B − o_r (or from 0, and x = alpha·(A·B) − o_r after, when Scaled),
// and each entry is finished before it is stored: 2^x, for exp2_sum with each row's 2^x added
// to its running sum in sum[r] (16 lanes, in memory: kept in registers, beside the 24
// accumulators, the rows' sums and maxima had been spilled in the loop over k); or P ⊙ x.
template <finish F, bool Scaled, int R, int V>
[[gnu::always_inline]] inline void finished_tile_avx512(std::size_t k, const float* A, std::size_t lda, const float* B,
                                                        std::size_t ldb, float* C, std::size_t ldc, __mmask16 last,
                                                        const float* o, float alpha, const float* P,
                                                        std::size_t ldp, float (*sum)[16]) {
    __m512 c[R][V];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
        const __m512 start = Scaled ? _mm512_setzero_ps() : _mm512_set1_ps(-o[r]);
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) c[r][v] = start;
    }
    product_avx512<false, R, V>(k, A, lda, B, ldb, last, c);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) {
            if constexpr (Scaled) c[r][v] = _mm512_fmsub_ps(_mm512_set1_ps(alpha), c[r][v], _mm512_set1_ps(o[r]));
            float* out = C + r * ldc + 16 * v;
            const __mmask16 m = v == V - 1 ? last : __mmask16(0xffff);
            if constexpr (F == finish::times) {
                _mm512_mask_storeu_ps(out, m, _mm512_mul_ps(_mm512_maskz_loadu_ps(m, P + r * ldp + 16 * v), c[r][v]));
            } else {
                c[r][v] = exp2_zmm(c[r][v]);
                _mm512_mask_storeu_ps(out, m, c[r][v]);
            }
        }
    if constexpr (F == finish::exp2_sum)
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) {
            __m512 row = _mm512_load_ps(sum[r]);
#pragma GCC unroll 4
            for (int v = 0; v < V; ++v) row = _mm512_mask_add_ps(row, v == V - 1 ? last : __mmask16(0xffff), row, c[r][v]);
            _mm512_store_ps(sum[r], row);
        }
}

// R rows of a finished product, panel after panel along n, the rows' sums kept 16 lanes wide
// across the panels and added up once at the end.
template <finish F, bool Scaled, int R>
void finished_rows_avx512(const finished_args& f, std::size_t i0) {
    alignas(64) float sum[R][16] = {};
    const float *A = f.A + i0 * f.lda, *o = f.o + i0, *P = f.P ? f.P + i0 * f.ldp : nullptr;
    float* C = f.C + i0 * f.ldc;
    for (std::size_t j0 = 0; j0 < f.n; j0 += panel_cols) {
        const std::size_t cols = std::min(panel_cols, f.n - j0), vectors = (cols + 15) / 16;
        const __mmask16 last = __mmask16(0xffffu >> (16 * vectors - cols));
        const float* B = f.B.p + (j0 / panel_cols) * f.B.panel_stride;
        const float* Pj = P ? P + j0 : nullptr;
        auto tile = [&](auto V) {
            finished_tile_avx512<F, Scaled, R, V.value>(f.k, A, f.lda, B, f.B.ld, C + j0, f.ldc, last, o, f.alpha, Pj,
                                                        f.ldp, sum);
        };
        switch (vectors) {
            case 4: tile(std::integral_constant<int, 4>{}); break;
            case 3: tile(std::integral_constant<int, 3>{}); break;
            case 2: tile(std::integral_constant<int, 2>{}); break;
            default: tile(std::integral_constant<int, 1>{}); break;
        }
    }
    if constexpr (F == finish::exp2_sum)
        for (int r = 0; r < R; ++r) f.sum[i0 + r] = _mm512_reduce_add_ps(_mm512_load_ps(sum[r]));
}

template <finish F, bool Scaled>
void finished_avx512(const finished_args& f) {
    for (std::size_t i0 = 0; i0 < f.m; i0 += tile_rows)
        by_rows(std::min(tile_rows, f.m - i0), [&](auto R) { finished_rows_avx512<F, Scaled, R.value>(f, i0); });
}

void exp2_avx512(const finished_args& f) {
    if (f.alpha != 1.0f) return f.sum ? finished_avx512<finish::exp2_sum, true>(f) : finished_avx512<finish::exp2, true>(f);
    if (f.sum) return finished_avx512<finish::exp2_sum, false>(f);
    finished_avx512<finish::exp2, false>(f);
}
void times_avx512(const finished_args& f) { finished_avx512<finish::times, false>(f); }

// out (cols, rows) = M (rows, cols) transposed, 16 × 16 floats at a time in registers: rows
// loaded whole (masked past cols, zero past rows), interleaved in pairs, then in fours, then
// their 128-bit quarters swapped twice; each of the 16 results is a column of M.
void transpose_avx512(std::size_t rows, std::size_t cols, const float* M, std::size_t ld, float* out,
                      std::size_t out_ld) {
    for (std::size_t i0 = 0; i0 < rows; i0 += 16)
        for (std::size_t c0 = 0; c0 < cols; c0 += 16) {
            const std::size_t h = std::min<std::size_t>(16, rows - i0), w = std::min<std::size_t>(16, cols - c0);
            const __mmask16 in_w = __mmask16(0xffffu >> (16 - w)), in_h = __mmask16(0xffffu >> (16 - h));
            __m512 r[16], t[16];
            for (std::size_t i = 0; i < 16; ++i)
                r[i] = i < h ? _mm512_maskz_loadu_ps(in_w, M + (i0 + i) * ld + c0) : _mm512_setzero_ps();
            for (int i = 0; i < 16; i += 2) {
                t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
                t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
            }
            for (int i = 0; i < 16; i += 4) {
                r[i] = _mm512_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
                r[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
                r[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
                r[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
            }
            for (int half = 0; half < 16; half += 8)
                for (int i = 0; i < 4; ++i) {
                    t[half + i] = _mm512_shuffle_f32x4(r[half + i], r[half + i + 4], 0x88);
                    t[half + i + 4] = _mm512_shuffle_f32x4(r[half + i], r[half + i + 4], 0xdd);
                }
            for (int i = 0; i < 8; ++i) {
                r[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
                r[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xdd);
            }
            for (std::size_t c = 0; c < w; ++c) _mm512_mask_storeu_ps(out + (c0 + c) * out_ld + i0, in_h, r[c]);
        }
}

#pragma GCC pop_options

// --- AVX2: 8 lanes, 16 columns at a time; a part-filled last 16 goes through masked moves ---

#pragma GCC push_options
#pragma GCC target("avx2,fma")

// c[r][v] += Σ_t A(r, t) · B(t, 8v …), v = 0, 1: a tile of R rows × 16 columns, in registers (12
// accumulators at R = 6, beside B's two vectors and A's broadcast: 15 of the 16 ymm registers).
// Full: all 16 columns are there; else B is read through the lane masks in0, in1 (lanes past the
// block read as 0).
template <bool TA, int R, bool Full>
[[gnu::always_inline]] inline void product_avx2(std::size_t k, const float* A, std::size_t lda, const float* B,
                                                std::size_t ldb, __m256i in0, __m256i in1, __m256 (&c)[R][2]) {
#pragma GCC unroll 2
    for (std::size_t t = 0; t < k; ++t) {
        const float* b_row = B + t * ldb;
        // AMD's masked loads are as fast as plain ones, its masked stores are not: only the
        // last tile of C, once, is stored through a mask
        const __m256 b0 = Full ? _mm256_loadu_ps(b_row) : _mm256_maskload_ps(b_row, in0);
        const __m256 b1 = Full ? _mm256_loadu_ps(b_row + 8) : _mm256_maskload_ps(b_row + 8, in1);
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) {
            const __m256 a = _mm256_broadcast_ss(a_at<TA>(A, lda, r, t));
            c[r][0] = _mm256_fmadd_ps(a, b0, c[r][0]);
            c[r][1] = _mm256_fmadd_ps(a, b1, c[r][1]);
        }
    }
}

template <bool Full>
[[gnu::always_inline]] inline __m256 load_avx2(const float* p, __m256i in) {
    return Full ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, in);
}
template <bool Full>
[[gnu::always_inline]] inline void store_avx2(float* p, __m256i in, __m256 x) {
    if (Full)
        _mm256_storeu_ps(p, x);
    else
        _mm256_maskstore_ps(p, in, x);
}

template <bool TA, int R, bool Full>
[[gnu::always_inline]] inline void tile16_avx2_t(std::size_t k, const float* A, std::size_t lda, const float* B,
                                                 std::size_t ldb, float* C, std::size_t ldc, __m256i in0, __m256i in1,
                                                 float alpha, bool accumulate) {
    __m256 c[R][2];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) c[r][0] = c[r][1] = _mm256_setzero_ps();
    product_avx2<TA, R, Full>(k, A, lda, B, ldb, in0, in1, c);
    const __m256 alpha_v = _mm256_set1_ps(alpha);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
        float* out = C + r * ldc;
        __m256 x0 = alpha == 1.0f ? c[r][0] : _mm256_mul_ps(c[r][0], alpha_v);
        __m256 x1 = alpha == 1.0f ? c[r][1] : _mm256_mul_ps(c[r][1], alpha_v);
        if (accumulate) {
            x0 = _mm256_add_ps(x0, load_avx2<Full>(out, in0));
            x1 = _mm256_add_ps(x1, load_avx2<Full>(out + 8, in1));
        }
        store_avx2<Full>(out, in0, x0);
        store_avx2<Full>(out + 8, in1, x1);
    }
}

// A finished product's tile of R rows × 16 columns (tile_gemm_exp2, tile_gemm_times), as
// AVX-512's: the rows start from −o_r (or from 0, and x = alpha·(A·B) − o_r after, when Scaled),
// and each entry is finished in its register before it is stored: 2^x, for exp2_sum with each
// row's 2^x over the lanes that are there added to row_sum[r]; or P ⊙ x.
template <finish F, bool Scaled, int R, bool Full>
[[gnu::always_inline]] inline void finished_tile16_avx2(std::size_t k, const float* A, std::size_t lda, const float* B,
                                                        std::size_t ldb, float* C, std::size_t ldc, __m256i in0,
                                                        __m256i in1, const float* o, float alpha, const float* P,
                                                        std::size_t ldp, __m256 (&row_sum)[R]) {
    __m256 c[R][2];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) c[r][0] = c[r][1] = Scaled ? _mm256_setzero_ps() : _mm256_set1_ps(-o[r]);
    product_avx2<false, R, Full>(k, A, lda, B, ldb, in0, in1, c);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
        float* out = C + r * ldc;
#pragma GCC unroll 2
        for (int v = 0; v < 2; ++v) {
            const __m256i in = v == 0 ? in0 : in1;
            __m256 x = c[r][v];
            if constexpr (Scaled) x = _mm256_fmsub_ps(_mm256_set1_ps(alpha), x, _mm256_set1_ps(o[r]));
            if constexpr (F == finish::times) {
                store_avx2<Full>(out + 8 * v, in, _mm256_mul_ps(load_avx2<Full>(P + r * ldp + 8 * v, in), x));
            } else {
                x = exp2_ymm(x);
                store_avx2<Full>(out + 8 * v, in, x);
                if constexpr (F == finish::exp2_sum)
                    row_sum[r] = _mm256_add_ps(row_sum[r], Full ? x : _mm256_and_ps(x, _mm256_castsi256_ps(in)));
            }
        }
    }
}

// The eight lanes of v added up.
[[gnu::always_inline]] inline float lanes_sum_avx2(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

// A finished product, panel by panel along n and down each panel 6 rows at a time, as tile_gemm
// sweeps: a panel of B (16 KiB at k = d_k = 64) stays in the L1 cache while every row passes over
// it. Each tile's rows' sums are added into f.sum as they come.
template <finish F, bool Scaled>
void finished_avx2(const finished_args& f) {
    if (F == finish::exp2_sum) std::fill_n(f.sum, f.m, 0.0f);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (std::size_t j0 = 0; j0 < f.n; j0 += panel_cols) {
        const float* Bp = f.B.p + (j0 / panel_cols) * f.B.panel_stride;
        for (std::size_t i0 = 0; i0 < f.m; i0 += tile_rows)
            by_rows(std::min(tile_rows, f.m - i0), [&](auto Rc) {
                constexpr int R = Rc.value;
                __m256 row_sum[R];
#pragma GCC unroll 8
                for (int r = 0; r < R; ++r) row_sum[r] = _mm256_setzero_ps();
                const float *A = f.A + i0 * f.lda, *o = f.o + i0;
                for (std::size_t j = j0; j < std::min(f.n, j0 + panel_cols); j += 16) {
                    const std::size_t w = std::min<std::size_t>(16, f.n - j);
                    const float* B = Bp + (j - j0);
                    float* C = f.C + i0 * f.ldc + j;
                    const float* P = f.P ? f.P + i0 * f.ldp + j : nullptr;
                    if (w == 16) {
                        finished_tile16_avx2<F, Scaled, R, true>(f.k, A, f.lda, B, f.B.ld, C, f.ldc, lane, lane, o,
                                                                 f.alpha, P, f.ldp, row_sum);
                    } else {  // lanes below w (or w − 8) are in
                        const __m256i in0 = _mm256_cmpgt_epi32(_mm256_set1_epi32(int(w)), lane);
                        const __m256i in1 = _mm256_cmpgt_epi32(_mm256_set1_epi32(int(w) - 8), lane);
                        finished_tile16_avx2<F, Scaled, R, false>(f.k, A, f.lda, B, f.B.ld, C, f.ldc, in0, in1, o,
                                                                  f.alpha, P, f.ldp, row_sum);
                    }
                }
                if constexpr (F == finish::exp2_sum)
                    for (int r = 0; r < R; ++r) f.sum[i0 + r] += lanes_sum_avx2(row_sum[r]);
            });
    }
}

void exp2_avx2(const finished_args& f) {
    if (f.alpha != 1.0f) return f.sum ? finished_avx2<finish::exp2_sum, true>(f) : finished_avx2<finish::exp2, true>(f);
    if (f.sum) return finished_avx2<finish::exp2_sum, false>(f);
    finished_avx2<finish::exp2, false>(f);
}
void times_avx2(const finished_args& f) { finished_avx2<finish::times, false>(f); }

template <bool TA, int R>
void tile_avx2_rows(std::size_t k, const float* A, std::size_t lda, const float* B, std::size_t ldb, float* C,
                    std::size_t ldc, std::size_t cols, float alpha, bool accumulate) {
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for (std::size_t j = 0; j < cols; j += 16) {
        const std::size_t w = std::min<std::size_t>(16, cols - j);
        if (w == 16) {
            tile16_avx2_t<TA, R, true>(k, A, lda, B + j, ldb, C + j, ldc, lane, lane, alpha, accumulate);
        } else {  // lanes below w (or w − 8) are in
            const __m256i in0 = _mm256_cmpgt_epi32(_mm256_set1_epi32(int(w)), lane);
            const __m256i in1 = _mm256_cmpgt_epi32(_mm256_set1_epi32(int(w) - 8), lane);
            tile16_avx2_t<TA, R, false>(k, A, lda, B + j, ldb, C + j, ldc, in0, in1, alpha, accumulate);
        }
    }
}

template <bool TA>
void tile_avx2(std::size_t k, const float* A, std::size_t lda, const float* B, std::size_t ldb, float* C,
               std::size_t ldc, std::size_t rows, std::size_t cols, float alpha, bool accumulate) {
    for (; rows > 6; rows -= 6, A += TA ? 6 : 6 * lda, C += 6 * ldc)
        tile_avx2_rows<TA, 6>(k, A, lda, B, ldb, C, ldc, cols, alpha, accumulate);
    by_rows(rows, [&](auto R) { tile_avx2_rows<TA, R.value>(k, A, lda, B, ldb, C, ldc, cols, alpha, accumulate); });
}

#pragma GCC pop_options

#endif  // __x86_64__

// --- plain: loops the compiler vectorises for whatever the baseline is (SSE2 on x86-64, NEON on
// arm64) ---

template <bool TA>
void tile_plain(std::size_t k, const float* A, std::size_t lda, const float* B, std::size_t ldb, float* C,
                std::size_t ldc, std::size_t rows, std::size_t cols, float alpha, bool accumulate) {
    for (std::size_t r = 0; r < rows; ++r) {
        float c[panel_cols] = {};
        for (std::size_t t = 0; t < k; ++t) {
            const float a = *a_at<TA>(A, lda, r, t);
            const float* b_row = B + t * ldb;
            for (std::size_t j = 0; j < cols; ++j) c[j] += a * b_row[j];
        }
        float* out = C + r * ldc;
        for (std::size_t j = 0; j < cols; ++j) out[j] = alpha * c[j] + (accumulate ? out[j] : 0.0f);
    }
}

#if defined(__aarch64__)

// --- NEON (Advanced SIMD, on every arm64 processor): 4 lanes; tiles of up to 4 rows × 16
// columns, then 12, 8 or 4 past the last whole 16, and the plain loop for the last cols % 4
// (NEON has no masked loads) ---

// Rows of C one NEON tile keeps in registers: 4 × 4 accumulators, beside B's four vectors and
// one register for each row's A(r, t): 24 of the 32. (Six rows, as the x86 builds have, need 34,
// and GCC kept two accumulators on the stack, loaded and stored again at every step of k.)
constexpr std::size_t neon_tile_rows = 4;

// c[r][v] += Σ_t A(r, t) · B(t, 4v …): a tile of R rows × 4V columns in registers.
template <bool TA, int R, int V>
[[gnu::always_inline]] inline void product_neon(std::size_t k, const float* A, std::size_t lda, const float* B,
                                                std::size_t ldb, float32x4_t (&c)[R][V]) {
#pragma GCC unroll 2
    for (std::size_t t = 0; t < k; ++t) {
        const float* b_row = B + t * ldb;
        float32x4_t b[V];
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) b[v] = vld1q_f32(b_row + 4 * v);
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) {
            const float32x4_t a = vld1q_dup_f32(a_at<TA>(A, lda, r, t));
#pragma GCC unroll 4
            for (int v = 0; v < V; ++v) c[r][v] = vfmaq_f32(c[r][v], a, b[v]);
        }
    }
}

template <bool TA, int R, int V>
[[gnu::always_inline]] inline void tile_neon_t(std::size_t k, const float* A, std::size_t lda, const float* B,
                                               std::size_t ldb, float* C, std::size_t ldc, float alpha,
                                               bool accumulate) {
    float32x4_t c[R][V];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) c[r][v] = vdupq_n_f32(0.0f);
    product_neon<TA, R, V>(k, A, lda, B, ldb, c);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) {
            float* out = C + r * ldc + 4 * v;
            float32x4_t x = alpha == 1.0f ? c[r][v] : vmulq_n_f32(c[r][v], alpha);
            if (accumulate) x = vaddq_f32(x, vld1q_f32(out));
            vst1q_f32(out, x);
        }
}

// f(V, j) for the strips of 4V columns, V = 4 while 16 are left, then one of 12, 8 or 4: together
// columns 0 … cols − cols % 4 − 1.
template <class F>
[[gnu::always_inline]] inline void by_strips(std::size_t cols, F&& f) {
    std::size_t j = 0;
    for (; j + 16 <= cols; j += 16) f(std::integral_constant<int, 4>{}, j);
    switch ((cols - j) / 4) {
        case 3: return f(std::integral_constant<int, 3>{}, j);
        case 2: return f(std::integral_constant<int, 2>{}, j);
        case 1: return f(std::integral_constant<int, 1>{}, j);
        default: return;
    }
}

template <bool TA, int R>
void tile_neon_rows(std::size_t k, const float* A, std::size_t lda, const float* B, std::size_t ldb, float* C,
                    std::size_t ldc, std::size_t cols, float alpha, bool accumulate) {
    by_strips(cols, [&](auto V, std::size_t j) {
        tile_neon_t<TA, R, V.value>(k, A, lda, B + j, ldb, C + j, ldc, alpha, accumulate);
    });
    const std::size_t vectors_end = cols - cols % 4;
    if (vectors_end < cols)
        tile_plain<TA>(k, A, lda, B + vectors_end, ldb, C + vectors_end, ldc, R, cols - vectors_end, alpha, accumulate);
}

template <bool TA>
void tile_neon(std::size_t k, const float* A, std::size_t lda, const float* B, std::size_t ldb, float* C,
               std::size_t ldc, std::size_t rows, std::size_t cols, float alpha, bool accumulate) {
    constexpr std::size_t R = neon_tile_rows;
    for (; rows > R; rows -= R, A += TA ? R : R * lda, C += R * ldc)
        tile_neon_rows<TA, R>(k, A, lda, B, ldb, C, ldc, cols, alpha, accumulate);
    by_rows(rows, [&](auto Rc) { tile_neon_rows<TA, Rc.value>(k, A, lda, B, ldb, C, ldc, cols, alpha, accumulate); });
}

// A finished product's tile, as finished_tile16_avx2: rows that start from −o_r (or from 0, and
// x = alpha · (A·B) − o_r after, when Scaled), each entry finished before it is stored, 2^x
// added to its row's four-lane sum for exp2_sum.
template <finish F, bool Scaled, int R, int V>
[[gnu::always_inline]] inline void finished_tile_neon(std::size_t k, const float* A, std::size_t lda, const float* B,
                                                      std::size_t ldb, float* C, std::size_t ldc, const float* o,
                                                      float alpha, const float* P, std::size_t ldp,
                                                      float32x4_t (&row_sum)[R]) {
    float32x4_t c[R][V];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
        const float32x4_t start = vdupq_n_f32(Scaled ? 0.0f : -o[r]);
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) c[r][v] = start;
    }
    product_neon<false, R, V>(k, A, lda, B, ldb, c);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) {
            float32x4_t x = c[r][v];
            if constexpr (Scaled) x = vfmaq_f32(vdupq_n_f32(-o[r]), x, vdupq_n_f32(alpha));  // −o + x · alpha, fused
            float* out = C + r * ldc + 4 * v;
            if constexpr (F == finish::times) {
                vst1q_f32(out, vmulq_f32(vld1q_f32(P + r * ldp + 4 * v), x));
            } else {
                x = exp2_q(x);
                vst1q_f32(out, x);
                if constexpr (F == finish::exp2_sum) row_sum[r] = vaddq_f32(row_sum[r], x);
            }
        }
}

// A finished product, panel by panel along n and down each panel 4 rows at a time, as
// finished_avx2 sweeps; the last cols % 4 columns of a panel entry by entry in plain arithmetic.
template <finish F, bool Scaled>
void finished_neon(const finished_args& f) {
    if (F == finish::exp2_sum) std::fill_n(f.sum, f.m, 0.0f);
    for (std::size_t j0 = 0; j0 < f.n; j0 += panel_cols) {
        const float* B = f.B.p + (j0 / panel_cols) * f.B.panel_stride;
        const std::size_t w = std::min(panel_cols, f.n - j0);
        for (std::size_t i0 = 0; i0 < f.m; i0 += neon_tile_rows)
            by_rows(std::min(neon_tile_rows, f.m - i0), [&](auto Rc) {
                constexpr int R = Rc.value;
                float32x4_t row_sum[R];
                float tail_sum[R] = {};
#pragma GCC unroll 8
                for (int r = 0; r < R; ++r) row_sum[r] = vdupq_n_f32(0.0f);
                const float *A = f.A + i0 * f.lda, *o = f.o + i0;
                const float* P = f.P ? f.P + i0 * f.ldp + j0 : nullptr;
                float* C = f.C + i0 * f.ldc + j0;
                by_strips(w, [&](auto V, std::size_t j) {
                    finished_tile_neon<F, Scaled, R, V.value>(f.k, A, f.lda, B + j, f.B.ld, C + j, f.ldc, o, f.alpha,
                                                              P ? P + j : nullptr, f.ldp, row_sum);
                });
                for (std::size_t j = w - w % 4; j < w; ++j)
                    for (int r = 0; r < R; ++r) {
                        float x = Scaled ? 0.0f : -o[r];
                        for (std::size_t t = 0; t < f.k; ++t) x += A[r * f.lda + t] * B[t * f.B.ld + j];
                        if constexpr (Scaled) x = f.alpha * x - o[r];
                        float& out = C[r * f.ldc + j];
                        if constexpr (F == finish::times) {
                            out = P[r * f.ldp + j] * x;
                        } else {
                            out = exp2_approx(x);
                            tail_sum[r] += out;
                        }
                    }
                if constexpr (F == finish::exp2_sum)
                    for (int r = 0; r < R; ++r) f.sum[i0 + r] += vaddvq_f32(row_sum[r]) + tail_sum[r];
            });
    }
}

void exp2_neon(const finished_args& f) {
    if (f.alpha != 1.0f) return f.sum ? finished_neon<finish::exp2_sum, true>(f) : finished_neon<finish::exp2, true>(f);
    if (f.sum) return finished_neon<finish::exp2_sum, false>(f);
    finished_neon<finish::exp2, false>(f);
}
void times_neon(const finished_args& f) { finished_neon<finish::times, false>(f); }

#endif  // __aarch64__

// Terms of k per sweep of the tiles. Each slice after the first reads C back and writes it again,
// so fewer slices save that traffic; the 128 KiB of a 512-term slice of a panel no longer fits
// the L1 cache, but the L2 feeds it fast enough. Every product of the attention at
// d_model = 512 is then one slice.
constexpr std::size_t k_slice = 512;

// Of tile rows i0 … i0+rows−1, how far along the band lets the last row go (columns or terms).
std::size_t band_end(const causal_band& band, std::size_t i0, std::size_t rows, std::size_t full) {
    const std::ptrdiff_t end = std::ptrdiff_t(i0 + rows) + band.shift;
    return end <= 0 ? 0 : std::min(full, std::size_t(end));
}

// C (m, n) (+)= alpha · A · B with no band, every tile of a panel in one call; a_step is how far
// A moves for the next slice of k (1 as stored, lda transposed).
void sweep(tile_fn tile, std::size_t m, std::size_t n, std::size_t k, float alpha, const float* A, std::size_t lda,
           std::size_t a_step, const operand_b& B, bool accumulate, float* C, std::size_t ldc) {
    if (k == 0) {  // an empty sum: C = 0, or C as it was
        for (std::size_t i = 0; i < m && !accumulate; ++i) std::fill(C + i * ldc, C + i * ldc + n, 0.0f);
        return;
    }
    for (std::size_t t0 = 0; t0 < k; t0 += k_slice)
        for (std::size_t j0 = 0; j0 < n; j0 += panel_cols)
            tile(std::min(k_slice, k - t0), A + t0 * a_step, lda, B.p + (j0 / panel_cols) * B.panel_stride + t0 * B.ld,
                 B.ld, C + j0, ldc, m, std::min(panel_cols, n - j0), alpha, accumulate || t0 > 0);
}


// The finished products for the builds without their own: the product stored, then each row
// finished in a second sweep (2^x by the softmax's row kernels in use).
template <tile_fn Tile>
void exp2_generic(const finished_args& f) {
    sweep(Tile, f.m, f.n, f.k, f.alpha, f.A, f.lda, 1, f.B, false, f.C, f.ldc);
    const row_kernels& rk = active_row_kernels();
    for (std::size_t i = 0; i < f.m; ++i) {
        float s_max;
        const float sum = rk.exp2_sum(f.C + i * f.ldc, f.n, f.o[i], s_max);
        if (f.sum) f.sum[i] = sum;
    }
}

template <tile_fn Tile>
void times_generic(const finished_args& f) {
    sweep(Tile, f.m, f.n, f.k, 1.0f, f.A, f.lda, 1, f.B, false, f.C, f.ldc);
    for (std::size_t i = 0; i < f.m; ++i)
        for (std::size_t j = 0; j < f.n; ++j) f.C[i * f.ldc + j] = f.P[i * f.ldp + j] * (f.C[i * f.ldc + j] - f.o[i]);
}

// The transpose for the builds without their own: 16 columns at a time, so each row of M is
// read a cache line at a time.
void transpose_generic(std::size_t rows, std::size_t cols, const float* M, std::size_t ld, float* out,
                       std::size_t out_ld) {
    for (std::size_t c0 = 0; c0 < cols; c0 += 16)
        for (std::size_t i = 0; i < rows; ++i)
            for (std::size_t c = c0; c < std::min(cols, c0 + 16); ++c) out[c * out_ld + i] = M[i * ld + c];
}

using transpose_fn = void (*)(std::size_t rows, std::size_t cols, const float* M, std::size_t ld, float* out,
                              std::size_t out_ld);

build_choice& choice() {
    static build_choice c;
    return c;
}

}  // namespace

// One build's tile kernels.
struct tile_kernels {
    tile_fn tile, tile_ta;  // A as stored, A transposed
    finished_fn exp2, times;
    transpose_fn transpose;
};

// each build's, for the table of builds (kernel_builds.cpp; declared extern in
// kernel_build_parts.hpp)
#if defined(__x86_64__)
const tile_kernels avx512_tiles{tile_avx512<false>, tile_avx512<true>, exp2_avx512, times_avx512, transpose_avx512};
const tile_kernels avx2_tiles{tile_avx2<false>, tile_avx2<true>, exp2_avx2, times_avx2, transpose_generic};
#endif
#if defined(__aarch64__)
const tile_kernels neon_tiles{tile_neon<false>, tile_neon<true>, exp2_neon, times_neon, transpose_generic};
#endif
const tile_kernels plain_tiles{tile_plain<false>, tile_plain<true>, exp2_generic<tile_plain<false>>,
                               times_generic<tile_plain<false>>, transpose_generic};

namespace {
const tile_kernels& active() { return *choice().active().tiles; }
}  // namespace

std::size_t packed_floats(std::size_t k, std::size_t n) { return k * ((n + panel_cols - 1) / panel_cols) * panel_cols; }

operand_b pack_panels(std::size_t k, std::size_t n, const float* B, std::size_t ldb, float* out) {
    for (std::size_t j0 = 0; j0 < n; j0 += panel_cols) {
        const std::size_t w = std::min(panel_cols, n - j0);
        float* panel = out + j0 * k;  // j0 / 64 panels of k · 64 floats before this one
        // a whole panel: copies of a known size, which the compiler inlines (a call to memcpy per
        // 256-byte row had been most of the packing's time)
        if (w == panel_cols)
            for (std::size_t r = 0; r < k; ++r)
                std::memcpy(panel + r * panel_cols, B + r * ldb + j0, sizeof(float) * panel_cols);
        else
            for (std::size_t r = 0; r < k; ++r) {
                std::memcpy(panel + r * panel_cols, B + r * ldb + j0, w * sizeof(float));
                std::fill(panel + r * panel_cols + w, panel + (r + 1) * panel_cols, 0.0f);
            }
    }
    return {out, panel_cols, k * panel_cols};
}

void tile_gemm_ta(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* A, std::size_t lda,
                  const operand_b& B, bool accumulate, float* C, std::size_t ldc) {
    sweep(active().tile_ta, m, n, k, alpha, A, lda, lda, B, accumulate, C, ldc);
}

void tile_gemm(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* A, std::size_t lda,
               const operand_b& B, bool accumulate, float* C, std::size_t ldc, causal_band band) {
    const tile_fn tile = active().tile;
    // a band that leaves even row 0 everything (a key block wholly before the queries) is no band
    if (band.kind != causal_band::none && band.shift + 1 >= std::ptrdiff_t(band.kind == causal_band::columns ? n : k))
        band.kind = causal_band::none;
    if (band.kind == causal_band::none || k == 0)
        return sweep(tile, m, n, k, alpha, A, lda, 1, B, accumulate, C, ldc);
    for (std::size_t t0 = 0; t0 < k; t0 += k_slice) {
        const std::size_t depth = std::min(k_slice, k - t0);
        for (std::size_t j0 = 0; j0 < n; j0 += panel_cols) {
            const float* B_slice = B.p + (j0 / panel_cols) * B.panel_stride + t0 * B.ld;
            for (std::size_t i0 = 0; i0 < m; i0 += tile_rows) {
                const std::size_t rows = std::min(tile_rows, m - i0);
                std::size_t cols = std::min(panel_cols, n - j0), terms = depth;
                if (band.kind == causal_band::columns) {
                    const std::size_t end = band_end(band, i0, rows, n);
                    if (end <= j0) continue;  // the whole panel is masked for these rows
                    cols = std::min(cols, end - j0);
                } else if (band.kind == causal_band::depth) {
                    const std::size_t end = band_end(band, i0, rows, k);
                    if (end <= t0) {  // nothing left to add; the first slice still owes C its zeros
                        if (t0 == 0 && !accumulate)
                            for (std::size_t r = 0; r < rows; ++r) std::fill_n(C + (i0 + r) * ldc + j0, cols, 0.0f);
                        continue;
                    }
                    terms = std::min(depth, end - t0);
                }
                tile(terms, A + i0 * lda + t0, lda, B_slice, B.ld, C + i0 * ldc + j0, ldc, rows, cols, alpha,
                     accumulate || t0 > 0);
            }
        }
    }
}

void tile_gemm_exp2(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* A, std::size_t lda,
                    const operand_b& B, const float* o, float* C, std::size_t ldc, float* sum) {
    active().exp2({m, n, k, alpha, A, lda, B, o, nullptr, 0, C, ldc, sum});
}

void tile_gemm_times(std::size_t m, std::size_t n, std::size_t k, const float* A, std::size_t lda,
                     const operand_b& B, const float* o, const float* P, std::size_t ldp, float* C, std::size_t ldc) {
    active().times({m, n, k, 1.0f, A, lda, B, o, P, ldp, C, ldc, nullptr});
}

void transpose(std::size_t rows, std::size_t cols, const float* M, std::size_t ld, float* out, std::size_t out_ld) {
    active().transpose(rows, cols, M, ld, out, out_ld);
}

bool use_tile_kernels(std::string_view build) { return choice().use(build); }

std::string_view tile_kernels_in_use() { return choice().active().name; }

}  // namespace qkv::attention::detail
