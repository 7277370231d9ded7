// The eight core lessons run on 苹果很甜 and their traces checked against an independent
// computation: the reference kernels on the scenario's matrices, or arithmetic worked by hand in
// the comments. Then the lesson reader's list of problems, for `qkv validate`.
#define BOOST_TEST_MODULE lessons
#include <boost/test/unit_test.hpp>

#include <cstdio>

#include "qkv/scenario_gen.hpp"
#include "qkv/toml_file.hpp"
#include "qkv/token_span.hpp"
#include "support/lesson_suite.hpp"

namespace {

std::size_t argmax_row(const matrix& m, std::size_t r) {
    std::size_t best = 0;
    for (std::size_t c = 1; c < m.cols; ++c)
        if (m(r, c) > m(r, best)) best = c;
    return best;
}

// The apple scenario's own matrices and the single-head pipeline on them, by the reference kernels.
struct apple {
    qkv::scenario s = qkv::load_scenario(apple_file);
    const matrix& X = s.matrices.at("X");      // [3, 4]
    const matrix& W_Q = s.matrices.at("W_Q");  // [4, 4]
    const matrix& W_K = s.matrices.at("W_K");
    const matrix& W_V = s.matrices.at("W_V");
    const matrix& W_O = s.matrices.at("W_O");
    matrix Q = kernels::matmul_ref(X, W_Q);  // [3, 4]
    matrix K = kernels::matmul_ref(X, W_K);
    matrix V = kernels::matmul_ref(X, W_V);
    matrix S = kernels::matmul_ref(Q, kernels::transpose(K));  // [3, 3]
    matrix S_scaled = scaled(S, 0.5f);                          // d_k = 4, sqrt(4) = 2
    matrix A = kernels::softmax_rows(S_scaled);                 // [3, 3]
    matrix Z = kernels::matmul_ref(A, V);                       // [3, 4]
};

}  // namespace

BOOST_AUTO_TEST_CASE(apple_scenario_is_as_designed) {
    const apple a;
    BOOST_TEST((a.s.tokens == std::vector<std::string>{"苹果", "很", "甜"}));
    BOOST_TEST_REQUIRE(a.s.heads.has_value());
    BOOST_TEST(*a.s.heads == 2u);
    BOOST_TEST(a.X.rows == 3u);
    BOOST_TEST(a.X.cols == 4u);
    // At most 2 decimals everywhere, so a learner can redo every product on paper.
    for (const auto& [name, m] : a.s.matrices)
        for (float x : m.data) BOOST_TEST(std::abs(x * 100 - std::round(x * 100)) < 1e-3, name << " has " << x);
}

BOOST_AUTO_TEST_CASE(story_after_scaling_apple_and_sweet_attend_to_each_other) {
    const apple a;
    // s13 = q(苹果)·k(甜) = 1.55×1.5 + 0.45×0.3 + 0×1.0 + 0.35×0.39 = 2.5965
    // s31 = q(甜)·k(苹果) = 0.3×0.45 + 1.5×1.55 + 0.45×0.3 + 0.32×0.25 = 2.675
    BOOST_TEST(a.S(0, 2) == 2.5965f, tt::tolerance(1e-5f));
    BOOST_TEST(a.S(2, 0) == 2.675f, tt::tolerance(1e-5f));
    const auto t = run(4).t;
    const matrix& A = shown_mat(t, "effect", "A");
    check_close(A, a.A, 1e-5f, "lesson 4 A");
    BOOST_TEST(argmax_row(A, 0) == 2u);  // 苹果 attends most to 甜 (a13)
    BOOST_TEST(argmax_row(A, 2) == 0u);  // 甜 attends most to 苹果 (a31)
    // Row 苹果 by hand: exp(0.74125) = 2.0986, exp(0.08525) = 1.0890, exp(1.29825) = 3.6629;
    // a13 = 3.6629 / 6.8505 = 0.5347.
    BOOST_TEST(A(0, 2) == 0.5347f, tt::tolerance(2e-4f));
}

