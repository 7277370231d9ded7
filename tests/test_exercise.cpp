// Exercises: the shipped files load, every lesson has several of mixed kinds, and the expected
// answers equal arithmetic written out here or the plain reference (support/exercise_reference.hpp).
#define BOOST_TEST_MODULE exercise
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <map>
#include <set>

#include "qkv/exercise.hpp"
#include "qkv/judge.hpp"
#include "support/shipped_exercises.hpp"
#include "support/training.hpp"

using namespace qkv;
using namespace qkv::test;

namespace {

void expect_number(const std::string& id, double want) {
    BOOST_TEST_CONTEXT(id) {
        const exercise_run& r = run_of(id);
        BOOST_REQUIRE(r.expected.is_scalar());
        BOOST_TEST(r.expected.number == want, boost::test_tools::tolerance(1e-3));
        BOOST_TEST(judged(id, number(want)).correct);
    }
}
void expect_row(const std::string& id, const std::vector<double>& want) {
    BOOST_TEST_CONTEXT(id) {
        const exercise_run& r = run_of(id);
        BOOST_REQUIRE(r.expected.is_matrix());
        BOOST_REQUIRE(r.expected.mat().rows == 1u);
        BOOST_REQUIRE(r.expected.mat().cols == want.size());
        for (std::size_t j = 0; j < want.size(); ++j) BOOST_TEST(r.expected.mat()(0, j) == want[j], boost::test_tools::tolerance(1e-3));
        BOOST_TEST(judged(id, row(want)).correct);
    }
}
void expect_shape(const std::string& id, const std::vector<std::size_t>& want) {
    BOOST_TEST_CONTEXT(id) {
        BOOST_TEST(run_of(id).expected.shape() == want, boost::test_tools::per_element());
        BOOST_TEST(judged(id, shape(want)).correct);
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_lesson_has_three_exercises_of_mixed_kinds) {
    std::map<int, std::set<answer_kind>> kinds;
    std::map<int, int> count;
    for (const exercise& e : shipped().all) kinds[e.lesson].insert(e.kind), ++count[e.lesson];
    for (int l = 1; l <= 8; ++l) {
        BOOST_TEST_CONTEXT("lesson " << l) {
            BOOST_TEST(count[l] >= 3);
            BOOST_TEST(kinds[l].size() >= 2u);
        }
    }
}

BOOST_AUTO_TEST_CASE(every_exercise_runs_and_its_mistakes_are_told_apart) {
    for (const exercise& e : shipped().all) {
        BOOST_TEST_CONTEXT(e.id) {
            const exercise_run& r = run_of(e.id);
            BOOST_TEST(!e.hints.empty());
            // Each listed mistake runs on the exercise's own scenario, and its result is far
            // enough from the right answer that the checker can tell them apart.
            std::set<std::string> evaluated;
            for (auto& [id, v] : r.mistake_values) {
                evaluated.insert(id);
                answer a;
                a.kind = e.kind;
                if (e.kind == answer_kind::number) a.number = v.number;
                else if (e.kind == answer_kind::shape) a.shape = v.shape();
                else a.m = v.mat();
                verdict got = judge(e, a, r);
                BOOST_TEST(!got.correct, e.id << ": mistake " << id << " gives the right answer");
                BOOST_TEST(names(got, id));
            }
            for (const mistake_rule& m : e.mistakes) BOOST_TEST(evaluated.count(m.id), e.id << ": " << m.id << " did not run");
        }
    }
}

// The answers a learner works out by hand, checked against the same arithmetic written out here.
BOOST_AUTO_TEST_CASE(hand_computed_answers) {
    expect_number("1.1", 1.0 * 0.1 + 0.3 * 0.0 + 0.0 * 1.0 + 0.5 * 0.4);  // x(苹果)·x(很) = 0.3
    {
        double e1 = std::exp(1.34), e2 = std::exp(0.3), e3 = std::exp(0.8);  // row 苹果 of X·Xᵀ
        double sum = e1 + e2 + e3;                                           // ≈ 7.395
        expect_row("1.2", {e1 / sum, e2 / sum, e3 / sum});                   // ≈ [0.5165, 0.1826, 0.3010]
    }
    expect_number("1.4", 0.8 / (std::sqrt(1.34) * std::sqrt(1.49)));       // ≈ 0.5662
    expect_number("2.1", 0.2 * 0.1 + 1.0 * 0.9 + 0.3 * 0.0 + 0.6 * 0.0);   // 0.92
    expect_shape("2.2", {2, 512});
    expect_shape("3.1", {100, 100});                                        // [100, 64]·[64, 100]
    expect_number("3.2", -0.01 * 1.5 + 0.0 * 0.3 + 1.5 * 1.0 + 0.21 * 0.39);  // s23 = 1.5669
    const double s11 = 1.55 * 0.45 + 0.45 * 1.55 + 0.0 * 0.3 + 0.35 * 0.25;   // 1.4825
    const double s12 = 1.55 * 0.0 + 0.45 * -0.01 + 0.0 * 0.0 + 0.35 * 0.5;   // 0.1705
    const double s13 = 1.55 * 1.5 + 0.45 * 0.3 + 0.0 * 1.0 + 0.35 * 0.39;    // 2.5965
    expect_number("4.1", s13 / 2);                                          // √d_k = √4 = 2
    double a1 = std::exp(s11 / 2), a2 = std::exp(s12 / 2), a3 = std::exp(s13 / 2);
    const double row1_sum = a1 + a2 + a3;
    expect_number("4.2", a3 / row1_sum);                                    // ≈ 0.5347
    const double s31 = 0.3 * 0.45 + 1.5 * 1.55 + 0.45 * 0.3 + 0.32 * 0.25;   // 2.675
    const double s32 = 0.3 * 0.0 + 1.5 * -0.01 + 0.45 * 0.0 + 0.32 * 0.5;    // 0.145
    const double s33 = 0.3 * 1.5 + 1.5 * 0.3 + 0.45 * 1.0 + 0.32 * 0.39;     // 1.4748
    {
        double e1 = std::exp(s31 / 2), e2 = std::exp(s32 / 2), e3 = std::exp(s33 / 2);
        double sum = e1 + e2 + e3;
        expect_row("5.1", {e1 / sum, e2 / sum, e3 / sum});                  // ≈ [0.5462, 0.1541, 0.2997]
    }
    expect_number("5.2", 1.0 / (1.0 + std::exp(-1.0) + std::exp(-2.0)));    // [1000, 999, 998] − 1000
    {
        // z(苹果) = a11·v(苹果) + a12·v(很) + a13·v(甜), with v = rows of X·W_V.
        const double v[3][4] = {{0.93, 0.37, 0.05, 0.45}, {0.16, 0.01, 1.04, 0.32}, {0.38, 0.92, 0.36, 0.37}};
        const double w[3] = {a1 / row1_sum, a2 / row1_sum, a3 / row1_sum};
        std::vector<double> z(4);
        for (int j = 0; j < 4; ++j) z[j] = w[0] * v[0][j] + w[1] * v[1][j] + w[2] * v[2][j];
        expect_row("6.1", z);                                               // ≈ [0.5135, 0.6069, 0.3731, 0.3866]
    }
    expect_number("6.2", (0.93 + 0.16 + 0.38) / 3);                        // 0.49
    expect_shape("6.3", {100, 64});
    {
        const double s21 = -0.01 * 0.45 + 0.0 * 1.55 + 1.5 * 0.3 + 0.21 * 0.25;  // 0.498
        const double s22 = -0.01 * 0.0 + 0.0 * -0.01 + 1.5 * 0.0 + 0.21 * 0.5;   // 0.105
        double e1 = std::exp(s21 / 2), e2 = std::exp(s22 / 2);                   // s23 masked: e^−∞ = 0
        expect_row("7.1", {e1 / (e1 + e2), e2 / (e1 + e2), 0.0});               // ≈ [0.549, 0.451, 0]
    }
    expect_number("7.2", 0.93);                                             // weights [1, 0, 0]: v(苹果)
    expect_shape("8.1", {3, 2});                                            // [3, 4]·[4, 2]
    // 8.3 on apple-wide.toml, head 1 of d_k = 4: q(苹果) = [1.55, 0.45, 0.8, 0.2], k(甜) = [1.5, 0.3, 0.9, 0.1]
    expect_number("8.3", (1.55 * 1.5 + 0.45 * 0.3 + 0.8 * 0.9 + 0.2 * 0.1) / std::sqrt(4.0));  // 3.2 / 2 = 1.6
    expect_shape("8.6", {1, 10, 10});
    expect_shape("9.2", {3, 4});                                            // one row of K per token
    expect_number("9.3", 2.0 * 32 * 32 * 128 * 2 * 4096 / (1024.0 * 1024 * 1024));  // 2³¹ bytes = 2 GiB
}

// The answers that need a machine, against the plain reference above.
BOOST_AUTO_TEST_CASE(computed_answers_against_the_reference) {
    pipeline apple("apple.toml");
    BOOST_TEST_CONTEXT("3.3") {
        const matrix& got = run_of("3.3").expected.mat();
        for (std::size_t i = 0; i < 3; ++i)
            for (std::size_t j = 0; j < 3; ++j) BOOST_TEST(got(i, j) == apple.S[i][j], boost::test_tools::tolerance(1e-4));
        BOOST_TEST(judged("3.3", rows(apple.S)).correct);
    }
    {
        mat Z_cat(3);
        for (std::size_t h = 0; h < 2; ++h) {
            mat A_h = softmax_rows(scaled(mul(apple.head(apple.W_Q, h, 2), tr(apple.head(apple.W_K, h, 2))), std::sqrt(2.0)));
            mat Z_h = mul(A_h, apple.head(apple.W_V, h, 2));
            for (std::size_t i = 0; i < 3; ++i) Z_cat[i].insert(Z_cat[i].end(), Z_h[i].begin(), Z_h[i].end());
        }
        expect_row("8.5", mul(Z_cat, apple.W_O)[0]);  // ≈ [0.5633, 0.7687, 0.5198, 0.3695]
    }
    pipeline tm("thinking-machines.toml");
    mat q = tm.head(tm.W_Q, 0, 64), k = tm.head(tm.W_K, 0, 64);
    expect_number("8.4", mul(q, tr(k))[0][1] / 8.0);  // d_k = 512 / 8 = 64, √64 = 8
    // 4.3 samples 4000 pairs: the variance of q·k/√256 is 1 up to sampling noise (about ±0.03).
    BOOST_TEST(std::fabs(run_of("4.3").expected.number - 1.0) < 0.1);
    {  // 18.1: the trained previous-token head's mean weight one position back, by this file's loop
        const workspace& ws = run_of("18.1").run.ws;
        const matrix& A = ws.at("A1_end").mats.at(static_cast<std::size_t>(ws.at("heads").mat()(0, 1)) - 1);
        double below = 0;
        for (std::size_t i = 1; i < A.rows; ++i) below += A(i, i - 1);
        expect_number("18.1", below / double(A.rows - 1));
    }
    {  // 18.2: the position after the segment's first start; the held-out x repeats it there
        const workspace& ws = run_of("18.2").run.ws;
        const matrix& r = ws.at("r").mat();
        const matrix& x = ws.at("x").mat();
        const auto first = std::size_t(r(0, 0)) - 1, second = std::size_t(r(0, 1)) - 1, length = std::size_t(r(0, 2));
        for (std::size_t k = 0; k < length; ++k) BOOST_TEST(x(0, first + k) == x(0, second + k));
        expect_number("18.2", r(0, 0) + 1);
    }
    expect_shape("18.5", {2, 20, 20});  // lesson 18's two heads per layer on sequences of 20
    {  // 19.1: the named pair's K-composition, ‖OV_1,p·QK_2,iᵀ‖ / (‖OV_1,p‖·‖QK_2,i‖), by this file's loops
        const workspace& ws = run_of("19.1").run.ws;
        const matrix& heads = ws.at("heads").mat();
        const mat OV = of(ws.at("OV_1").mats.at(std::size_t(heads(0, 1)) - 1));
        const mat QK = of(ws.at("QK_2").mats.at(std::size_t(heads(1, 1)) - 1));
        expect_number("19.1", frobenius(mul(OV, tr(QK))) / (frobenius(OV) * frobenius(QK)));
    }
    expect_number("19.3", 32.0 / 2);  // d_k = d_model / heads: the rank of a circuit through d_k dimensions
    expect_shape("19.5", {2, 2});     // lesson 18's two heads of layer 1 by its two of layer 2
}
