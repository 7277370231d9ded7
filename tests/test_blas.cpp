// blas::gemm against products worked by hand and against the plain-loop kernels::matmul_ref.
#define BOOST_TEST_MODULE blas
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <stdexcept>
#include <string>

#include "qkv/blas.hpp"
#include "qkv/kernels.hpp"
#include "qkv/parallel_for.hpp"
#include "support/close.hpp"

using qkv::matrix;
using qkv::blas::trans;
namespace blas = qkv::blas;
namespace kernels = qkv::kernels;

using qkv::test::check_close;
using qkv::test::rel_diff;

namespace {


}  // namespace

BOOST_AUTO_TEST_CASE(two_by_two_by_hand) {
    const matrix A = matrix::of({{1, 2}, {3, 4}});
    const matrix B = matrix::of({{5, 6}, {7, 8}});
    matrix C;
    blas::gemm(C, A, trans::no, B, trans::no);
    // [1*5+2*7, 1*6+2*8; 3*5+4*7, 3*6+4*8] = [19, 22; 43, 50]
    BOOST_TEST((C == matrix::of({{19, 22}, {43, 50}})));

    blas::gemm(C, A, trans::yes, B, trans::no);
    // A^T = [1, 3; 2, 4]: [1*5+3*7, 1*6+3*8; 2*5+4*7, 2*6+4*8] = [26, 30; 38, 44]
    BOOST_TEST((C == matrix::of({{26, 30}, {38, 44}})));

    blas::gemm(C, A, trans::no, B, trans::yes);
    // B^T = [5, 7; 6, 8]: [1*5+2*6, 1*7+2*8; 3*5+4*6, 3*7+4*8] = [17, 23; 39, 53]
    BOOST_TEST((C == matrix::of({{17, 23}, {39, 53}})));
}

BOOST_AUTO_TEST_CASE(alpha_and_beta_by_hand) {
    const matrix A = matrix::of({{1, 2}, {3, 4}});
    const matrix I = matrix::of({{1, 0}, {0, 1}});
    matrix C = matrix::of({{10, 10}, {10, 10}});
    blas::gemm(C, A, trans::no, I, trans::no, 2.0f, 0.5f);
    // 2 * A + 0.5 * 10 = [2+5, 4+5; 6+5, 8+5] = [7, 9; 11, 13]
    BOOST_TEST((C == matrix::of({{7, 9}, {11, 13}})));
}

BOOST_AUTO_TEST_CASE(non_square_by_hand) {
    const matrix A = matrix::of({{1, 0, 2}});        // [1, 3]
    const matrix B = matrix::of({{1}, {5}, {3}});    // [3, 1]
    matrix C;
    blas::gemm(C, A, trans::no, B, trans::no);
    // 1*1 + 0*5 + 2*3 = 7
    BOOST_TEST((C == matrix::of({{7}})));
    blas::gemm(C, B, trans::no, A, trans::no);
    // outer product [1; 5; 3] [1, 0, 2] = [1, 0, 2; 5, 0, 10; 3, 0, 6]
    BOOST_TEST((C == matrix::of({{1, 0, 2}, {5, 0, 10}, {3, 0, 6}})));
}

BOOST_AUTO_TEST_CASE(random_shapes_match_reference) {
    const std::size_t shapes[][3] = {{1, 1, 1}, {3, 5, 2}, {7, 4, 9}, {16, 16, 16}, {33, 17, 65}};
    std::uint64_t seed = 1;
    for (const auto& s : shapes) {
        const std::size_t m = s[0], k = s[1], n = s[2];
        const matrix A = kernels::randn(m, k, seed++);  // A: [m, k]
        const matrix B = kernels::randn(k, n, seed++);  // B: [k, n]
        const matrix ref = kernels::matmul_ref(A, B);   // ref: [m, n]
        matrix C;
        blas::gemm(C, A, trans::no, B, trans::no);
        BOOST_TEST(rel_diff(C, ref) < 1e-5f, "A @ B at " << m << "x" << k << "x" << n);

        // The same product with the factors stored transposed.
        blas::gemm(C, kernels::transpose(A), trans::yes, B, trans::no);
        BOOST_TEST(rel_diff(C, ref) < 1e-5f, "(A^T)^T @ B");
        blas::gemm(C, A, trans::no, kernels::transpose(B), trans::yes);
        BOOST_TEST(rel_diff(C, ref) < 1e-5f, "A @ (B^T)^T");
        blas::gemm(C, kernels::transpose(A), trans::yes, kernels::transpose(B), trans::yes);
        BOOST_TEST(rel_diff(C, ref) < 1e-5f, "(A^T)^T @ (B^T)^T");
        BOOST_TEST(C.rows == m);
        BOOST_TEST(C.cols == n);
    }
}