BOOST_AUTO_TEST_CASE(lesson_1_simplified) {
    const apple a;
    const auto t = run(1).t;
    BOOST_TEST(shown_num(t, "embeddings", "d_model") == 4.0f);
    const matrix S = kernels::matmul_ref(a.X, kernels::transpose(a.X));  // [3, 3]
    check_close(shown_mat(t, "dot-scores", "S"), S, 1e-6f, "X·Xᵀ");
    // x(苹果)·x(甜) = 1.0×0.2 + 0.3×1.0 + 0×0.3 + 0.5×0.6 = 0.8
    BOOST_TEST(shown_mat(t, "dot-scores", "S")(0, 2) == 0.8f, tt::tolerance(1e-6f));
    const matrix& C = shown_mat(t, "cosine", "C");
    // cos(苹果, 甜) = 0.8 / sqrt(1.34 × 1.49)
    BOOST_TEST(C(0, 2) == 0.8f / std::sqrt(1.34f * 1.49f), tt::tolerance(1e-5f));
    for (std::size_t i = 0; i < 3; ++i) BOOST_TEST(C(i, i) == 1.0f, tt::tolerance(1e-6f));
    check_rows_sum_to_one(shown_mat(t, "cosine", "A_cos"), "A_cos");
    const matrix A = kernels::softmax_rows(S);
    check_close(shown_mat(t, "weights", "A"), A, 1e-6f, "softmax(X·Xᵀ)");
    check_rows_sum_to_one(shown_mat(t, "weights", "A"), "A");
    check_close(shown_mat(t, "output", "Z"), kernels::matmul_ref(A, a.X), 1e-6f, "A·X");
    BOOST_TEST(shown_num(t, "self", "asymmetry") == 0.0f);  // X·Xᵀ is symmetric
}

BOOST_AUTO_TEST_CASE(lesson_2_projections) {
    const apple a;
    const auto t = run(2).t;
    check_close(shown_mat(t, "query", "Q"), a.Q, 1e-6f, "Q");
    // Q[苹果, 1] = 1.0×1.5 + 0.3×0 + 0×(−0.2) + 0.5×0.1 = 1.55
    BOOST_TEST(shown_mat(t, "query", "Q")(0, 0) == 1.55f, tt::tolerance(1e-6f));
    check_close(shown_mat(t, "key", "K"), a.K, 1e-6f, "K");
    check_close(shown_mat(t, "value", "V"), a.V, 1e-6f, "V");
    check_close(shown_mat(t, "one-token", "q1"), rows_of(a.Q, 0, 1), 1e-6f, "q1");
    BOOST_TEST(shown_num(t, "one-token", "same") == 0.0f);
    check_close(shown_mat(t, "why-three", "S_preview"), a.S, 1e-5f, "S preview");
    // Largest |s_ij − s_ji|: s23 − s32 = 1.5669 − 0.145 = 1.4219
    BOOST_TEST(shown_num(t, "why-three", "asymmetry") == 1.4219f, tt::tolerance(1e-4f));
    // One shared matrix: Q·Qᵀ is symmetric and each token attends most to itself.
    const matrix S_shared = kernels::matmul_ref(a.Q, kernels::transpose(a.Q));
    check_close(shown_mat(t, "shared", "S_shared"), S_shared, 1e-5f, "S_shared");
    const matrix& A_shared = shown_mat(t, "shared", "A_shared");
    check_close(A_shared, kernels::softmax_rows(scaled(S_shared, 0.5f)), 1e-5f, "A_shared");
    for (std::size_t i = 0; i < 3; ++i) BOOST_TEST(argmax_row(A_shared, i) == i);
    BOOST_TEST(shown_num(t, "shared", "asymmetry_shared") == 0.0f);
}

BOOST_AUTO_TEST_CASE(lesson_3_scores) {
    const apple a;
    const auto t = run(3).t;
    check_close(shown_mat(t, "transpose", "K_t"), kernels::transpose(a.K), 1e-6f, "Kᵀ");
    const matrix& S = shown_mat(t, "scores", "S");
    check_close(S, a.S, 1e-5f, "Q·Kᵀ");
    // s23 = (−0.01)×1.5 + 0×0.3 + 1.5×1.0 + 0.21×0.39 = −0.015 + 1.5 + 0.0819 = 1.5669
    BOOST_TEST(shown_mat(t, "one-cell", "s_2n")(0, 0) == 1.5669f, tt::tolerance(1e-5f));
    BOOST_TEST(shown_num(t, "one-cell", "same") == 0.0f);
    const matrix Q10 = kernels::randn(10, 64, 31), K10 = kernels::randn(10, 64, 32);
    check_close(shown_mat(t, "only-n", "S_10"), kernels::matmul_ref(Q10, kernels::transpose(K10)), 1e-4f,
                "S_10");
}

BOOST_AUTO_TEST_CASE(lesson_4_scaling) {
    const apple a;
    const auto t = run(4).t;
    BOOST_TEST(shown_num(t, "scaled", "d_k") == 4.0f);
    check_close(shown_mat(t, "scaled", "S_scaled"), a.S_scaled, 1e-6f, "S / 2");
    check_close(shown_mat(t, "effect", "A_unscaled"), kernels::softmax_rows(a.S), 1e-6f, "softmax(S)");
    // Scaling softens: row 甜's top weight drops (0.72 unscaled, 0.55 scaled).
    BOOST_TEST(shown_mat(t, "effect", "A_unscaled")(2, 0) > shown_mat(t, "effect", "A")(2, 0) + 0.1f);
}

