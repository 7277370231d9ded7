// The plain kernels against values worked by hand: softmax (stable and naive), cosine, the
// causal mask, row sums, the softmax Jacobian's norm, and the seeded normal generator.
#define BOOST_TEST_MODULE kernels
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <limits>

#include "qkv/kernels.hpp"

using qkv::matrix;
namespace kernels = qkv::kernels;
namespace tt = boost::test_tools;

namespace {
const float inf = std::numeric_limits<float>::infinity();
}

BOOST_AUTO_TEST_CASE(matmul_ref_by_hand) {
    const matrix A = matrix::of({{1, 2, 3}});          // [1, 3]
    const matrix B = matrix::of({{1, 0}, {0, 1}, {1, 1}});  // [3, 2]
    // [1*1 + 2*0 + 3*1, 1*0 + 2*1 + 3*1] = [4, 5]
    BOOST_TEST((kernels::matmul_ref(A, B) == matrix::of({{4, 5}})));
}

BOOST_AUTO_TEST_CASE(transpose_by_hand) {
    BOOST_TEST((kernels::transpose(matrix::of({{1, 2, 3}, {4, 5, 6}})) ==
                matrix::of({{1, 4}, {2, 5}, {3, 6}})));
}

BOOST_AUTO_TEST_CASE(softmax_of_logs) {
    // exp(0) = 1, exp(ln 2) = 2, exp(ln 3) = 3; sum 6 -> [1/6, 2/6, 3/6].
    // Adding 10 to every score changes nothing (softmax is shift-invariant).
    const float l2 = std::log(2.0f), l3 = std::log(3.0f);
    const matrix A = kernels::softmax_rows(matrix::of({{0, l2, l3}, {10, 10 + l2, 10 + l3}}));
    for (std::size_t i = 0; i < 2; ++i) {
        BOOST_TEST(A(i, 0) == 1.0f / 6, tt::tolerance(1e-5f));
        BOOST_TEST(A(i, 1) == 2.0f / 6, tt::tolerance(1e-5f));
        BOOST_TEST(A(i, 2) == 3.0f / 6, tt::tolerance(1e-5f));
    }
}

BOOST_AUTO_TEST_CASE(softmax_masked_entries_are_exactly_zero) {
    // [0, -inf, 0]: exp values 1, 0, 1 -> [1/2, 0, 1/2], the zero exact.
    const matrix A = kernels::softmax_rows(matrix::of({{0, -inf, 0}}));
    BOOST_TEST(A(0, 0) == 0.5f, tt::tolerance(1e-6f));
    BOOST_TEST(A(0, 1) == 0.0f);
    BOOST_TEST(A(0, 2) == 0.5f, tt::tolerance(1e-6f));
}

BOOST_AUTO_TEST_CASE(softmax_all_masked_row_is_nan) {
    // Nothing to attend to: no distribution exists, so the row is NaN; other rows are unaffected.
    const matrix A = kernels::softmax_rows(matrix::of({{-inf, -inf}, {0, 0}}));
    BOOST_TEST(std::isnan(A(0, 0)));
    BOOST_TEST(std::isnan(A(0, 1)));
    BOOST_TEST(A(1, 0) == 0.5f);
}

BOOST_AUTO_TEST_CASE(naive_softmax_overflows_where_stable_does_not) {
    const matrix S = matrix::of({{1000, 1000}});
    // exp(1000) is far above float's max (~3.4e38 = exp(88.7)): inf / (inf + inf) = NaN.
    const matrix naive = kernels::softmax_rows_naive(S);
    BOOST_TEST(std::isnan(naive(0, 0)));
    BOOST_TEST(std::isnan(naive(0, 1)));
    // Subtracting the max first: exp(0) = 1 twice -> [1/2, 1/2].
    const matrix stable = kernels::softmax_rows(S);
    BOOST_TEST(stable(0, 0) == 0.5f);
    BOOST_TEST(stable(0, 1) == 0.5f);
}

