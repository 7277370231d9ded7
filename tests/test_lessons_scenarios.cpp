// Every core lesson on both scenarios, its numbers finite but where they are meant not to be, and
// Thinking Machines (d_model 512, 8 heads) held to the reference kernels.
#define BOOST_TEST_MODULE lessons_scenarios
#include <boost/test/unit_test.hpp>

#include <set>

#include "support/lesson_suite.hpp"

// Values that are not finite on purpose: the naive softmax's NaN and the mask's −∞.
const std::set<std::string> meant_not_finite = {"p_naive", "A_naive", "M", "S_masked"};

BOOST_AUTO_TEST_CASE(every_lesson_runs_on_both_scenarios_and_stays_finite) {
    for (const char* file : {apple_file, thinking_file})
        for (int n = 1; n <= 8; ++n) {
            BOOST_TEST_CONTEXT("lesson " << n << " on " << file) {
                const auto r = run(n, file);
                BOOST_TEST(r.t.stages.size() >= 4u);
                for (const auto& s : r.t.stages)
                    for (const auto& v : s.values)
                        if (!meant_not_finite.count(v.name)) BOOST_TEST(v.v.all_finite(), s.id << ": " << v.name);
            }
        }
}

BOOST_AUTO_TEST_CASE(thinking_machines_numbers) {
    const qkv::scenario s = qkv::load_scenario(thinking_file);
    BOOST_TEST(s.tokens.size() == 2u);
    BOOST_TEST_REQUIRE(s.heads.has_value());
    BOOST_TEST(*s.heads == 8u);
    const matrix& X = s.matrices.at("X");  // [2, 512]
    const matrix Q = kernels::matmul_ref(X, s.matrices.at("W_Q"));
    const matrix K = kernels::matmul_ref(X, s.matrices.at("W_K"));
    const matrix S = kernels::matmul_ref(Q, kernels::transpose(K));  // [2, 2]
    // Single-head lessons use d_k = d_model = 512.
    const auto t4 = run(4, thinking_file).t;
    BOOST_TEST(shown_num(t4, "scaled", "d_k") == 512.0f);
    check_close(shown_mat(t4, "scaled", "S"), S, 1e-2f, "Thinking Machines S");
    check_close(shown_mat(t4, "effect", "A"), kernels::softmax_rows(scaled(S, 1 / std::sqrt(512.0f))), 1e-4f,
                "Thinking Machines A");
    // Lesson 8 splits into 8 heads of 64.
    const auto t8 = run(8, thinking_file).t;
    BOOST_TEST(shown_num(t8, "split", "d_k") == 64.0f);
    BOOST_TEST((shown(t8, "split", "Q_h").shape() == std::vector<std::size_t>{8, 2, 64}));
    check_close(shown(t8, "split", "Q_h").mats[7], columns(Q, 448, 64), 1e-3f, "head 8 of Q");
    for (const matrix& head : shown(t8, "head-weights", "A_h").mats) check_rows_sum_to_one(head, "A_h");
    BOOST_TEST(shown_num(t8, "sum-of-heads", "same") <= 1e-4f);
}