BOOST_AUTO_TEST_CASE(lesson_4_experiment) {
    const auto t = run(4).t;
    // The same samples, recomputed here: the variance (over the samples) of q·k, in double.
    const int seeds[] = {41, 43, 45};
    const std::size_t widths[] = {4, 64, 512};
    for (int i = 0; i < 3; ++i) {
        const std::size_t d = widths[i];
        const matrix q = kernels::randn(1000, d, seeds[i]), k = kernels::randn(1000, d, seeds[i] + 1);
        std::vector<double> dots(q.rows);
        double mean = 0;
        for (std::size_t r = 0; r < q.rows; ++r) {
            for (std::size_t c = 0; c < d; ++c) dots[r] += double(q(r, c)) * k(r, c);
            mean += dots[r] / q.rows;
        }
        double var = 0;
        for (double x : dots) var += (x - mean) * (x - mean) / q.rows;
        const std::string name = "var_" + std::to_string(d);
        const float got = shown_num(t, "variance", name);
        BOOST_TEST(double(got) == var, tt::tolerance(1e-3));
        // Var(q·k) = d_k in theory; 1000 samples land within 15 %.
        BOOST_TEST(got > 0.85 * d);
        BOOST_TEST(got < 1.15 * d);
        const float back = shown_num(t, "variance-scaled", name + "_scaled");
        BOOST_TEST(double(back) == var / double(d), tt::tolerance(1e-3));
        BOOST_TEST(back > 0.85f);
        BOOST_TEST(back < 1.15f);
    }
    // 200 queries of d_k = 512 against 8 keys, recomputed here. Unscaled, the softmax saturates:
    // the average largest weight is near 1 and the average Jacobian size small; divided by
    // sqrt(512) the rows are soft and the Jacobian several times larger.
    const matrix Q = kernels::randn(200, 512, 51), K8 = kernels::randn(8, 512, 52);
    const matrix S = kernels::matmul_ref(Q, kernels::transpose(K8));  // [200, 8]
    const matrix P = kernels::softmax_rows(S), P_scaled = kernels::softmax_rows(scaled(S, 1 / std::sqrt(512.0f)));
    double top = 0, top_scaled = 0, grad = 0, grad_scaled = 0;
    for (std::size_t r = 0; r < 200; ++r) {
        top += P(r, argmax_row(P, r)) / 200.0;
        top_scaled += P_scaled(r, argmax_row(P_scaled, r)) / 200.0;
        // |diag(p) - p pᵀ|_F² = Σ_i p_i²(1 - p_i)² + Σ_{i≠j} p_i² p_j²
        double g = 0, g_s = 0;
        for (std::size_t i = 0; i < 8; ++i)
            for (std::size_t j = 0; j < 8; ++j) {
                const double e = (i == j ? P(r, i) : 0.0) - double(P(r, i)) * P(r, j);
                const double e_s = (i == j ? P_scaled(r, i) : 0.0) - double(P_scaled(r, i)) * P_scaled(r, j);
                g += e * e, g_s += e_s * e_s;
            }
        grad += std::sqrt(g) / 200.0, grad_scaled += std::sqrt(g_s) / 200.0;
    }
    BOOST_TEST(double(shown_num(t, "saturation", "top_unscaled")) == top, tt::tolerance(1e-4));
    BOOST_TEST(double(shown_num(t, "saturation", "top_scaled")) == top_scaled, tt::tolerance(1e-4));
    BOOST_TEST(double(shown_num(t, "saturation", "grad_unscaled")) == grad, tt::tolerance(1e-3));
    BOOST_TEST(double(shown_num(t, "saturation", "grad_scaled")) == grad_scaled, tt::tolerance(1e-4));
    BOOST_TEST(top > 0.9);
    BOOST_TEST(top_scaled < 0.6);
    BOOST_TEST(grad_scaled > 4 * grad);
    // The example row (query 2) is one-hot unscaled and soft scaled.
    check_close(shown_mat(t, "saturation", "s_row"), rows_of(S, 1, 1), 1e-3f, "s_row");
    BOOST_TEST(shown_mat(t, "saturation", "p_unscaled")(0, argmax_row(P, 1)) > 0.9999f);
    check_close(shown_mat(t, "saturation", "p_scaled"), rows_of(P_scaled, 1, 1), 1e-5f, "p_scaled");
}

