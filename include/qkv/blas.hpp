// The one door to OpenBLAS. Every matrix product in qkv goes through here; no leading dimension
// and no cblas call exists anywhere else. kernels.hpp holds the plain-loop reference of each.
#pragma once

#include "qkv/matrix.hpp"

namespace qkv::blas {

enum class trans { no, yes };

// C (m, n) = alpha * op(A) (m, k) @ op(B) (k, n) + beta * C, op = identity or transpose.
// C is resized when beta == 0. Throws std::invalid_argument on inner-dimension mismatch
// (callers check shapes first and report them to the user; this is the last guard).
void gemm(matrix& C, const matrix& A, trans ta, const matrix& B, trans tb,
          float alpha = 1.0f, float beta = 0.0f);

// The same product on raw row-major blocks, for the benchmark's blocked kernels:
// C (m, n) with row stride ldc = alpha * op(A) (m, k) @ op(B) (k, n) + beta * C.
// A is (m, k; stride lda) when ta == no and (k, m; stride lda) when ta == yes; B is
// (k, n; stride ldb) when tb == no and (n, k; stride ldb) when tb == yes.
void gemm_raw(std::size_t m, std::size_t n, std::size_t k, float alpha,
              const float* A, std::size_t lda, trans ta, const float* B, std::size_t ldb, trans tb,
              float beta, float* C, std::size_t ldc);
// The same with A as stored (ta == no).
inline void gemm_raw(std::size_t m, std::size_t n, std::size_t k, float alpha,
                     const float* A, std::size_t lda, const float* B, std::size_t ldb, trans tb,
                     float beta, float* C, std::size_t ldc) {
    gemm_raw(m, n, k, alpha, A, lda, trans::no, B, ldb, tb, beta, C, ldc);
}

// Threads OpenBLAS may use (1 for the reproducible lessons; the bench sets its own).
void set_threads(int n);
int threads();

}  // namespace qkv::blas