BOOST_AUTO_TEST_CASE(naive_softmax_agrees_on_small_scores) {
    // [0, ln 3]: exp values 1, 3 -> [1/4, 3/4].
    const matrix A = kernels::softmax_rows_naive(matrix::of({{0, std::log(3.0f)}}));
    BOOST_TEST(A(0, 0) == 0.25f, tt::tolerance(1e-5f));
    BOOST_TEST(A(0, 1) == 0.75f, tt::tolerance(1e-5f));
}

BOOST_AUTO_TEST_CASE(softmax_cols_by_hand) {
    // Column 0 is [0, ln 3] -> [1/4, 3/4]; column 1 is [5, 5] -> [1/2, 1/2].
    const matrix A = kernels::softmax_cols(matrix::of({{0, 5}, {std::log(3.0f), 5}}));
    BOOST_TEST(A(0, 0) == 0.25f, tt::tolerance(1e-5f));
    BOOST_TEST(A(1, 0) == 0.75f, tt::tolerance(1e-5f));
    BOOST_TEST(A(0, 1) == 0.5f, tt::tolerance(1e-6f));
    BOOST_TEST(A(1, 1) == 0.5f, tt::tolerance(1e-6f));
}

BOOST_AUTO_TEST_CASE(cosine_by_hand) {
    const matrix A = matrix::of({{1, 0}, {3, 4}});
    const matrix B = matrix::of({{0, 2}, {1, 1}, {-6, -8}});
    const matrix C = kernels::cosine_rows(A, B);  // C: [2, 3]
    BOOST_TEST(C.rows == 2u);
    BOOST_TEST(C.cols == 3u);
    // (1,0)·(0,2) = 0 -> 0; (1,0)·(1,1) = 1, |.| = 1·√2 -> 1/√2; (1,0)·(-6,-8) = -6 / (1·10) = -0.6
    BOOST_TEST(C(0, 0) == 0.0f, tt::tolerance(1e-6f));
    BOOST_TEST(C(0, 1) == 1.0f / std::sqrt(2.0f), tt::tolerance(1e-6f));
    BOOST_TEST(C(0, 2) == -0.6f, tt::tolerance(1e-6f));
    // (3,4)·(0,2) = 8 / (5·2) = 0.8; (3,4)·(1,1) = 7 / (5√2); (3,4)·(-6,-8) = -50 / (5·10) = -1
    BOOST_TEST(C(1, 0) == 0.8f, tt::tolerance(1e-6f));
    BOOST_TEST(C(1, 1) == 7.0f / (5.0f * std::sqrt(2.0f)), tt::tolerance(1e-6f));
    BOOST_TEST(C(1, 2) == -1.0f, tt::tolerance(1e-6f));
}

BOOST_AUTO_TEST_CASE(cosine_of_zero_row_is_zero) {
    const matrix C = kernels::cosine_rows(matrix::of({{0, 0}}), matrix::of({{1, 2}}));
    BOOST_TEST(C(0, 0) == 0.0f);
}

BOOST_AUTO_TEST_CASE(causal_mask_layout) {
    // Row i = query i; it sees keys 0..i (0) and not the later ones (-inf).
    const matrix M = kernels::causal_mask(3);
    BOOST_TEST((M == matrix::of({{0, -inf, -inf}, {0, 0, -inf}, {0, 0, 0}})));
    // Masked softmax: row 0 all on key 0, row 1 split evenly, row 2 thirds.
    const matrix A = kernels::softmax_rows(M);
    BOOST_TEST(A(0, 0) == 1.0f);
    BOOST_TEST(A(1, 1) == 0.5f);
    BOOST_TEST(A(2, 2) == 1.0f / 3, tt::tolerance(1e-6f));
}

BOOST_AUTO_TEST_CASE(row_sums_by_hand) {
    // [1+2+3, -1+0.5+0.5] = [6, 0]
    BOOST_TEST((kernels::row_sums(matrix::of({{1, 2, 3}, {-1, 0.5f, 0.5f}})) ==
                matrix::of({{6}, {0}})));
}

