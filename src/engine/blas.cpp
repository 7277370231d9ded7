// The one door to OpenBLAS: every cblas call and every leading dimension in qkv lives here.
// cblas is column-major at heart; CblasRowMajor lets us pass our row-major blocks as they are.
#include "qkv/blas.hpp"

#include "qkv/work_budget.hpp"

#include <climits>
#include <mutex>
#include <stdexcept>

#include <cblas.h>

// Older cblas.h files do not declare OpenBLAS's own thread controls; the library has them. Its
// pthread build also has the pool's start and stop (weak: an OpenMP or serial build has neither).
extern "C" {
void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);
int blas_thread_init(void) __attribute__((weak));
int blas_thread_shutdown_(void) __attribute__((weak));
}

namespace qkv::blas {

namespace {

// cblas takes int sizes; a matrix too large for one is a caller's bug, not something to wrap.
blasint to_blasint(std::size_t x) {
    if (x > static_cast<std::size_t>(INT_MAX)) throw std::invalid_argument("gemm: size exceeds int");
    return static_cast<blasint>(x);
}

CBLAS_TRANSPOSE to_cblas(trans t) { return t == trans::yes ? CblasTrans : CblasNoTrans; }

// C (m, n) *= beta, for the empty products BLAS would reject (k == 0 makes a leading dim of 0).
void scale_rows(std::size_t m, std::size_t n, float beta, float* C, std::size_t ldc) {
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) C[i * ldc + j] = beta == 0.0f ? 0.0f : beta * C[i * ldc + j];
}

}  // namespace

void gemm(matrix& C, const matrix& A, trans ta, const matrix& B, trans tb, float alpha, float beta) {
    // op(A): (m, k), op(B): (k, n), whether or not they are stored transposed.
    const std::size_t m = ta == trans::no ? A.rows : A.cols;
    const std::size_t k = ta == trans::no ? A.cols : A.rows;
    const std::size_t kb = tb == trans::no ? B.rows : B.cols;
    const std::size_t n = tb == trans::no ? B.cols : B.rows;
    if (k != kb)
        throw std::invalid_argument(fmt::format("gemm: op(A) {} has {} columns but op(B) has {} rows",
                                                shape_str(A), k, kb));
    if (beta == 0.0f) {
        C = matrix(m, n);  // C: [m, n], its old contents never read
    } else if (C.rows != m || C.cols != n) {
        throw std::invalid_argument(fmt::format("gemm: C is {}, the product is [{}, {}]",
                                                shape_str(C), m, n));
    }
    if (m == 0 || n == 0) return;
    if (k == 0) return scale_rows(m, n, beta, C.data.data(), n);
    charge_work(2.0 * double(m) * double(n) * double(k));  // m·n·k multiply-adds, before they run

    // Row-major C (m, n) = alpha * op(A) (m, k) @ op(B) (k, n) + beta * C:
    // M = m, N = n, K = k; each leading dimension is its stored matrix's column count
    // (lda = A.cols, ldb = B.cols, ldc = n), whichever way the matrix is read.
    cblas_sgemm(CblasRowMajor, to_cblas(ta), to_cblas(tb), to_blasint(m), to_blasint(n),
                to_blasint(k), alpha, A.data.data(), to_blasint(A.cols), B.data.data(),
                to_blasint(B.cols), beta, C.data.data(), to_blasint(n));
}

void gemm_raw(std::size_t m, std::size_t n, std::size_t k, float alpha,
              const float* A, std::size_t lda, trans ta, const float* B, std::size_t ldb, trans tb,
              float beta, float* C, std::size_t ldc) {
    if (m == 0 || n == 0) return;
    if (k == 0) return scale_rows(m, n, beta, C, ldc);
    charge_work(2.0 * double(m) * double(n) * double(k));

    // Row-major block C (m, n; stride ldc) = alpha * op(A) @ op(B) + beta * C, A stored (m, k)
    // or (k, m), B (k, n) or (n, k), each with its stride: M = m, N = n, K = k, leading dims as
    // given (a block of a larger matrix has a row stride wider than its own width).
    cblas_sgemm(CblasRowMajor, to_cblas(ta), to_cblas(tb), to_blasint(m), to_blasint(n),
                to_blasint(k), alpha, A, to_blasint(lda), B, to_blasint(ldb), beta, C,
                to_blasint(ldc));
}

// OpenBLAS starts its worker threads when it is loaded, and each spins (sched_yield in a loop)
// for about 2^28 cycles, 0.1 s, after it starts or last worked: of `qkv lesson 8`'s 97 ms, 83 were
// the kernel's, that spinning. One thread: the pool is stopped, no worker left to spin. More: it is
// started again first (OpenBLAS would start only the threads above its old count, beside none).
void set_threads(int n) {
    // one caller at a time: a server's threads may each scope their own count
    static std::mutex one_at_a_time;
    const std::lock_guard<std::mutex> hold(one_at_a_time);
    static bool stopped = false;
    if (n > 1 && stopped && blas_thread_init) blas_thread_init(), stopped = false;
    openblas_set_num_threads(n < 1 ? 1 : n);
    if (n <= 1 && !stopped && blas_thread_shutdown_) blas_thread_shutdown_(), stopped = true;
}

int threads() { return openblas_get_num_threads(); }

std::string corename() {
    const char* name = openblas_get_corename();
    return name ? name : "";
}

}  // namespace qkv::blas