BOOST_AUTO_TEST_CASE(lesson_5_softmax) {
    const apple a;
    const auto t = run(5).t;
    const matrix& E = shown_mat(t, "exp", "E");
    for (std::size_t i = 0; i < 9; ++i) BOOST_TEST(E.data[i] == std::exp(a.S_scaled.data[i]), tt::tolerance(1e-5f));
    // Row 苹果: 2.0986 + 1.0890 + 3.6629 = 6.8505
    BOOST_TEST(shown_mat(t, "exp", "E_sums")(0, 0) == 6.8505f, tt::tolerance(1e-4f));
    check_close(shown_mat(t, "normalise", "A"), a.A, 1e-6f, "E / row sums");
    BOOST_TEST(shown_num(t, "normalise", "same") <= 1e-6f);
    const matrix& sums = shown_mat(t, "row-sums", "sums");
    for (std::size_t i = 0; i < 3; ++i) BOOST_TEST(sums(i, 0) == 1.0f, tt::tolerance(1e-6f));
    // Softmax down the columns: the rows no longer sum to 1.
    const matrix cols = kernels::transpose(kernels::softmax_rows(kernels::transpose(a.S_scaled)));
    check_close(shown_mat(t, "row-sums", "A_columns"), cols, 1e-6f, "column softmax");
    const matrix& col_sums = shown_mat(t, "row-sums", "sums_columns");
    for (std::size_t i = 0; i < 3; ++i)
        BOOST_TEST(col_sums(i, 0) == cols(i, 0) + cols(i, 1) + cols(i, 2), tt::tolerance(1e-5f));
    BOOST_TEST(std::abs(col_sums(1, 0) - 1.0f) > 0.1f);
    // [1000, 999, 998]: the naive formula gives inf / inf = NaN; the stable one softmax([0, −1, −2])
    // = [1, e^−1, e^−2] / (1 + 0.36788 + 0.13534) = [0.66524, 0.24473, 0.09003].
    check_close(shown_mat(t, "overflow", "s_big"), matrix::of({{1000, 999, 998}}), 0.0f, "s_big");
    for (float x : shown_mat(t, "overflow", "p_naive").data) BOOST_TEST(std::isnan(x));
    check_close(shown_mat(t, "overflow", "p_stable"), matrix::of({{0.66524f, 0.24473f, 0.09003f}}), 1e-5f,
                "p_stable");
    for (float x : shown_mat(t, "shift", "A_naive").data) BOOST_TEST(std::isnan(x));
    check_close(shown_mat(t, "shift", "A_shifted"), a.A, 1e-3f, "softmax(S + 1000)");
    BOOST_TEST(shown_num(t, "shift", "change") < 1e-3f);
}

BOOST_AUTO_TEST_CASE(lesson_6_weighted_sum) {
    const apple a;
    const auto t = run(6).t;
    check_close(shown_mat(t, "recap", "A"), a.A, 1e-6f, "A");
    check_close(shown_mat(t, "output", "Z"), a.Z, 1e-5f, "A·V");
    // Row j of terms is a1j·V_j, and their sum is row 1 of Z.
    const matrix& terms = shown_mat(t, "row-one", "terms");
    for (std::size_t j = 0; j < 3; ++j)
        for (std::size_t c = 0; c < 4; ++c) BOOST_TEST(terms(j, c) == a.A(0, j) * a.V(j, c), tt::tolerance(1e-5f));
    check_close(shown_mat(t, "row-one", "z1"), rows_of(a.Z, 0, 1), 1e-5f, "z1");
    BOOST_TEST(shown_num(t, "row-one", "same") <= 1e-6f);
    check_close(shown_mat(t, "one-line", "Z_once"), a.Z, 1e-5f, "softmax(Q·Kᵀ/√d_k)·V");
    BOOST_TEST(shown_num(t, "one-line", "same") <= 1e-6f);
    // Uniform weights make z1 the mean of V's rows: column 1 = (0.93 + 0.16 + 0.38) / 3 = 0.49.
    const matrix& z_uniform = shown_mat(t, "caveat", "z_uniform");
    BOOST_TEST(z_uniform(0, 0) == 0.49f, tt::tolerance(1e-5f));
    float moved = 0;
    for (std::size_t c = 0; c < 4; ++c) {
        const float mean = (a.V(0, c) + a.V(1, c) + a.V(2, c)) / 3;
        BOOST_TEST(z_uniform(0, c) == mean, tt::tolerance(1e-5f));
        moved = std::max(moved, std::abs(mean - a.Z(0, c)));
    }
    BOOST_TEST(shown_num(t, "caveat", "moved") == moved, tt::tolerance(1e-5f));
    BOOST_TEST(shown_mat(t, "caveat", "direction")(0, 0) > 0.95f);  // the text says ≈ 0.98
}

