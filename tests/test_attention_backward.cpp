// The backward pass of multi-head attention at scale (attention_backward.hpp): the plain reference
// held to lesson 16's own chain (its formulas and built-ins, evaluated as the lesson runs them)
// and to its finite differences; the fused backward held to the reference on every kernel build
// this processor runs, full and causal, on 1 and 2 threads, with blocks small enough that a few
// tokens span many of them.
#define BOOST_TEST_MODULE attention_backward
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "qkv/attention.hpp"
#include "qkv/attention_backward.hpp"
#include "qkv/attention_fused.hpp"
#include "qkv/kernel_builds.hpp"
#include "qkv/kernels.hpp"
#include "support/attention_weights.hpp"
#include "support/cpu_flags.hpp"
#include "support/evaluate.hpp"

using namespace qkv;
using attention::gradients;
using qkv::test::random_weights;

namespace {

// Largest difference of two gradients over the larger of 1 and the largest entry of `want`.
double scaled_gap(const matrix& got, const matrix& want) {
    double top = 1, gap = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
        top = std::max(top, double(std::fabs(want.data[i])));
        gap = std::max(gap, double(std::fabs(got.data[i] - want.data[i])));
    }
    return gap / top;
}

double worst_gap(const gradients& a, const gradients& b) {
    return std::max({scaled_gap(a.dX, b.dX), scaled_gap(a.dW_Q, b.dW_Q), scaled_gap(a.dW_K, b.dW_K),
                     scaled_gap(a.dW_V, b.dW_V), scaled_gap(a.dW_O, b.dW_O)});
}

// Float32 keeps 24 bits (6e-8 of each number). A gradient here is a chain of six products of up to
// a few hundred terms and a softmax; rounding moves it by a few 1e-6 of its largest entry, and the
// fused softmax's 2^x (row_kernels.hpp, 2e-7 relative) adds less. 2e-4 is far above both and far
// below a mistake in the chain rule (a missing term or factor moves entries by 10 % or more).
constexpr double float_chain = 2e-4;

// The builds of qkv's own kernels this processor runs (the others are skipped, and said so in
// the test log, as is a run off x86-64 where the x86 builds are not compiled).
std::vector<std::string> runnable_builds() {
    std::vector<std::string> out, skipped;
    for (const attention::kernel_build& b : attention::kernel_builds())
        (attention::use_kernels(b.name) ? out : skipped).emplace_back(b.name);
    test::report_builds(boost::unit_test::framework::current_test_case().p_name, out, skipped);
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_reference_is_lesson_16s_chain) {
    // One head, W_O = I: Z is the lesson's A·V and dZ = Z − T its dZ; the lesson's formulas give
    // dW_Q, dW_K, dW_V, and dX from its dQ, dK, dV by the same chain rule.
    for (bool causal : {false, true}) {
        const std::size_t n = 6, d = 5;
        workspace ws;
        ws["X"] = value::of(kernels::randn(n, d, 31));
        const attention::weights W0 = random_weights(d, 41);
        ws["W_Q"] = value::of(W0.W_Q), ws["W_K"] = value::of(W0.W_K), ws["W_V"] = value::of(W0.W_V);
        ws["T"] = value::of(kernels::randn(n, d, 32));
        ws["M"] = value::of(causal ? kernels::causal_mask(n) : matrix(n, n));
        ws["c"] = value::scalar(causal ? 1.0f : 0.0f);
        eval_context ctx{test::formula_place, "test", "chain"};
        run_formula(parse_formula(R"(Q = X @ W_Q
K = X @ W_K
V = X @ W_V
A = softmax(Q @ K^T / sqrt(cols(K)) + M)
Z = A @ V
dZ = Z - T
dV = A^T @ dZ
dS = softmax_backward(A, dZ @ V^T)
dQ = dS @ K / sqrt(cols(K))
dK = dS^T @ Q / sqrt(cols(K))
dW_Q = X^T @ dQ
dW_K = X^T @ dK
dW_V = X^T @ dV
dX = dQ @ W_Q^T + dK @ W_K^T + dV @ W_V^T
fd_W_Q = fd_gradient(X, W_Q, W_K, W_V, T, 1, 0.001, c))",
                                  test::formula_place),
                    ws, ctx);
        attention::weights W = W0;
        W.W_O = matrix(d, d);
        for (std::size_t i = 0; i < d; ++i) W.W_O(i, i) = 1.0f;
        const attention::options o{.heads = 1, .causal = causal};
        const gradients g = attention::backward_reference(ws["X"].mat(), W, ws["dZ"].mat(), o);
        const char* mode = causal ? "causal" : "full";
        BOOST_TEST(scaled_gap(g.dW_Q, ws["dW_Q"].mat()) <= float_chain, mode);
        BOOST_TEST(scaled_gap(g.dW_K, ws["dW_K"].mat()) <= float_chain, mode);
        BOOST_TEST(scaled_gap(g.dW_V, ws["dW_V"].mat()) <= float_chain, mode);
        BOOST_TEST(scaled_gap(g.dX, ws["dX"].mat()) <= float_chain, mode);
        // dW_O = Zᵀ·dZ with W_O = I: the lesson's Z
        BOOST_TEST(scaled_gap(g.dW_O, kernels::matmul_ref(kernels::transpose(ws["Z"].mat()), ws["dZ"].mat())) <= float_chain);
        // finite differences in double (step 0.001): their own error is O(step²) ≈ 1e-6 of the scale
        BOOST_TEST(scaled_gap(g.dW_Q, ws["fd_W_Q"].mat()) <= float_chain, mode << " against fd_gradient");
    }
}

