// The fused attention's own block products, C (+)= alpha · A · B on tiles that stay in cache (or
// finished in registers as the softmax's exps), so its speed does not hang on which kernel
// OpenBLAS loaded: a build for each of the table's (kernel_builds.hpp), the widest this processor
// runs chosen at run time (as for the row kernels); tests may pin another.
// The lessons and forward_blas keep OpenBLAS (blas.hpp); this is for attention at scale only.
#pragma once

#include <cstddef>
#include <string_view>

namespace qkv::attention::detail {

// Columns of B one micro-kernel call covers: four AVX-512 vectors, eight AVX2 ones.
constexpr std::size_t panel_cols = 64;

// B (k, n) as the products read it: row r of the panel of columns 64j … 64j+63 starts at
// p + j·panel_stride + r·ld. A row-major matrix is {B, ldb, 64}; B packed panel by panel
// (pack_panels) is {Bp, 64, k·64}, each panel then one contiguous block.
struct operand_b {
    const float* p;
    std::size_t ld;
    std::size_t panel_stride;
};

// A row-major B (row stride ld) as the products read it.
inline operand_b rows_of(const float* B, std::size_t ld) { return {B, ld, panel_cols}; }

// Floats pack_panels writes for B (k, n): whole panels, the last one padded with zeros.
std::size_t packed_floats(std::size_t k, std::size_t n);
// Packs B (k, n; row stride ldb) into panels at out and returns them as an operand.
operand_b pack_panels(std::size_t k, std::size_t n, const float* B, std::size_t ldb, float* out);

// The causal mask's band: with it, row i of C needs only columns j < i + 1 + shift (scores
// S = Q·Kᵀ: later keys are masked), or only the terms t < i + 1 + shift of its sum (Z = P·V:
// P is 0 there). Whole tiles and panels outside the band are skipped, not computed and thrown away.
struct causal_band {
    enum { none, columns, depth } kind = none;
    std::ptrdiff_t shift = 0;
};

// C (m, n; row stride ldc) = alpha · A (m, k; row stride lda) · B + (accumulate ? C : 0).
// With a `columns` band, entries of C outside it are left as they were (callers ignore them).
void tile_gemm(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* A, std::size_t lda,
               const operand_b& B, bool accumulate, float* C, std::size_t ldc, causal_band band = {});

// C (m, n) = alpha · Aᵀ · B + (accumulate ? C : 0), A stored (k, m; row stride lda): the product
// a backward pass takes with a block of weights or score gradients transposed, read in place.
void tile_gemm_ta(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* A, std::size_t lda,
                  const operand_b& B, bool accumulate, float* C, std::size_t ldc);

// Products finished in registers before they are stored, so that no second sweep reads the
// block again. o holds one number per row of C (m floats), and every term of k is summed before
// an entry is finished.
// C (m, n) = 2^x with x_ij = alpha · (A·B)_ij − o_i: the softmax's numerators straight from the
// product that makes the scores; when sum is given (m floats), sum[i] = Σ_j C_ij.
void tile_gemm_exp2(std::size_t m, std::size_t n, std::size_t k, float alpha, const float* A, std::size_t lda,
                    const operand_b& B, const float* o, float* C, std::size_t ldc, float* sum = nullptr);
// C (m, n) = P ⊙ x with x_ij = (A·B)_ij − o_i (P row stride ldp): the softmax's backward
// dS = P ⊙ (dP − D) from the product that makes dP.
void tile_gemm_times(std::size_t m, std::size_t n, std::size_t k, const float* A, std::size_t lda,
                     const operand_b& B, const float* o, const float* P, std::size_t ldp, float* C, std::size_t ldc);

// out (cols, rows; row stride out_ld) = M (rows, cols; row stride ld) transposed: the Kᵀ and Vᵀ
// blocks the products read, and slices of Xᵀ and Oᵀ. 16 × 16 at a time in registers where the build can.
void transpose(std::size_t rows, std::size_t cols, const float* M, std::size_t ld, float* out, std::size_t out_ld);

// Pins the build `build` (kernel_builds.hpp); false when there is none of that name or this
// processor cannot run it.
bool use_tile_kernels(std::string_view build);
std::string_view tile_kernels_in_use();

}  // namespace qkv::attention::detail