BOOST_AUTO_TEST_CASE(lesson_7_causal_mask) {
    const apple a;
    const auto t = run(7).t;
    const matrix& M = shown_mat(t, "mask", "M");
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 3; ++j) {
            if (j <= i) BOOST_TEST(M(i, j) == 0.0f);
            else BOOST_TEST((std::isinf(M(i, j)) && M(i, j) < 0));
        }
    const matrix& A_causal = shown_mat(t, "weights", "A_causal");
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = i + 1; j < 3; ++j) BOOST_TEST(A_causal(i, j) == 0.0f);  // exactly
    check_rows_sum_to_one(A_causal, "A_causal");
    BOOST_TEST(A_causal(0, 0) == 1.0f);
    // Row 很 sees 苹果 and itself: softmax([0.2490, 0.0525]) = [0.549, 0.451]
    BOOST_TEST(A_causal(1, 0) == 1 / (1 + std::exp(a.S_scaled(1, 1) - a.S_scaled(1, 0))), tt::tolerance(1e-5f));
    const matrix& A_bi = shown_mat(t, "bidirectional", "A_bidirectional");
    check_close(A_bi, a.A, 1e-6f, "bidirectional");
    check_close(rows_of(A_causal, 2, 1), rows_of(a.A, 2, 1), 1e-6f, "last row");  // it sees everything
    check_close(shown_mat(t, "output", "Z_causal"), kernels::matmul_ref(A_causal, a.V), 1e-5f, "causal Z");
    check_close(rows_of(shown_mat(t, "output", "Z_causal"), 0, 1), rows_of(a.V, 0, 1), 1e-6f, "row 苹果 = V1");
    BOOST_TEST(shown_num(t, "output", "first_row") == 0.0f);
}

BOOST_AUTO_TEST_CASE(lesson_8_two_heads) {
    const apple a;
    const auto t = run(8).t;
    BOOST_TEST(shown_num(t, "split", "d_k") == 2.0f);
    const value& Q_h = shown(t, "split", "Q_h");
    const value& A_h = shown(t, "head-weights", "A_h");
    const value& Z_h = shown(t, "head-outputs", "Z_h");
    BOOST_TEST((Q_h.shape() == std::vector<std::size_t>{2, 3, 2}));
    BOOST_TEST_REQUIRE(A_h.is_stack());
    BOOST_TEST_REQUIRE(Z_h.is_stack());
    matrix Z_sum(3, 4);  // Σ_i head_i · W_O,i: [3, 4]
    for (std::size_t i = 0; i < 2; ++i) {
        // Head i uses columns 2i, 2i+1 of W_Q, W_K, W_V, and divides by sqrt(2).
        const matrix Qi = columns(a.Q, 2 * i, 2), Ki = columns(a.K, 2 * i, 2), Vi = columns(a.V, 2 * i, 2);
        check_close(Q_h.mats[i], Qi, 1e-6f, "Q head");
        const matrix Ai = kernels::softmax_rows(scaled(kernels::matmul_ref(Qi, kernels::transpose(Ki)),
                                                       1 / std::sqrt(2.0f)));
        check_close(A_h.mats[i], Ai, 1e-5f, "A head");
        check_rows_sum_to_one(A_h.mats[i], "A head");
        const matrix Zi = kernels::matmul_ref(Ai, Vi);
        check_close(Z_h.mats[i], Zi, 1e-5f, "Z head");
        const matrix part = kernels::matmul_ref(Zi, rows_of(a.W_O, 2 * i, 2));
        for (std::size_t k = 0; k < part.size(); ++k) Z_sum.data[k] += part.data[k];
    }
    // The heads differ: head 1 pairs 苹果 <-> 甜, head 2 sends 很 to 甜.
    BOOST_TEST(argmax_row(A_h.mats[0], 0) == 2u);
    BOOST_TEST(argmax_row(A_h.mats[0], 2) == 0u);
    BOOST_TEST(argmax_row(A_h.mats[1], 1) == 2u);
    BOOST_TEST(A_h.mats[0](0, 2) > 0.55f);
    BOOST_TEST(A_h.mats[1](0, 2) < 0.4f);
    // concat · W_O, and the same as the sum over heads.
    matrix cat(3, 4);
    for (std::size_t r = 0; r < 3; ++r)
        for (std::size_t c = 0; c < 4; ++c) cat(r, c) = Z_h.mats[c / 2](r, c % 2);
    check_close(shown_mat(t, "concat", "Z_cat"), cat, 0.0f, "concat");
    const matrix Z = kernels::matmul_ref(cat, a.W_O);
    check_close(shown_mat(t, "concat", "Z"), Z, 1e-5f, "concat·W_O");
    check_close(shown_mat(t, "sum-of-heads", "Z_sum"), Z_sum, 1e-5f, "Σ head_i·W_O,i");
    check_close(Z_sum, Z, 1e-5f, "concat·W_O = Σ head_i·W_O,i");
    BOOST_TEST(shown_num(t, "sum-of-heads", "same") <= 1e-5f);
}