BOOST_AUTO_TEST_CASE(the_fused_backward_matches_the_reference) {
    struct size_case {
        std::size_t n, d, h, bq, bk;
    };
    // 1 token; blocks of 7 and 5 rows that leave part-filled tiles; d_k = 64, a whole panel; a
    // last key block of 1 row (129 = 2·64 + 1)
    const size_case cases[] = {{1, 8, 2, 0, 0}, {13, 16, 4, 7, 5}, {70, 64, 1, 16, 24}, {129, 128, 2, 0, 64}};
    const std::string was(attention::fused_kernels_in_use());
    for (const std::string& build : runnable_builds()) {
        BOOST_TEST_REQUIRE(attention::use_kernels(build));
        for (const size_case& c : cases)
            for (bool causal : {false, true})
                for (int threads : {1, 2}) {
                    const matrix X = kernels::randn(c.n, c.d, 7 + c.n), dZ = kernels::randn(c.n, c.d, 8 + c.n);
                    const attention::weights W = random_weights(c.d, 51 + c.d);
                    const attention::options o{.heads = c.h, .causal = causal, .threads = threads, .block_q = c.bq,
                                               .block_k = c.bk};
                    attention::saved_forward kept;
                    const matrix Z = attention::forward_fused_keep(X, W, o, kept);
                    BOOST_TEST(scaled_gap(Z, attention::forward_reference(X, W, o)) <= float_chain);
                    const double gap = worst_gap(attention::backward_fused(X, W, kept, dZ, o),
                                                 attention::backward_reference(X, W, dZ, o));
                    BOOST_TEST(gap <= float_chain, build << " n = " << c.n << " d = " << c.d << " h = " << c.h
                                                         << (causal ? " causal" : " full") << ", " << threads
                                                         << " threads: " << gap);
                }
    }
    BOOST_TEST(attention::use_kernels(was));
}

BOOST_AUTO_TEST_CASE(under_the_mask_the_first_rows_gradient_reaches_only_the_first_token) {
    // dZ is 0 but on row 0, and row 0 sees only token 0: every other row of dX must be exactly 0,
    // which it is only if the masked blocks add nothing (not even rounding).
    const std::size_t n = 40, d = 16;
    const matrix X = kernels::randn(n, d, 3);
    matrix dZ(n, d);
    for (std::size_t c = 0; c < d; ++c) dZ(0, c) = 1.0f;
    const attention::weights W = random_weights(d, 10);
    for (int threads : {1, 2}) {
        const attention::options o{.heads = 2, .causal = true, .threads = threads, .block_q = 6, .block_k = 8};
        attention::saved_forward kept;
        attention::forward_fused_keep(X, W, o, kept);
        const gradients g = attention::backward_fused(X, W, kept, dZ, o);
        bool rest_zero = true, first_moved = false;
        for (std::size_t c = 0; c < d; ++c) first_moved |= g.dX(0, c) != 0.0f;
        for (std::size_t i = 1; i < n; ++i)
            for (std::size_t c = 0; c < d; ++c) rest_zero &= g.dX(i, c) == 0.0f;
        BOOST_TEST(first_moved);
        BOOST_TEST(rest_zero, threads << " threads");
    }
}