BOOST_AUTO_TEST_CASE(inner_dimension_mismatch_throws) {
    matrix C;
    BOOST_CHECK_THROW(blas::gemm(C, matrix(2, 3), trans::no, matrix(2, 3), trans::no),
                      std::invalid_argument);
    // With beta != 0, C must already have the product's shape.
    matrix wrong(3, 3);
    BOOST_CHECK_THROW(blas::gemm(wrong, matrix(2, 3), trans::no, matrix(3, 2), trans::no, 1.0f, 1.0f),
                      std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(empty_inner_dimension_gives_zeros) {
    matrix C = matrix::of({{9}});
    blas::gemm(C, matrix(2, 0), trans::no, matrix(0, 3), trans::no);
    // A sum over nothing is 0: a [2, 3] of zeros.
    BOOST_TEST((C == matrix(2, 3, 0.0f)));
}

BOOST_AUTO_TEST_CASE(gemm_raw_on_a_block) {
    // M: [3, 4]; multiply its top-left [2, 2] block by itself into the bottom-right of Out [3, 4].
    const matrix M = matrix::of({{1, 2, 90, 90}, {3, 4, 90, 90}, {90, 90, 90, 90}});
    matrix Out(3, 4, -1.0f);
    blas::gemm_raw(2, 2, 2, 1.0f, M.row(0), 4, M.row(0), 4, trans::no, 0.0f, &Out(1, 2), 4);
    // [1, 2; 3, 4]^2 = [1+6, 2+8; 3+12, 6+16] = [7, 10; 15, 22]; the rest of Out untouched.
    BOOST_TEST((Out == matrix::of({{-1, -1, -1, -1}, {-1, -1, 7, 10}, {-1, -1, 15, 22}})));

    blas::gemm_raw(2, 2, 2, 1.0f, M.row(0), 4, M.row(0), 4, trans::yes, 0.0f, &Out(1, 2), 4);
    // [1, 2; 3, 4] @ [1, 3; 2, 4] = [1+4, 3+8; 3+8, 9+16] = [5, 11; 11, 25]
    BOOST_TEST((Out == matrix::of({{-1, -1, -1, -1}, {-1, -1, 5, 11}, {-1, -1, 11, 25}})));

    blas::gemm_raw(2, 2, 2, 1.0f, M.row(0), 4, trans::yes, M.row(0), 4, trans::no, 0.0f, &Out(1, 2), 4);
    // [1, 3; 2, 4] @ [1, 2; 3, 4] = [1+9, 2+12; 2+12, 4+16] = [10, 14; 14, 20]
    BOOST_TEST((Out == matrix::of({{-1, -1, -1, -1}, {-1, -1, 10, 14}, {-1, -1, 14, 20}})));

    blas::gemm_raw(2, 2, 2, 1.0f, M.row(0), 4, trans::yes, M.row(0), 4, trans::yes, 0.0f, &Out(1, 2), 4);
    // [1, 3; 2, 4] @ [1, 3; 2, 4] = [1+6, 3+12; 2+8, 6+16] = [7, 15; 10, 22]
    BOOST_TEST((Out == matrix::of({{-1, -1, -1, -1}, {-1, -1, 7, 15}, {-1, -1, 10, 22}})));
}

BOOST_AUTO_TEST_CASE(thread_count_round_trips) {
    blas::set_threads(1);
    BOOST_TEST(blas::threads() == 1);
    blas::set_threads(2);
    BOOST_TEST(blas::threads() <= 2);  // OpenBLAS may be built with fewer
    blas::set_threads(1);
    BOOST_TEST(blas::threads() == 1);
}

BOOST_AUTO_TEST_CASE(products_after_the_pool_is_stopped_and_started_again) {
    // set_threads(1) stops OpenBLAS's workers; more threads start them again. A product large
    // enough for OpenBLAS to share out (256^3) must match the plain reference after each step,
    // twice round, with the count as asked.
    const matrix A = kernels::randn(256, 256, 7), B = kernels::randn(256, 256, 8);  // [256, 256] each
    const matrix ref = kernels::matmul_ref(A, B);
    for (int round = 0; round < 2; ++round)
        for (int n : {1, 2, 1}) {
            blas::set_threads(n);
            BOOST_TEST(blas::threads() <= n);
            matrix C;
            blas::gemm(C, A, trans::no, B, trans::no);
            // 256-term sums of unit-sized products: float rounding, far inside 1e-5 relative
            BOOST_TEST(rel_diff(C, ref) < 1e-5f, "round " << round << ", " << n << " thread(s)");
        }
}

// The attention kernels set OpenBLAS's thread count for their run and must put it back even when
// a task of theirs throws (parallel_for rethrows it after every worker has joined).
BOOST_AUTO_TEST_CASE(scoped_threads_restores_the_count_after_an_exception) {
    blas::set_threads(2);
    const int before = blas::threads();  // 2, or 1 if OpenBLAS was built single-threaded
    bool reached = false;
    try {
        const blas::scoped_threads one(1);
        BOOST_TEST(blas::threads() == 1);
        qkv::parallel_for(8, 2, [](std::size_t task, int) {
            if (task == 3) throw std::runtime_error("task 3 failed");
        });
    } catch (const std::runtime_error& e) {
        reached = std::string(e.what()) == "task 3 failed";
    }
    BOOST_TEST(reached);
    BOOST_TEST(blas::threads() == before);
    {
        const blas::scoped_threads same(before);  // already so: nothing to set or put back
        BOOST_TEST(blas::threads() == before);
    }
    BOOST_TEST(blas::threads() == before);
    blas::set_threads(1);
}