BOOST_AUTO_TEST_CASE(lesson_8_pytorch_shapes) {
    const auto t = run(8).t;
    using shape = std::vector<std::size_t>;
    BOOST_TEST((shown(t, "pytorch-input", "input").shape() == shape{1, 10, 512}));
    BOOST_TEST(shown_num(t, "pytorch-heads", "head_dim") == 64.0f);
    BOOST_TEST((shown(t, "pytorch-heads", "Q_10").shape() == shape{8, 10, 64}));
    const value& A_10 = shown(t, "pytorch-heads", "A_10");
    BOOST_TEST((A_10.shape() == shape{8, 10, 10}));
    BOOST_TEST((shown(t, "pytorch-output", "atten_out").shape() == shape{1, 10, 512}));
    const value& weights = shown(t, "pytorch-output", "atten_weights");
    BOOST_TEST((weights.shape() == shape{1, 10, 10}));
    // The returned weights are the mean over the 8 heads, and still rows of a distribution.
    matrix mean(10, 10);
    for (const matrix& head : A_10.mats)
        for (std::size_t k = 0; k < 100; ++k) mean.data[k] += head.data[k] / 8;
    check_close(weights.mats[0], mean, 1e-6f, "mean over heads");
    check_rows_sum_to_one(weights.mats[0], "atten_weights");
    // Head 1 against the reference: X_10·W_Q,1 with the first 64 columns of the seeded weights,
    // uniform within ±sqrt(6 / (512 + 1536)) as PyTorch's xavier_uniform_ on in_proj_weight.
    const matrix X10 = kernels::randn(10, 512, 81);
    const float bound = std::sqrt(6.0f / 2048);
    auto xavier = [&](std::uint64_t seed) {
        matrix W = kernels::rand_uniform(512, 512, seed);
        for (auto& x : W.data) x = (2 * x - 1) * bound;
        return W;
    };
    const matrix Wq = xavier(82), Wk = xavier(83);
    const matrix Q1 = kernels::matmul_ref(X10, columns(Wq, 0, 64)), K1 = kernels::matmul_ref(X10, columns(Wk, 0, 64));
    const matrix A1 = kernels::softmax_rows(scaled(kernels::matmul_ref(Q1, kernels::transpose(K1)), 1 / 8.0f));
    check_close(A_10.mats[0], A1, 1e-4f, "PyTorch head 1 weights");
}

// For `qkv validate`: given a list, the loader lists every problem of the lesson with its
// file:line:column and goes on; without one it throws the first.
BOOST_AUTO_TEST_CASE(a_lesson_reader_given_a_list_collects_every_problem) {
    const std::string text = "number = 20\n"
                             "title = { zh = \"标题\", en = \"Title\" }\n"
                             "\n"
                             "[[stage]]\n"
                             "id = \"a\"\n"
                             "colour = 1\n"                      // line 6, column 10: no such key
                             "title = { en = \"A\" }\n"          // line 7, column 9: no Chinese
                             "text = { zh = \"甲\", en = \"a\" }\n"
                             "formula = \"S = Q @@ K\"\n"        // line 9: the text starts at column 12, the second @ is its 8th character
                             "\n"
                             "[[stage]]\n"                       // line 11: the id is used again
                             "id = \"a\"\n"
                             "title = { zh = \"乙\", en = \"B\" }\n"
                             "text = { zh = \"乙\", en = \"b\" }\n"
                             "formula = \"S = Q @ K^T\"\n";
    std::vector<qkv::problem> problems;
    qkv::lesson l = qkv::read_lesson(qkv::read_toml_text(text, "x.toml"), &problems);
    std::vector<std::string> got;
    for (const auto& p : problems) got.push_back(p.str());
    BOOST_REQUIRE_EQUAL(got.size(), 4u);
    BOOST_TEST(got[0].find("x.toml:6:10: stage 1: unknown key 'colour'") == 0u, got[0]);
    BOOST_TEST(got[1] == "x.toml:7:9: stage 'a', title: the Chinese (zh) text is missing");
    BOOST_TEST(got[2].find("x.toml:9:19: ") == 0u, got[2]);
    BOOST_TEST(got[3].find("x.toml:11:") == 0u, got[3]);
    BOOST_TEST(got[3].find("stage id 'a' is used twice") != std::string::npos, got[3]);
    BOOST_TEST(l.number == 20);
    try {
        qkv::read_lesson(qkv::read_toml_text(text, "x.toml"));
        BOOST_FAIL("no error");
    } catch (const qkv::input_error& e) {
        BOOST_TEST(std::string(e.what()) == got[0]);
    }
}

