// The one door to OpenBLAS: every matrix product in qkv goes through here, and no cblas call
// exists anywhere else. Leading dimensions appear only here and in the attention kernels at
// scale (attention.cpp, through gemm_raw), which work on tiles of larger buffers, and for the
// SVD inside lapack.cpp; lesson-level code never sees one. kernels.hpp holds the plain-loop
// reference of each product.
#pragma once

#include <string>

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
// The kernel OpenBLAS chose for this CPU (openblas_get_corename): "Haswell", "SkylakeX", …
// OPENBLAS_CORETYPE, or an OpenBLAS older than the CPU, can hold it to a narrower one.
std::string corename();

// OpenBLAS's thread count set to n for a scope, and put back when the scope ends, by an
// exception too. Left alone when it already is n: raising OpenBLAS's count again wakes its
// workers, which then spin for a while.
class scoped_threads {
public:
    explicit scoped_threads(int n) : saved_(threads()), changed_(n != saved_) {
        if (changed_) set_threads(n);
    }
    ~scoped_threads() {
        if (changed_) set_threads(saved_);
    }
    scoped_threads(const scoped_threads&) = delete;
    scoped_threads& operator=(const scoped_threads&) = delete;

private:
    int saved_;
    bool changed_;
};

}  // namespace qkv::blas
