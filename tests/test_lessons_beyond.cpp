// Lessons 0 and 9–14 and their built-ins, each central claim held against an independent
// computation: plain loops and the reference kernels (matmul_ref, softmax_rows) in this file,
// or arithmetic worked by hand in the comments.
#define BOOST_TEST_MODULE lessons_beyond
#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "qkv/builtins.hpp"
#include "qkv/error.hpp"
#include "qkv/lapack.hpp"
#include "support/lesson_suite.hpp"
#include "support/scratch.hpp"

namespace {

const value& ws_value(const qkv::lesson_run& r, const std::string& name) {
    auto it = r.ws.find(name);
    BOOST_TEST_REQUIRE((it != r.ws.end()), "workspace lacks " << name);
    return it->second;
}
const matrix& ws_mat(const qkv::lesson_run& r, const std::string& name) {
    const value& v = ws_value(r, name);
    BOOST_TEST_REQUIRE(v.is_matrix(), name << " is not a matrix");
    return v.mat();
}
float ws_num(const qkv::lesson_run& r, const std::string& name) {
    const value& v = ws_value(r, name);
    BOOST_TEST_REQUIRE(v.is_scalar(), name << " is not a scalar");
    return v.number;
}

const matrix& step_mat(const qkv::sub_step& s, const std::string& name) {
    for (const auto& [n, v] : s.values)
        if (n == name) return v.mat();
    BOOST_FAIL("sub-step '" << s.label << "' has no " << name);
    return s.values.front().second.mat();
}


matrix minus(matrix a, const matrix& b) {
    for (std::size_t i = 0; i < a.size(); ++i) a.data[i] -= b.data[i];
    return a;
}
double fro(const matrix& m) {
    double s = 0;
    for (float x : m.data) s += double(x) * x;
    return std::sqrt(s);
}
matrix reversed_rows(const matrix& m) {
    matrix out(m.rows, m.cols);
    for (std::size_t r = 0; r < m.rows; ++r)
        for (std::size_t c = 0; c < m.cols; ++c) out(r, c) = m(m.rows - 1 - r, c);
    return out;
}

// softmax(Q K^T / sqrt(d_k) [+ causal mask]) V by the reference kernels.
matrix attention_ref(const matrix& Q, const matrix& K, const matrix& V, bool causal = false) {
    matrix S = scaled(kernels::matmul_ref(Q, kernels::transpose(K)), 1.0f / std::sqrt(float(K.cols)));
    if (causal)
        for (std::size_t i = 0; i < S.rows; ++i)
            for (std::size_t j = i + 1; j < S.cols; ++j) S(i, j) = -INFINITY;
    return kernels::matmul_ref(kernels::softmax_rows(S), V);
}

// Call a built-in the way a formula does, recording its sub-steps.
value call(const std::string& name, std::vector<value> args, std::vector<qkv::sub_step>* steps = nullptr) {
    const qkv::builtin* b = qkv::find_builtin(name);
    BOOST_TEST_REQUIRE(b != nullptr, "no built-in " << name);
    qkv::eval_context ctx;
    ctx.steps = steps;
    return b->fn(args, ctx);
}
value num(float x) { return value::scalar(x); }

std::string write_temp(const std::string& name, const std::string& text) {
    static const scratch_dir scratch("lessons-beyond");
    std::string path = (scratch / name).string();
    std::ofstream(path) << text;
    return path;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Every new lesson runs in both languages on every scenario, and every number it shows is finite.

BOOST_AUTO_TEST_CASE(every_new_lesson_runs_on_every_scenario_in_both_languages) {
    for (int n : {0, 9, 10, 11, 12, 13, 14})
        for (const char* data : {apple_file, thinking_file, translation_file})
            for (qkv::lang l : {qkv::lang::zh, qkv::lang::en}) {
                BOOST_TEST_CONTEXT("lesson " << n << " on " << data) {
                    auto r = run(n, data, l);
                    BOOST_TEST(r.t.stages.size() >= 5u);
                    for (const auto& s : r.t.stages) {
                        BOOST_TEST(!s.text.empty());
                        BOOST_TEST(!s.values.empty(), "stage " << s.id << " shows nothing");
                        for (const auto& v : s.values) BOOST_TEST(v.v.all_finite(), s.id << ": " << v.name);
                    }
                }
            }
}

// ---------------------------------------------------------------------------------------------
// Lesson 0: the recurrence.

BOOST_AUTO_TEST_CASE(rnn_steps_equal_a_hand_loop) {
    // h_1 = tanh(x_1) for W_xh = I: tanh(1.0) = 0.761594, tanh(0.3) = 0.291313, tanh(0.5) = 0.462117
    auto r = run(0);
    const matrix& H = ws_mat(r, "H");
    BOOST_TEST(H(0, 0) == 0.761594f, tt::tolerance(1e-5f));
    BOOST_TEST(H(0, 1) == 0.291313f, tt::tolerance(1e-5f));
    BOOST_TEST(H(0, 3) == 0.462117f, tt::tolerance(1e-5f));
    // h_t = tanh(x_t + 0.5 h_{t-1}), looped here without any matrix product.
    const matrix& X = ws_mat(r, "X");
    matrix h(1, X.cols), want(X.rows, X.cols);
    for (std::size_t t = 0; t < X.rows; ++t)
        for (std::size_t j = 0; j < X.cols; ++j) want(t, j) = h(0, j) = std::tanh(X(t, j) + 0.5f * h(0, j));
    check_close(H, want, 1e-6f, "H");
    // the stage records one sub-step per token, each with the state of that step
    const auto& steps = stage_of(r.t, "recurrence").steps;
    BOOST_TEST_REQUIRE(steps.size() == X.rows);
    for (std::size_t t = 0; t < X.rows; ++t) check_close(step_mat(steps[t], "h_t"), rows_of(want, t, 1), 1e-6f, steps[t].label);
    BOOST_TEST(steps[1].label == "t = 2");
}

BOOST_AUTO_TEST_CASE(rnn_with_learned_weights_matches_the_reference_loop) {
    matrix X = kernels::randn(5, 3, 11), W_xh = scaled(kernels::randn(3, 4, 12), 0.5f), W_hh = scaled(kernels::randn(4, 4, 13), 0.5f);
    std::vector<qkv::sub_step> steps;
    matrix H = call("rnn", {value::of(X), value::of(W_xh), value::of(W_hh)}, &steps).mat();
    matrix h(1, 4), want(5, 4);
    for (std::size_t t = 0; t < 5; ++t) {
        matrix pre = kernels::matmul_ref(rows_of(X, t, 1), W_xh), carried = kernels::matmul_ref(h, W_hh);
        for (std::size_t j = 0; j < 4; ++j) want(t, j) = h(0, j) = std::tanh(pre(0, j) + carried(0, j));
    }
    check_close(H, want, 1e-5f, "rnn");
    BOOST_TEST(steps.size() == 5u);
    // rnn_influence: |h_t - h'_t| against a run with x_1 = 0, done here with rnn itself
    matrix X0 = X;
    for (std::size_t j = 0; j < 3; ++j) X0(0, j) = 0;
    matrix D = minus(H, call("rnn", {value::of(X0), value::of(W_xh), value::of(W_hh)}).mat());
    matrix influence = call("rnn_influence", {value::of(X), value::of(W_xh), value::of(W_hh)}).mat();
    for (std::size_t t = 0; t < 5; ++t) BOOST_TEST(influence(t, 0) == fro(rows_of(D, t, 1)), tt::tolerance(1e-5));
}

BOOST_AUTO_TEST_CASE(the_first_token_fades_and_attention_reaches_it_in_one_step) {
    auto r = run(0);
    const matrix& fade = ws_mat(r, "fade");
    BOOST_TEST(fade(0, 0) > fade(1, 0));
    BOOST_TEST(fade(1, 0) > fade(2, 0));
    const matrix& fade_long = ws_mat(r, "fade_long");
    // W_hh = 0.5 I and |tanh'| <= 1: the difference at least halves every step
    for (std::size_t t = 1; t < fade_long.rows; ++t) BOOST_TEST(fade_long(t, 0) <= 0.5f * fade_long(t - 1, 0) + 1e-7f);
    BOOST_TEST(ws_num(r, "last") < 1e-6f);
    BOOST_TEST(ws_num(r, "rnn_sequential_steps") == 3.0f);  // n = 3
    BOOST_TEST(ws_num(r, "rnn_longest_path") == 2.0f);
    BOOST_TEST(ws_num(r, "attention_longest_path") == 1.0f);
}

// ---------------------------------------------------------------------------------------------
// Lesson 9: the KV cache.

void check_kv_cache_lesson(const char* scenario_file) {
    auto r = run(9, scenario_file);
    const auto& s = r.ws;
    const matrix& X = s.at("X").mat();
    matrix Q = kernels::matmul_ref(X, s.at("W_Q").mat()), K = kernels::matmul_ref(X, s.at("W_K").mat()),
           V = kernels::matmul_ref(X, s.at("W_V").mat());
    matrix want = attention_ref(Q, K, V, true);  // full causal attention, independently
    check_close(ws_mat(r, "Z_cached"), want, 1e-5f, "Z_cached");
    BOOST_TEST(ws_num(r, "largest_difference") <= 1e-5f);
    const auto& steps = stage_of(r.t, "decode").steps;
    BOOST_TEST_REQUIRE(steps.size() == X.rows);
    for (std::size_t t = 0; t < X.rows; ++t) {
        // the cache at step t holds exactly the keys and values of tokens 1..t
        check_close(step_mat(steps[t], "K_cache"), rows_of(K, 0, t + 1), 1e-4f, "K_cache");
        check_close(step_mat(steps[t], "V_cache"), rows_of(V, 0, t + 1), 1e-4f, "V_cache");
        check_close(step_mat(steps[t], "z_t"), rows_of(want, t, 1), 1e-5f, "z_t");
    }
}

BOOST_AUTO_TEST_CASE(kv_cache_output_equals_full_causal_attention) {
    check_kv_cache_lesson(apple_file);
    check_kv_cache_lesson(thinking_file);
    check_kv_cache_lesson(translation_file);
}

BOOST_AUTO_TEST_CASE(kv_cache_work_and_memory_are_the_formulas_on_paper) {
    auto r = run(9);
    // step t = 3, d_model = d_k = 4: without 3·3·4·4 + 2·9·4 = 144 + 72 = 216; with 48 + 2·3·4 = 72
    BOOST_TEST(ws_mat(r, "madds_without_cache")(2, 0) == 216.0f);
    BOOST_TEST(ws_mat(r, "madds_with_cache")(2, 0) == 72.0f);
    // 2 · 32 layers · 32 heads · 128 · 2 bytes = 524 288 bytes per token; · 4096 = 2^31 bytes = 2 GiB
    BOOST_TEST(ws_num(r, "bytes_per_token") == 524288.0f);
    BOOST_TEST(ws_num(r, "cache_GiB") == 2.0f);
    BOOST_TEST(ws_num(r, "cache_GiB_gqa") == 0.5f);   // 8 K/V heads instead of 32
    BOOST_TEST(ws_num(r, "cache_MiB_mqa") == 64.0f);  // 1 K/V head: 2 GiB / 32
}

// ---------------------------------------------------------------------------------------------
// Lesson 10 and the second sequence of a scenario.

BOOST_AUTO_TEST_CASE(cross_attention_weights_are_target_by_source) {
    auto r = run(10, translation_file);
    const auto& s = r.ws;
    matrix Q = kernels::matmul_ref(s.at("X").mat(), s.at("W_Q").mat());      // [4, 4]
    matrix K = kernels::matmul_ref(s.at("X_src").mat(), s.at("W_K").mat());  // [3, 4]
    matrix A = kernels::softmax_rows(scaled(kernels::matmul_ref(Q, kernels::transpose(K)), 0.5f));
    const value& got = ws_value(r, "A");
    check_close(got.mat(), A, 1e-6f, "A");
    BOOST_TEST((got.rows.names == std::vector<std::string>{"apples", "are", "very", "sweet"}));
    BOOST_TEST((got.cols.names == std::vector<std::string>{"苹果", "很", "甜"}));
    // the alignment the scenario was made for: row apples is largest at 苹果, very at 很, sweet at 甜
    BOOST_TEST(A(0, 0) > A(0, 1));
    BOOST_TEST(A(0, 0) > A(0, 2));
    BOOST_TEST(A(2, 1) > A(2, 0));
    BOOST_TEST(A(3, 2) > A(3, 0));
    BOOST_TEST(ws_num(r, "same") == 0.0f);
}

BOOST_AUTO_TEST_CASE(a_scenario_without_a_source_uses_its_own_sequence) {
    qkv::scenario s = qkv::load_scenario(apple_file);
    BOOST_TEST(s.source_tokens.empty());
    auto ws = qkv::initial_workspace(s);
    BOOST_TEST((ws.at("X_src").mat() == s.matrices.at("X")));
    BOOST_TEST((ws.at("X_src").rows.names == s.tokens));
    qkv::scenario t = qkv::load_scenario(translation_file);
    BOOST_TEST((t.source_tokens == std::vector<std::string>{"苹果", "很", "甜"}));
    BOOST_TEST((qkv::initial_workspace(t).at("X_src").rows.names == t.source_tokens));
}

BOOST_AUTO_TEST_CASE(a_broken_second_sequence_is_reported_with_its_line) {
    auto expect_error = [](const std::string& name, const std::string& text, const std::string& piece) {
        std::string path = write_temp(name, text);
        try {
            qkv::load_scenario(path);
            BOOST_ERROR(name << ": no error");
        } catch (const qkv::input_error& e) {
            BOOST_TEST(std::string(e.what()).find(piece) != std::string::npos, e.what());
            BOOST_TEST(e.where().file == path);
        }
        std::remove(path.c_str());
    };
    const std::string head = "tokens = [\"a\", \"b\"]\n";
    expect_error("qkv-src-1.toml", head + "[matrices]\nX = [[1.0, 2.0], [3.0, 4.0]]\nX_src = [[1.0, 2.0]]\n",
                 "X_src needs 'source_tokens");
    expect_error("qkv-src-2.toml", head + "source_tokens = [\"c\"]\n[matrices]\nX = [[1.0, 2.0], [3.0, 4.0]]\n",
                 "has no X_src");
    expect_error("qkv-src-3.toml", head + "source_tokens = [\"c\", \"d\"]\n[matrices]\nX = [[1.0, 2.0], [3.0, 4.0]]\nX_src = [[1.0, 2.0]]\n",
                 "X_src has 1 rows but there are 2 source tokens");
    expect_error("qkv-src-4.toml", head + "source_tokens = [\"c\"]\n[matrices]\nX = [[1.0, 2.0], [3.0, 4.0]]\nX_src = [[1.0, 2.0, 3.0]]\n",
                 "both sequences need d_model = 2 columns");
}

// ---------------------------------------------------------------------------------------------
// Lesson 11: tensor parallelism.

void check_tensor_parallel(const char* scenario_file) {
    auto r = run(11, scenario_file);
    const auto& s = r.ws;
    const matrix& X = s.at("X").mat();
    matrix Y = kernels::matmul_ref(X, s.at("W_Q").mat());
    check_close(ws_mat(r, "Y_gathered"), Y, 1e-5f, "[X·A1, X·A2]");
    // one device per head: Y cut into h parts of d_model / h columns
    const std::size_t h = *qkv::load_scenario(scenario_file).heads, d_k = X.cols / h;
    const value& parts = ws_value(r, "Y_parts");
    BOOST_TEST_REQUIRE(parts.mats.size() == h);
    BOOST_TEST(parts.mats[0].cols == Y.cols / h);
    // the heads on their devices, then the all-reduce: the whole multi-head layer by the kernels
    matrix Q = kernels::matmul_ref(X, s.at("W_Q").mat()), K = kernels::matmul_ref(X, s.at("W_K").mat()),
           V = kernels::matmul_ref(X, s.at("W_V").mat());
    matrix Z_cat(X.rows, X.cols);
    for (std::size_t i = 0; i < h; ++i) {
        auto cols = [&](const matrix& M) {
            matrix out(M.rows, d_k);
            for (std::size_t r2 = 0; r2 < M.rows; ++r2)
                for (std::size_t c = 0; c < d_k; ++c) out(r2, c) = M(r2, i * d_k + c);
            return out;
        };
        matrix head = attention_ref(cols(Q), cols(K), cols(V));
        for (std::size_t r2 = 0; r2 < X.rows; ++r2)
            for (std::size_t c = 0; c < d_k; ++c) Z_cat(r2, i * d_k + c) = head(r2, c);
    }
    check_close(ws_mat(r, "Z_parallel"), kernels::matmul_ref(Z_cat, s.at("W_O").mat()), 1e-5f, "all-reduce");
}

BOOST_AUTO_TEST_CASE(tensor_parallel_concatenation_and_sum_equal_the_whole) {
    check_tensor_parallel(apple_file);
    check_tensor_parallel(thinking_file);
    // split_cols and concat_cols are inverses, and each part is the matching columns
    matrix A = kernels::randn(3, 6, 5);
    value parts = call("split_cols", {value::of(A), num(3)});
    BOOST_TEST(parts.mats.size() == 3u);
    BOOST_TEST(parts.mats[1](2, 1) == A(2, 3));  // part 2, column 2 is column 4 of A
    BOOST_TEST((call("concat_cols", {parts}).mat() == A));
}

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
