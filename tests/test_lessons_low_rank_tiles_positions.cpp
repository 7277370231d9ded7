// Lessons 12–14 (low rank: SVD, Linformer, Performer; tiled softmax; positions) and their
// built-ins, each central claim held against plain loops, the reference kernels or arithmetic
// worked by hand in the comments.
#define BOOST_TEST_MODULE lessons_low_rank_tiles_positions
#include <boost/test/unit_test.hpp>

#include "qkv/builtins.hpp"
#include "qkv/lapack.hpp"
#include "support/lesson_suite.hpp"
#include "support/lesson_workspace.hpp"

namespace {

matrix reversed_rows(const matrix& m) {
    matrix out(m.rows, m.cols);
    for (std::size_t r = 0; r < m.rows; ++r)
        for (std::size_t c = 0; c < m.cols; ++c) out(r, c) = m(m.rows - 1 - r, c);
    return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Lesson 12: SVD, Linformer, Performer.

BOOST_AUTO_TEST_CASE(svd_of_hand_made_matrices) {
    // diag(3, 4): singular values 4, 3; the rank-1 approximation keeps the 4, error 3 / 5 = 0.6
    matrix D = matrix::of({{3, 0}, {0, 4}});
    auto f = qkv::lapack::svd(D);
    BOOST_TEST(f.sigma[0] == 4.0f, tt::tolerance(1e-6f));
    BOOST_TEST(f.sigma[1] == 3.0f, tt::tolerance(1e-6f));
    check_close(call("rank_k", {value::of(D), num(1)}).mat(), matrix::of({{0, 0}, {0, 4}}), 1e-6f, "rank 1 of diag(3, 4)");
    BOOST_TEST(call("rank_errors", {value::of(D)}).mat()(0, 0) == 0.6f, tt::tolerance(1e-6f));
    // u v^T with u = (1, 2, 2), v = (3, 4): one singular value |u|·|v| = 3 · 5 = 15, the other 0
    matrix uv = matrix::of({{3, 4}, {6, 8}, {6, 8}});
    auto g = qkv::lapack::svd(uv);
    BOOST_TEST_REQUIRE(g.sigma.size() == 2u);
    BOOST_TEST(g.sigma[0] == 15.0f, tt::tolerance(1e-5f));
    BOOST_TEST(std::abs(g.sigma[1]) < 1e-5f);
    BOOST_TEST(g.U.rows == 3u);
    BOOST_TEST(g.Vt.cols == 2u);
}

BOOST_AUTO_TEST_CASE(svd_reconstructs_and_its_error_falls_with_k) {
    matrix A = kernels::softmax_rows(kernels::randn(12, 9, 21));  // [12, 9], a wide-ish attention-like matrix
    auto f = qkv::lapack::svd(A);
    BOOST_TEST_REQUIRE(f.sigma.size() == 9u);
    matrix US = f.U;
    for (std::size_t i = 0; i < US.rows; ++i)
        for (std::size_t j = 0; j < US.cols; ++j) US(i, j) *= f.sigma[j];
    check_close(kernels::matmul_ref(US, f.Vt), A, 1e-5f, "U diag(sigma) Vt");
    for (std::size_t j = 1; j < 9; ++j) BOOST_TEST(f.sigma[j] <= f.sigma[j - 1]);
    double previous = INFINITY;
    for (std::size_t k = 1; k <= 9; ++k) {
        double err = fro(minus(A, call("rank_k", {value::of(A), num(float(k))}).mat())) / fro(A);
        BOOST_TEST(err < previous, "rank " << k);
        previous = err;
    }
    BOOST_TEST(previous < 1e-6, "full rank leaves " << previous);
}

BOOST_AUTO_TEST_CASE(low_rank_lesson_errors_fall_and_full_rank_is_rounding) {
    auto r = run(12);
    BOOST_TEST(ws_num(r, "error_1") > ws_num(r, "error_2"));
    BOOST_TEST(ws_num(r, "error_full") < 1e-6f);
    const matrix& errors = ws_mat(r, "errors");  // [64, 1], recomputed here from rank_k
    const matrix& A_64 = ws_mat(r, "A_64");
    for (std::size_t k : {1u, 8u, 32u})
        BOOST_TEST(errors(k - 1, 0) == fro(minus(A_64, call("rank_k", {value::of(A_64), num(float(k))}).mat())) / fro(A_64),
                   tt::tolerance(1e-4));
    for (std::size_t k = 1; k < errors.rows; ++k) BOOST_TEST(errors(k, 0) <= errors(k - 1, 0));
    BOOST_TEST(ws_num(r, "error_lin_8") > ws_num(r, "error_lin_16"));
    BOOST_TEST(ws_num(r, "error_lin_16") > ws_num(r, "error_lin_32"));
}

BOOST_AUTO_TEST_CASE(random_features_are_the_formula_with_the_seeded_directions) {
    // phi(x)_i = exp(w_i·x − |x|²/2) / sqrt(m), w_i the columns of randn(d, m, seed)
    matrix x = matrix::of({{0.5f, -0.2f, 0.1f}});
    matrix W = kernels::randn(3, 8, 4);
    matrix phi = call("random_features", {value::of(x), num(8), num(4)}).mat();
    const float sq = 0.25f + 0.04f + 0.01f;
    for (std::size_t i = 0; i < 8; ++i) {
        float wx = W(0, i) * 0.5f - W(1, i) * 0.2f + W(2, i) * 0.1f;
        BOOST_TEST(phi(0, i) == std::exp(wx - sq / 2) / std::sqrt(8.0f), tt::tolerance(1e-5f));
    }
}

BOOST_AUTO_TEST_CASE(performer_error_falls_on_average_as_features_grow) {
    matrix Q = scaled(kernels::randn(16, 8, 31), 0.5f), K = scaled(kernels::randn(16, 8, 32), 0.5f), V = kernels::randn(16, 8, 33);
    matrix Z = attention_ref(Q, K, V);
    double previous = INFINITY;
    for (float m : {4.0f, 16.0f, 64.0f, 256.0f, 1024.0f}) {
        double sum = 0;
        for (int seed = 1; seed <= 20; ++seed)
            sum += fro(minus(call("performer_attention", {value::of(Q), value::of(K), value::of(V), num(m), num(float(seed))}).mat(), Z)) / fro(Z);
        double mean = sum / 20;
        BOOST_TEST_MESSAGE("performer m = " << m << ": mean relative error " << mean);
        BOOST_TEST(mean < previous, "m = " << m);
        previous = mean;
        // performer_error is the same average
        BOOST_TEST(call("performer_error", {value::of(Q), value::of(K), value::of(V), num(m), num(20)}).number == mean, tt::tolerance(1e-4));
    }
    BOOST_TEST(previous < 0.1);
    auto r = run(12);
    BOOST_TEST(ws_num(r, "error_16") > ws_num(r, "error_64"));
    BOOST_TEST(ws_num(r, "error_64") > ws_num(r, "error_256"));
    BOOST_TEST(ws_num(r, "error_256") > ws_num(r, "error_1024"));
}

// ---------------------------------------------------------------------------------------------
// Lesson 13: tiled softmax.

BOOST_AUTO_TEST_CASE(tiled_attention_equals_exact_with_ragged_blocks) {
    matrix Q = kernels::randn(37, 8, 41), K = kernels::randn(29, 8, 42), V = kernels::randn(29, 5, 43);
    std::vector<qkv::sub_step> steps;
    matrix Z = call("tiled_attention", {value::of(Q), value::of(K), value::of(V), num(5)}, &steps).mat();
    check_close(Z, attention_ref(Q, K, V), 1e-5f, "tiled");
    BOOST_TEST_REQUIRE(steps.size() == 6u);  // 29 keys in blocks of 5: 5, 5, 5, 5, 5, 4
    BOOST_TEST(steps.back().label == "j = 26…29");
    // the running maximum only rises, and the last one is each row's maximum score
    matrix S = scaled(kernels::matmul_ref(Q, kernels::transpose(K)), 1.0f / std::sqrt(8.0f));
    for (std::size_t b = 1; b < steps.size(); ++b)
        for (std::size_t i = 0; i < 37; ++i) BOOST_TEST(step_mat(steps[b], "m")(i, 0) >= step_mat(steps[b - 1], "m")(i, 0));
    const matrix& m = step_mat(steps.back(), "m");
    const matrix& l = step_mat(steps.back(), "l");
    for (std::size_t i = 0; i < 37; ++i) {
        float best = -INFINITY;
        double sum = 0;
        for (std::size_t j = 0; j < 29; ++j) best = std::max(best, S(i, j));
        for (std::size_t j = 0; j < 29; ++j) sum += std::exp(double(S(i, j)) - best);
        BOOST_TEST(m(i, 0) == best, tt::tolerance(1e-5f));
        BOOST_TEST(l(i, 0) == sum, tt::tolerance(1e-4));
    }
}

BOOST_AUTO_TEST_CASE(tiled_lesson_equals_exact_on_every_scenario) {
    for (const char* data : {apple_file, thinking_file}) {
        auto r = run(13, data);
        const auto& s = r.ws;
        const matrix& X = s.at("X").mat();
        matrix Z = attention_ref(kernels::matmul_ref(X, s.at("W_Q").mat()), kernels::matmul_ref(X, s.at("W_K").mat()),
                                 kernels::matmul_ref(X, s.at("W_V").mat()));
        check_close(ws_mat(r, "Z_tiled"), Z, 1e-5f, data);
        BOOST_TEST(ws_num(r, "difference_64") < 1e-5f);
        BOOST_TEST(ws_num(r, "bytes_S") == 67108864.0f);  // 4096 · 4096 · 4 = 64 MiB
        BOOST_TEST(ws_num(r, "bytes_tile") == 65536.0f);  // 128 · 128 · 4 = 64 KiB
    }
    BOOST_TEST(stage_of(run(13).t, "tiled").steps.size() == 2u);  // 3 keys in blocks of 2
}

// ---------------------------------------------------------------------------------------------
// Lesson 14: positions.

BOOST_AUTO_TEST_CASE(without_positions_the_output_is_the_same_rows_permuted) {
    for (const char* data : {apple_file, thinking_file}) {
        auto r = run(14, data);
        const auto& s = r.ws;
        auto attend = [&](const matrix& X) {
            return attention_ref(kernels::matmul_ref(X, s.at("W_Q").mat()), kernels::matmul_ref(X, s.at("W_K").mat()),
                                 kernels::matmul_ref(X, s.at("W_V").mat()));
        };
        const matrix& X = s.at("X").mat();
        matrix Z = attend(X), Z_reversed = attend(reversed_rows(X));
        // exact in arithmetic; in floats the sums are added in another order, so rounding remains
        check_close(reversed_rows(Z_reversed), Z, 1e-6f, "permuted rows (reference)");
        check_close(ws_mat(r, "Z_reversed"), Z_reversed, 1e-5f, "Z_reversed");
        BOOST_TEST(ws_num(r, "gap_Z") <= 1e-6f);
        BOOST_TEST(ws_num(r, "gap_A") <= 1e-6f);
        BOOST_TEST(ws_num(r, "gap_Z_pos") > 1e-3f, "positions must break the symmetry");
        const value& rev = ws_value(r, "X_reversed");
        const auto& tokens = qkv::load_scenario(data).tokens;
        BOOST_TEST(rev.rows.names.front() == tokens.back());
    }
}

BOOST_AUTO_TEST_CASE(sinusoidal_positions_by_hand) {
    // d = 4: columns 1-2 turn at 1 rad per position, columns 3-4 at 10000^(-2/4) = 0.01
    matrix PE = call("sinusoidal_positions", {num(3), num(4)}).mat();
    BOOST_TEST(PE(0, 0) == 0.0f);
    BOOST_TEST(PE(0, 1) == 1.0f);
    BOOST_TEST(PE(1, 0) == 0.841471f, tt::tolerance(1e-5f));   // sin 1
    BOOST_TEST(PE(1, 1) == 0.540302f, tt::tolerance(1e-5f));   // cos 1
    BOOST_TEST(PE(2, 2) == 0.0199987f, tt::tolerance(1e-4f));  // sin 0.02
    BOOST_TEST(PE(2, 3) == 0.9998f, tt::tolerance(1e-4f));     // cos 0.02
}