BOOST_AUTO_TEST_CASE(shapes_that_disagree_are_refused) {
    const matrix X = kernels::randn(4, 8, 1);
    const attention::weights W = random_weights(8, 3);
    const attention::options o{.heads = 2};
    attention::saved_forward kept;
    attention::forward_fused_keep(X, W, o, kept);
    // refused before anything is used up: the same kept serves both calls
    BOOST_CHECK_THROW(attention::backward_fused(X, W, kept, kernels::randn(3, 8, 1), o), std::invalid_argument);
    BOOST_CHECK_THROW(attention::backward_fused(kernels::randn(5, 8, 1), W, kept, kernels::randn(5, 8, 1), o),
                      std::invalid_argument);
    // used up by a backward, its memory holds dQ, dK and dV: a second backward from it is refused,
    // and a forward into the same memory makes it usable again
    const matrix dZ = kernels::randn(4, 8, 2);
    const attention::gradients first = attention::backward_fused(X, W, kept, dZ, o);
    BOOST_CHECK_THROW(attention::backward_fused(X, W, kept, dZ, o), std::invalid_argument);
    const float* memory = kept.Q.data.data();
    attention::forward_fused_keep(X, W, o, kept);
    BOOST_TEST(kept.Q.data.data() == memory);
    BOOST_TEST(worst_gap(attention::backward_fused(X, W, kept, dZ, o), first) == 0.0);
}

BOOST_AUTO_TEST_CASE(the_forward_breakdown_accounts_for_its_time_and_idle_slots) {
    // n = 7 tokens, one head of d_k = 64, one block of 7 queries and 7 keys: tiles of 6 and 1 rows,
    // each issuing 6 rows. Scores: 6 × 16 lanes (7 columns in one vector) × 64 terms = 6 144 slots
    // a tile; P·V: 6 × 64 columns × 7 terms = 2 688. Two tiles: 17 664 slots, of which the 7 rows
    // use 2 · 7 · 7 · 64 = 6 272: 1 − 6 272 / 17 664 = 0.644 9 idle.
    const matrix X = kernels::randn(7, 64, 1);
    const attention::weights W = random_weights(64, 3);
    attention::fused_breakdown b;
    const attention::options o{.heads = 1, .breakdown = &b};
    attention::forward_fused(X, W, o);
    BOOST_TEST(std::fabs(b.idle_slots - (1 - 6272.0 / 17664.0)) <= 1e-9);
    // the stages' processor time fits in the pass's wall time (one thread; the clocks differ by
    // their reading, a microsecond or so)
    const double staged = b.pack + b.project_kv + b.project_q + b.scores + b.exps + b.weighted + b.output;
    BOOST_TEST(staged > 0.0);
    BOOST_TEST(staged <= b.wall + 1e-5);
    for (double s : {b.pack, b.project_kv, b.project_q, b.scores, b.exps, b.weighted, b.output}) BOOST_TEST(s >= 0.0);
}

BOOST_AUTO_TEST_CASE(the_backward_breakdown_accounts_for_its_time_and_changes_nothing) {
    // 70 tokens in blocks of 16 queries and 24 keys, two heads: every stage runs
    const matrix X = kernels::randn(70, 32, 1), dZ = kernels::randn(70, 32, 2);
    const attention::weights W = random_weights(32, 4);
    for (int threads : {1, 2}) {
        attention::backward_breakdown b;
        attention::options o{.heads = 2, .threads = threads, .block_q = 16, .block_k = 24};
        attention::saved_forward kept;
        attention::forward_fused_keep(X, W, o, kept);
        const gradients plain = attention::backward_fused(X, W, kept, dZ, o);
        attention::forward_fused_keep(X, W, o, kept);  // the first backward used it up
        o.backward_times = &b;
        // the clock is only read: on one thread the same products in the same order, the same
        // floats; on two, which worker's copy of dQ a key block adds to may differ, so its sum's order
        const double gap = worst_gap(attention::backward_fused(X, W, kept, dZ, o), plain);
        BOOST_TEST(gap <= (threads == 1 ? 0.0 : float_chain), threads << " threads: " << gap);
        const double stages[] = {b.output_grad, b.weight_grads, b.input_grad, b.row_dots, b.copies, b.scores,
                                 b.dP, b.exps, b.dV, b.dK, b.dQ};
        double staged = 0;
        for (double s : stages) {
            BOOST_TEST(s >= 0.0);
            staged += s;
        }
        BOOST_TEST(staged > 0.0);
        // each thread's processor time fits in the wall time (the clocks differ by their reading)
        BOOST_TEST(staged <= b.wall * threads + 1e-5, threads << " threads");
        BOOST_TEST(b.threads == threads);
    }
}
