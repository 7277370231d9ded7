// Lessons 0 and 9–11 (the recurrence, the KV cache, cross-attention, tensor parallelism) and their
// built-ins, each central claim held against plain loops, the reference kernels or arithmetic
// worked by hand in the comments; and every lesson of 0 and 9–14 run on every scenario.
#define BOOST_TEST_MODULE lessons_beyond
#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "qkv/builtins.hpp"
#include "qkv/error.hpp"
#include "qkv/token_span.hpp"
#include "support/lesson_suite.hpp"
#include "support/lesson_workspace.hpp"
#include "support/scratch.hpp"

namespace {

std::string write_temp(const std::string& name, const std::string& text) {
    static const scratch_dir scratch("lessons-beyond");
    std::string path = (scratch / name).string();
    std::ofstream(path) << text;
    return path;
}

// A stage's text as text shows it (tokens in quotes), its line breaks as spaces, to find a
// sentence wherever the file broke it.
std::string one_line(const std::string& filled) {
    std::string text = qkv::plain_tokens(filled);
    for (char& c : text)
        if (c == '\n') c = ' ';
    return text;
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

// Issue 40 §5: the GRU beside the RNN. Two steps of the lesson's GRU, looped here entry by entry
// (W_xh = I, W_hh = 0.5·I, so u = x + 0.5·g): z = σ(u − 1), r = σ(u), c = tanh(x + 0.5·r·g),
// g' = (1 − z)·g + z·c, from g_0 = 0.
BOOST_AUTO_TEST_CASE(a_gru_takes_two_steps_and_the_second_waits_for_the_first) {
    for (const char* data : {apple_file, thinking_file, translation_file}) {
        auto r = run(0, data);
        const matrix& X = ws_mat(r, "X");
        auto sigma = [](float v) { return 1.0f / (1.0f + std::exp(-v)); };
        matrix g1(1, X.cols), z2(1, X.cols), r2(1, X.cols), c2(1, X.cols), g2(1, X.cols);
        for (std::size_t j = 0; j < X.cols; ++j) {
            g1(0, j) = sigma(X(0, j) - 1) * std::tanh(X(0, j));
            const float u = X(1, j) + 0.5f * g1(0, j);
            z2(0, j) = sigma(u - 1);
            r2(0, j) = sigma(u);
            c2(0, j) = std::tanh(X(1, j) + 0.5f * r2(0, j) * g1(0, j));
            g2(0, j) = (1 - z2(0, j)) * g1(0, j) + z2(0, j) * c2(0, j);
        }
        BOOST_TEST_CONTEXT(data) {
            check_close(shown_mat(r.t, "gru", "g_1"), g1, 1e-5f, "g_1");
            check_close(shown_mat(r.t, "gru", "z_2"), z2, 1e-5f, "z_2");
            check_close(shown_mat(r.t, "gru", "r_2"), r2, 1e-5f, "r_2");
            check_close(shown_mat(r.t, "gru", "c_2"), c2, 1e-5f, "c_2");
            check_close(shown_mat(r.t, "gru", "g_2"), g2, 1e-5f, "g_2");
        }
    }
    // 苹果很甜, column 1 by hand: z_1 = σ(1.0 − 1) = 0.5, g_1 = 0.5·tanh(1) = 0.380797; column 3 of
    // x_1 is 0, so g_1 is 0 there and step 2 keeps none of it: g_2 = z_2·c_2 = σ(0)·tanh(1) = 0.380797.
    auto r = run(0);
    BOOST_TEST(ws_mat(r, "g_1")(0, 0) == 0.380797f, tt::tolerance(1e-5f));
    BOOST_TEST(ws_mat(r, "g_2")(0, 2) == 0.380797f, tt::tolerance(1e-5f));
    // the stage comes after the count of steps (whose place, stage 6, other suites use), and says
    // the GRU still queues: n = 3 steps, the first token 2 updates from the last
    BOOST_TEST_REQUIRE(r.t.stages.size() == 7u);
    BOOST_TEST(r.t.stages[5].id == "counting");
    BOOST_TEST(r.t.stages[6].id == "gru");
    const std::string text = one_line(r.t.stages[6].text);
    BOOST_TEST(text.find("the GRU too takes 3 sequential steps, and the first token is still 2 updates away") != std::string::npos, text);
    BOOST_TEST(text.find("g_2 = [0.32, 0.08, 0.38, 0.27]") != std::string::npos, text);
    const std::string zh = one_line(stage_of(run(0, apple_file, qkv::lang::zh).t, "gru").text);
    BOOST_TEST(zh.find("GRU 也要走 3 个串行步骤") != std::string::npos, zh);
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


// Issue 40: gathered = traffic() was computed and never shown, and the text spoke of "the table
// below" that was not there. The gather stage shows it, one row per rank; in one process the
// one rank holds every number of W_Q ([d_model, d_model]), computes all of Y ([n, d_model]) and
// sends nothing. The text explains its columns and quotes the row, in both languages.
BOOST_AUTO_TEST_CASE(tensor_parallel_shows_the_traffic_it_speaks_of) {
    for (qkv::lang l : {qkv::lang::en, qkv::lang::zh}) {
        auto r = run(11, apple_file, l);
        const matrix& X = r.ws.at("X").mat();
        const double d_model = double(X.cols), n = double(X.rows);
        for (const auto& [stage, name] : {std::pair{"gather", "gathered"}, std::pair{"all-reduce", "reduced"}}) {
            const matrix& T = shown_mat(r.t, stage, name);
            BOOST_TEST_REQUIRE(T.rows == 1u);
            BOOST_TEST_REQUIRE(T.cols == 7u);
            BOOST_TEST(T(0, 2) == 0.0f);  // sent
            BOOST_TEST(T(0, 3) == 0.0f);  // received
            BOOST_TEST(stage_of(r.t, stage).text.find(name) != std::string::npos, stage_of(r.t, stage).text);
        }
        const matrix& G = shown_mat(r.t, "gather", "gathered");
        BOOST_TEST(G(0, 0) == d_model * d_model);  // held: all of W_Q
        BOOST_TEST(G(0, 1) == n * d_model);        // computed: all of Y
        const std::string held = fmt::format("{}", int(d_model * d_model));
        BOOST_TEST(stage_of(r.t, "gather").text.find(held) != std::string::npos, "the text quotes the row");
        // W_Q, W_K, W_V and W_O, all held by the one process
        BOOST_TEST(shown_mat(r.t, "all-reduce", "reduced")(0, 0) == 4 * d_model * d_model);
    }
}