// Issue 40: on "the cat sat on the mat" lesson 1 said “the”₁ cares "most of all about itself",
// and “the”₅ has the same weight. The row is recomputed here (A = softmax(X·Xᵀ)) and its tie
// counted; when there is one, the sentence says so in both languages.
BOOST_AUTO_TEST_CASE(lesson_1_says_most_only_of_what_is_alone_at_the_top) {
    const qkv::scenario s = qkv::generate_scenario(qkv::scenario_spec{qkv::split_tokens("the cat sat on the mat")});
    const matrix& X = s.matrices.at("X");
    const matrix A = kernels::softmax_rows(kernels::matmul_ref(X, kernels::transpose(X)));
    float top = 0;
    for (std::size_t c = 0; c < A.cols; ++c) top = std::max(top, A(0, c));
    std::size_t tied = 0;
    for (std::size_t c = 0; c < A.cols; ++c) tied += std::abs(A(0, c) - top) <= 1e-5f;
    BOOST_TEST_REQUIRE(tied == 2u);  // the₁ and the₅: one embedding, one weight
    for (qkv::lang l : {qkv::lang::en, qkv::lang::zh}) {
        const qkv::lesson_run r = qkv::run_lesson(qkv::load_lesson(lesson_path(1)), s, l);
        const std::string& text = stage_of(r.t, "weights").text;
        if (l == qkv::lang::en) {
            BOOST_TEST(text.find("most of all about itself.") == std::string::npos, text);
            BOOST_TEST(text.find("tied with one other token") != std::string::npos, text);
        } else {
            BOOST_TEST(text.find("最在意的还是自己。") == std::string::npos, text);
            BOOST_TEST(text.find("另有 1 个词的权重和它一样") != std::string::npos, text);
        }
    }
    // on 苹果很甜 nothing ties, and nothing is said of a tie
    const qkv::lesson_run apple = run(1);
    BOOST_TEST(stage_of(apple.t, "weights").text.find("tied") == std::string::npos);
}

// Issue 40 §5: what the source documents say that no lesson did.

namespace {

// A number as a quote writes it by default: two decimals.
std::string two_decimals(float x) {
    char out[32];
    std::snprintf(out, sizeof out, "%.2f", static_cast<double>(x));
    return out;
}

// A stage's text as text shows it (tokens in quotes), its line breaks as spaces, to find a
// sentence wherever the file broke it.
std::string one_line(const std::string& filled) {
    std::string text = qkv::plain_tokens(filled);
    for (char& c : text)
        if (c == '\n') c = ' ';
    return text;
}

// Lesson 7's fill-in-the-middle mask on a sentence of n tokens, against the rule FIM trains by: the
// prefix 1 … a, the middle a+1 … b and the suffix b+1 … n (a = ⌈n/3⌉, b = ⌈2n/3⌉) are read in the
// order prefix, suffix, middle under the plain causal mask, so token i is read at place π(i) and
// sees token j exactly when π(j) ≤ π(i). π is worked out here, with no matrix.
void check_fill_in_the_middle(const qkv::trace& t, std::size_t n) {
    const std::size_t a = (n + 2) / 3, b = (2 * n + 2) / 3;
    auto place = [&](std::size_t i) {  // from 1
        if (i <= a) return i;
        if (i > b) return a + (i - b);
        return a + (n - b) + (i - a);
    };
    const matrix& M = shown_mat(t, "fill-in-the-middle", "M_fim");
    const matrix& sees = shown_mat(t, "fill-in-the-middle", "sees_fim");
    BOOST_TEST_REQUIRE(M.rows == n);
    for (std::size_t i = 1; i <= n; ++i)
        for (std::size_t j = 1; j <= n; ++j) {
            const bool visible = place(j) <= place(i);
            BOOST_TEST(sees(i - 1, j - 1) == (visible ? 1.0f : 0.0f), "sees_fim[" << i << ", " << j << "]");
            if (visible) BOOST_TEST(M(i - 1, j - 1) == 0.0f, "M_fim[" << i << ", " << j << "]");
            else BOOST_TEST((std::isinf(M(i - 1, j - 1)) && M(i - 1, j - 1) < 0), "M_fim[" << i << ", " << j << "]");
        }
}

}  // namespace