BOOST_AUTO_TEST_CASE(jacobian_norm_by_hand) {
    const matrix g = kernels::softmax_jacobian_norm(matrix::of({{0.5f, 0.5f}, {1, 0}, {0.25f, 0.75f}}));
    // p = [.5, .5]: diag(p) - p p^T = [[.5-.25, -.25], [-.25, .5-.25]] = [[.25, -.25], [-.25, .25]];
    // Frobenius: sqrt(4 * .0625) = sqrt(.25) = 0.5.
    BOOST_TEST(g(0, 0) == 0.5f, tt::tolerance(1e-6f));
    // One-hot [1, 0]: [[1-1, 0], [0, 0-0]] = 0 — the gradient vanishes.
    BOOST_TEST(g(1, 0) == 0.0f);
    // p = [.25, .75]: [[.25-.0625, -.1875], [-.1875, .75-.5625]] = .1875 everywhere in magnitude;
    // sqrt(4 * .1875^2) = 2 * .1875 = 0.375.
    BOOST_TEST(g(2, 0) == 0.375f, tt::tolerance(1e-6f));
}

BOOST_AUTO_TEST_CASE(randn_is_deterministic) {
    const matrix a = kernels::randn(4, 5, 42);
    const matrix b = kernels::randn(4, 5, 42);
    const matrix c = kernels::randn(4, 5, 43);
    BOOST_TEST((a == b));
    BOOST_TEST(qkv::max_abs_diff(a, c) > 0.1f);
    // An odd count uses half of the last Box-Muller pair; the rest is the same stream.
    const matrix odd = kernels::randn(1, 5, 42);
    for (std::size_t i = 0; i < 5; ++i) BOOST_TEST(odd.data[i] == a.data[i]);
}

BOOST_AUTO_TEST_CASE(randn_is_standard_normal) {
    const matrix X = kernels::randn(1000, 100, 7);  // 100k draws
    double sum = 0.0, sq = 0.0;
    std::size_t within_one = 0;
    for (float x : X.data) {
        sum += x;
        sq += double(x) * x;
        if (std::fabs(x) < 1.0f) ++within_one;
    }
    const double n = double(X.size());
    const double mean = sum / n;
    const double var = sq / n - mean * mean;
    // Standard errors at n = 1e5: mean ~0.003, variance ~0.0045; allow about 5 of them.
    BOOST_TEST(std::fabs(mean) < 0.015);
    BOOST_TEST(std::fabs(var - 1.0) < 0.025);
    // P(|Z| < 1) = 0.6827 for a standard normal; its standard error here is ~0.0015.
    BOOST_TEST(std::fabs(within_one / n - 0.6827) < 0.01);
}

// A server keeps randn's and rand_uniform's draws (keep_draws): what it hands out is the draw itself, bit for bit,
// whether kept, found again, or let go when the budget is full.
BOOST_AUTO_TEST_CASE(kept_draws_are_the_draws) {
    const matrix fresh_a = kernels::randn(300, 200, 7), fresh_b = kernels::randn(300, 200, 8);  // kept nothing
    kernels::keep_draws(std::size_t{1} << 20);  // room for four of 240 KB
    for (int round = 0; round < 3; ++round) {
        const matrix a = kernels::randn(300, 200, 7), b = kernels::randn(300, 200, 8);
        BOOST_TEST(a.data == fresh_a.data);
        BOOST_TEST(b.data == fresh_b.data);
        for (std::uint64_t seed = 100; seed < 106; ++seed) kernels::randn(300, 200, seed);  // more than fit
    }
    BOOST_TEST(kernels::randn(2000, 200, 7).data == kernels::randn(2000, 200, 7).data);  // too large to keep
    // uniform draws are kept beside the normal ones, and one is never handed out for the other
    // with the same (r, c, seed): both are the draws made without keeping
    const matrix uniform = kernels::draw_uniform(300, 200, 7);
    for (int round = 0; round < 2; ++round) {
        BOOST_TEST(kernels::rand_uniform(300, 200, 7).data == uniform.data);
        BOOST_TEST(kernels::randn(300, 200, 7).data == fresh_a.data);
    }
    BOOST_TEST(uniform.data != fresh_a.data);
    kernels::keep_draws(0);
}