BOOST_AUTO_TEST_CASE(lesson_7_fill_in_the_middle_mask) {
    // 苹果很甜: prefix 苹果, middle 很, suffix 甜, read as 苹果 甜 很. By hand:
    //   苹果 sees 苹果; 很 (read last) sees all three; 甜 sees 苹果 and itself, not 很.
    const auto t = run(7).t;
    const matrix& sees = shown_mat(t, "fill-in-the-middle", "sees_fim");
    check_close(sees, matrix::of({{1.0f, 0.0f, 0.0f}, {1.0f, 1.0f, 1.0f}, {1.0f, 0.0f, 1.0f}}), 0.0f, "sees_fim on 苹果很甜");
    check_fill_in_the_middle(t, 3);
    const std::string text = one_line(stage_of(t, "fill-in-the-middle").text);
    BOOST_TEST(text.find("the prefix is “苹果”, the middle “很” and the suffix “甜”") != std::string::npos, text);
    // sentences of every length up to 9, the short ones (no three parts) causal
    for (std::size_t n = 1; n <= 9; ++n) {
        std::vector<std::string> tokens;
        for (std::size_t i = 0; i < n; ++i) tokens.push_back("w" + std::to_string(i + 1));
        const qkv::scenario s = qkv::generate_scenario(qkv::scenario_spec{tokens});
        for (qkv::lang l : {qkv::lang::en, qkv::lang::zh}) {
            BOOST_TEST_CONTEXT("n = " << n) {
                const qkv::lesson_run r = qkv::run_lesson(qkv::load_lesson(lesson_path(7)), s, l);
                check_fill_in_the_middle(r.t, n);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(lesson_7_image_prefix_mask) {
    // p = 2 patches before the n tokens: position i sees j when j ≤ i, or when both are patches.
    for (const char* words : {"苹果 很 甜", "the cat sat on the mat", "one"}) {
        const qkv::scenario s = qkv::generate_scenario(qkv::scenario_spec{qkv::split_tokens(words)});
        const qkv::lesson_run r = qkv::run_lesson(qkv::load_lesson(lesson_path(7)), s, qkv::lang::en);
        const std::size_t N = s.tokens.size() + 2;
        const matrix& M = shown_mat(r.t, "image-prefix", "M_img");
        BOOST_TEST_REQUIRE(M.rows == N);
        BOOST_TEST_REQUIRE(M.cols == N);
        for (std::size_t i = 1; i <= N; ++i)
            for (std::size_t j = 1; j <= N; ++j) {
                const bool visible = j <= i || (i <= 2 && j <= 2);
                if (visible) BOOST_TEST(M(i - 1, j - 1) == 0.0f, words << " [" << i << ", " << j << "]");
                else BOOST_TEST((std::isinf(M(i - 1, j - 1)) && M(i - 1, j - 1) < 0), words << " [" << i << ", " << j << "]");
            }
    }
    // patch 1 sees patch 2, which the causal mask hides; the first token sees both patches and itself
    const auto t = run(7).t;
    BOOST_TEST(shown_mat(t, "image-prefix", "M_img")(0, 1) == 0.0f);
    const std::string text = one_line(stage_of(t, "image-prefix").text);
    BOOST_TEST(text.find("row 3 is “苹果”") != std::string::npos, text);
}

BOOST_AUTO_TEST_CASE(lesson_5_weights_are_where_the_eye_settles) {
    // Row 甜 of A (lesson 7's last causal row, the same without the mask): [0.55, 0.15, 0.30].
    const apple a;
    const auto t = run(5).t;
    for (std::size_t c = 0; c < 3; ++c) BOOST_TEST(a.A(2, c) > 0.1f);
    BOOST_TEST(argmax_row(a.A, 2) == 0u);
    const std::string text = one_line(stage_of(t, "normalise").text);
    BOOST_TEST(text.find("busy picture") != std::string::npos, text);
    BOOST_TEST(text.find("Row “甜” puts " + two_decimals(a.A(2, 0)) + " on “苹果”") != std::string::npos, text);
    BOOST_TEST(text.find("the smallest weight in the row, " + two_decimals(a.A(2, 1)) + ", is above 0") != std::string::npos, text);
    const auto zh = run(5, apple_file, qkv::lang::zh).t;
    BOOST_TEST(one_line(stage_of(zh, "normalise").text).find("行 “甜” 把 " + two_decimals(a.A(2, 0)) + " 给了 “苹果”") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(lesson_2_value_is_what_a_token_hands_over) {
    // Row 甜 of V = x(甜)·W_V = [0.38, 0.92, 0.36, 0.37]; its largest cell, column 2, is
    // 0.2×0.1 + 1.0×0.9 + 0.3×0 + 0.6×0 = 0.02 + 0.90: the taste column of the hand-made example.
    const apple a;
    BOOST_TEST(argmax_row(a.V, 2) == 1u);
    BOOST_TEST(a.V(2, 1) == 0.92f, tt::tolerance(1e-5f));
    for (qkv::lang l : {qkv::lang::en, qkv::lang::zh}) {
        const std::string text = one_line(stage_of(run(2, apple_file, l).t, "value").text);
        BOOST_TEST(text.find("[0.38, 0.92, 0.36, 0.37]") != std::string::npos, text);
        BOOST_TEST(text.find("[0.02, 0.90, 0.00, 0.00]") != std::string::npos, text);
        BOOST_TEST(text.find(l == qkv::lang::en ? "tastes good" : "正面的味觉感受") != std::string::npos, text);
    }
}
