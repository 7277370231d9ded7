// Exercises: the shipped files load; the expected answers equal arithmetic written out here; every
// mistake in the vocabulary is recognised on a wrong answer built here with plain loops; wrong
// answers are explained (which dimension, which cells); malformed files say file:line.
#define BOOST_TEST_MODULE exercise
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "qkv/exercise.hpp"
#include "qkv/judge.hpp"
#include "qkv/toml_file.hpp"
#include "qkv/scenario.hpp"
#include "support/training.hpp"

using namespace qkv;
namespace fs = std::filesystem;

namespace {

// --- a plain reference, independent of the formula language and of BLAS ----------------------

using mat = std::vector<std::vector<double>>;

mat of(const matrix& m) {
    mat out(m.rows, std::vector<double>(m.cols));
    for (std::size_t i = 0; i < m.rows; ++i)
        for (std::size_t j = 0; j < m.cols; ++j) out[i][j] = m(i, j);
    return out;
}
mat mul(const mat& a, const mat& b) {
    mat out(a.size(), std::vector<double>(b[0].size(), 0.0));
    for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t k = 0; k < b.size(); ++k)
            for (std::size_t j = 0; j < b[0].size(); ++j) out[i][j] += a[i][k] * b[k][j];
    return out;
}
mat tr(const mat& a) {
    mat out(a[0].size(), std::vector<double>(a.size()));
    for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t j = 0; j < a[0].size(); ++j) out[j][i] = a[i][j];
    return out;
}
mat scaled(mat a, double by) {
    for (auto& r : a)
        for (double& x : r) x /= by;
    return a;
}
mat exp_of(mat a) {
    for (auto& r : a)
        for (double& x : r) x = std::exp(x);
    return a;
}
mat softmax_rows(const mat& a) {
    mat e = exp_of(a);  // small scores here: no overflow, no max needed
    for (auto& r : e) {
        double sum = 0;
        for (double x : r) sum += x;
        for (double& x : r) x /= sum;
    }
    return e;
}
mat softmax_columns(const mat& a) { return tr(softmax_rows(tr(a))); }
mat columns(const mat& a, std::size_t from, std::size_t count) {
    mat out;
    for (auto& r : a) out.emplace_back(r.begin() + from, r.begin() + from + count);
    return out;
}
// −∞ where keep(i, j) is false: exp gives exactly 0 there.
template <class F>
mat masked(mat a, F keep) {
    for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t j = 0; j < a[i].size(); ++j)
            if (!keep(i, j)) a[i][j] = -INFINITY;
    return a;
}

struct pipeline {  // 苹果很甜, one head
    mat X, W_Q, W_K, W_V, W_O, Q, K, V, S, S_scaled;
    explicit pipeline(const std::string& file) {
        scenario s = load_scenario((fs::path(data_dir()) / file).string());
        X = of(s.matrices.at("X")), W_Q = of(s.matrices.at("W_Q")), W_K = of(s.matrices.at("W_K"));
        W_V = of(s.matrices.at("W_V")), W_O = of(s.matrices.at("W_O"));
        Q = mul(X, W_Q), K = mul(X, W_K), V = mul(X, W_V);
        S = mul(Q, tr(K));                                            // S: [n, n]
        S_scaled = scaled(S, std::sqrt(static_cast<double>(K[0].size())));
    }
    // Head h (from 0) of width d_k: its slice of the projections.
    mat head(const mat& W, std::size_t h, std::size_t d_k) const { return mul(X, columns(W, h * d_k, d_k)); }
};

// --- the shipped exercises ----------------------------------------------------------------

const exercise_set& shipped() {
    static const exercise_set set = load_exercises(exercises_dir());
    return set;
}
const exercise& ex(const std::string& id) {
    const exercise* e = find_exercise(shipped(), id);
    BOOST_REQUIRE_MESSAGE(e, "no exercise " << id);
    return *e;
}
const exercise_run& run_of(const std::string& id) {
    static std::map<std::string, exercise_run> cache;
    if (!cache.count(id)) cache.emplace(id, run_exercise(ex(id), lang::en));
    return cache.at(id);
}

answer number(double x) { answer a; a.kind = answer_kind::number; a.number = x; return a; }
answer shape(std::vector<std::size_t> s) { answer a; a.kind = answer_kind::shape; a.shape = std::move(s); return a; }
answer rows(const mat& m) {
    answer a;
    a.kind = answer_kind::matrix;
    a.m = matrix(m.size(), m[0].size());
    for (std::size_t i = 0; i < m.size(); ++i)
        for (std::size_t j = 0; j < m[0].size(); ++j) a.m(i, j) = static_cast<float>(m[i][j]);
    return a;
}
answer row(const std::vector<double>& r) { return rows(mat{r}); }
answer choice(char c) { answer a; a.kind = answer_kind::choice; a.choice = c; return a; }

verdict judged(const std::string& id, const answer& a) { return judge(ex(id), a, run_of(id)); }

// The error reading an exercise file (as x.toml) gives, or "no error".
std::string exercise_file_error(const std::string& text, const mistake_book& book) {
    try {
        parse_exercises(text, "x.toml", book);
    } catch (const input_error& e) {
        return std::string(e.what());
    }
    return "no error";
}

bool names(const verdict& v, const std::string& mistake) {
    return std::find(v.mistakes.begin(), v.mistakes.end(), mistake) != v.mistakes.end();
}

std::string joined(const std::vector<std::string>& lines) {
    std::string out;
    for (auto& l : lines) out += l + "\n";
    return out;
}

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
    expect_number("8.3", (1.55 * 1.5 + 0.45 * 0.3) / std::sqrt(2.0));       // head 1: 2.46 / √2
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
}

// Each mistake of the vocabulary, made here by hand and fed to the checker, is named.
BOOST_AUTO_TEST_CASE(every_mistake_is_recognised) {
    pipeline p("apple.toml");
    std::map<std::string, verdict> seen;
    seen["no_scale"] = judged("4.2", number(softmax_rows(p.S)[0][2]));                    // ≈ 0.7059
    seen["scale_by_d_k"] = judged("4.1", number(p.S[0][2] / 4));                          // ÷ d_k = 4
    seen["softmax_columns"] = judged("5.1", row(softmax_columns(p.S_scaled)[2]));
    seen["k_not_transposed"] = judged("3.3", rows(mul(p.K, tr(p.Q))));                    // K·Qᵀ = Sᵀ
    seen["no_causal_mask"] = judged("7.1", row(softmax_rows(p.S_scaled)[1]));
    seen["wrong_triangle"] = judged("7.1", row(softmax_rows(masked(p.S_scaled, [](auto i, auto j) { return j >= i; }))[1]));
    seen["exp_not_normalised"] = judged("1.2", row(exp_of(mul(p.X, tr(p.X)))[0]));
    seen["no_softmax"] = judged("6.1", row(mul(p.S_scaled, p.V)[0]));
    {
        mat Z_cat(3);
        for (std::size_t h = 0; h < 2; ++h) {
            mat A_h = softmax_rows(scaled(mul(p.head(p.W_Q, h, 2), tr(p.head(p.W_K, h, 2))), std::sqrt(2.0)));
            mat Z_h = mul(A_h, p.head(p.W_V, h, 2));
            for (std::size_t i = 0; i < 3; ++i) Z_cat[i].insert(Z_cat[i].end(), Z_h[i].begin(), Z_h[i].end());
        }
        seen["concat_without_W_O"] = judged("8.5", row(Z_cat[0]));
    }
    pipeline tm("thinking-machines.toml");
    double s12 = mul(tm.head(tm.W_Q, 0, 64), tr(tm.head(tm.W_K, 0, 64)))[0][1];
    seen["scale_by_sqrt_d_model"] = judged("8.4", number(s12 / std::sqrt(512.0)));
    seen["cache_only_k_or_v"] = judged("9.3", number(32.0 * 32 * 128 * 2 * 4096 / (1024.0 * 1024 * 1024)));  // K alone: 1 GiB
    seen["shape_swapped"] = judged("6.3", shape({64, 100}));                              // (d_v, n) for (n, d_v)
    seen["batch_first"] = judged("8.6", shape({10, 1, 10}));                               // (tokens, batch, tokens)
    seen["per_head_weights"] = judged("8.6", shape({8, 10, 10}));                          // the 8 heads not averaged
    seen["unsplit_head"] = judged("8.1", shape({3, 4}));                                   // d_model = 4 for d_k = 2
    seen["q_shape_for_s"] = judged("3.1", shape({100, 64}));                               // Q is [100, 64]
    seen["mask_off_by_one"] = judged("7.1", row({1.0, 0.0, 0.0}));                         // j < 2: token 1 alone
    seen["wrong_row"] = judged("6.1", row(mul(softmax_rows(p.S_scaled), p.V)[1]));         // z(很) for z(苹果)
    {
        std::vector<double> no_tanh, no_memory;  // h_2 of lesson 0's RNN: tanh(x_2 + 0.5·tanh(x_1))
        for (std::size_t j = 0; j < p.X[0].size(); ++j) {
            no_tanh.push_back(p.X[1][j] + 0.5 * std::tanh(p.X[0][j]));
            no_memory.push_back(std::tanh(p.X[1][j]));
        }
        seen["rnn_no_tanh"] = judged("0.1", row(no_tanh));
        seen["rnn_no_memory"] = judged("0.1", row(no_memory));
    }
    double l_without_max = 0;  // lesson 13's l for row 1, summed against 0 instead of the row's max
    for (double s : p.S_scaled[0]) l_without_max += std::exp(s);
    seen["no_max_subtracted"] = judged("13.1", number(l_without_max));
    {  // lesson 16's backward pass by hand, the target v(甜) in every row
        mat A = softmax_rows(p.S_scaled), dZ = mul(A, p.V);
        for (auto& r : dZ)
            for (std::size_t c = 0; c < r.size(); ++c) r[c] -= p.V[2][c];
        mat dA = mul(dZ, tr(p.V)), dS = dA;
        for (std::size_t i = 0; i < 3; ++i) {
            double dot = 0;  // rowsum(dA ⊙ A)
            for (std::size_t j = 0; j < 3; ++j) dot += dA[i][j] * A[i][j];
            for (std::size_t j = 0; j < 3; ++j) dS[i][j] = A[i][j] * (dA[i][j] - dot);
        }
        seen["forgot_transpose_dV"] = judged("16.1", row(mul(A, dZ)[0]));
        seen["dropped_rowsum"] = judged("16.2", number(A[0][1] * dA[0][1]));
        seen["no_softmax_backward"] = judged("16.2", number(dA[0][1]));
        seen["forgot_sqrt_d_k_backward"] = judged("16.3", number(mul(dS, p.K)[0][0]));
        const workspace& ws = run_of("17.1").run.ws;  // lesson 17's random start, one step up the gradient
        seen["gradient_ascent"] = judged("17.1", number(ws.at("W_Q0").mat()(0, 0) + ws.at("lr").number * ws.at("dW_Q").mat()(0, 0)));
    }
    {  // lesson 18's trained heads, read off the run's own attention maps with this file's loops
        const workspace& ws = run_of("18.1").run.ws;
        const std::size_t head = static_cast<std::size_t>(ws.at("heads").mat()(0, 1)) - 1;
        const matrix& A = ws.at("A1_end").mats.at(head);
        double diagonal = 0, below = 0;
        for (std::size_t i = 0; i < A.rows; ++i) diagonal += A(i, i);
        for (std::size_t i = 1; i < A.rows; ++i) below += A(i, i - 1);
        seen["self_weight"] = judged("18.1", number(diagonal / double(A.rows)));
        seen["all_positions_averaged"] = judged("18.1", number(below / double(A.rows)));  // T, not T − 1
        const matrix& r = run_of("18.2").run.ws.at("r").mat();  // first, second, length
        seen["duplicate_token"] = judged("18.2", number(r(0, 0)));
        seen["previous_position"] = judged("18.2", number(r(0, 1) - 1));
        const workspace& off = run_of("18.3").run.ws;
        seen["whole_sequence_loss"] = judged("18.3", number(off.at("L_off").mat()(0, 0) - off.at("L_on").mat()(0, 0)));
    }
    for (auto& [id, v] : seen) {
        BOOST_TEST_CONTEXT(id) {
            BOOST_TEST(!v.correct);
            BOOST_TEST(names(v, id));
        }
    }
    for (auto& [id, d] : shipped().book) BOOST_TEST(seen.count(id), "no test makes the mistake " << id);

    // The other forms of the transpose mistake: Kᵀ·Q is [4, 4], and its shape in 3.1 is [64, 64].
    BOOST_TEST(names(judged("3.3", rows(mul(tr(p.K), p.Q))), "k_not_transposed"));
    BOOST_TEST(names(judged("3.1", shape({64, 64})), "k_not_transposed"));
    BOOST_TEST(names(judged("3.2", number(p.S[2][1])), "k_not_transposed"));  // s32 read for s23
    // With d_model = 4 and d_k = 2, ÷ d_k and ÷ √d_model give the same number: both are named.
    verdict both = judged("8.3", number(2.46 / 2));
    BOOST_TEST(names(both, "scale_by_d_k"));
    BOOST_TEST(names(both, "scale_by_sqrt_d_model"));
}

BOOST_AUTO_TEST_CASE(wrong_answers_say_what_is_wrong) {
    const mistake_book& book = shipped().book;
    {   // shape: which dimension
        answer a = shape({100, 64});
        verdict v = judged("3.1", a);
        BOOST_TEST(!v.correct);
        BOOST_TEST(v.dims_off == std::vector<std::size_t>{1}, boost::test_tools::per_element());
        std::string text = joined(explain(v, ex("3.1"), a, run_of("3.1"), book, lang::en));
        BOOST_TEST(text.find("Dimension 1: 100 is right.") != std::string::npos, text);
        BOOST_TEST(text.find("Dimension 2: 64 is not right.") != std::string::npos, text);
        std::string zh = joined(explain(v, ex("3.1"), a, run_of("3.1"), book, lang::zh));
        BOOST_TEST(zh.find("第 2 维：64 不对。") != std::string::npos, zh);
        verdict rank = judged("3.1", shape({100, 100, 1}));
        BOOST_TEST(joined(explain(rank, ex("3.1"), shape({100, 100, 1}), run_of("3.1"), book, lang::en)).find("The result has 2 dimensions, not 3.") != std::string::npos);
    }
    {   // matrix: which cells, and which way
        pipeline p("apple.toml");
        mat off = p.S;
        off[1][2] += 0.5;   // row 很, column 甜 too high
        off[2][0] -= 0.3;   // row 甜, column 苹果 too low
        answer a = rows(off);
        verdict v = judged("3.3", a);
        BOOST_TEST(!v.correct);
        BOOST_REQUIRE(v.cells_off.size() == 2u);
        BOOST_TEST(v.cells_off[0].row == 1u);
        BOOST_TEST(v.cells_off[0].col == 2u);
        BOOST_TEST(v.mistakes.empty());
        std::string text = joined(explain(v, ex("3.3"), a, run_of("3.3"), book, lang::en));
        BOOST_TEST(text.find("2 of 9 cells are off") != std::string::npos, text);
        BOOST_TEST(text.find("row 2 (很), column 3 (甜)") != std::string::npos, text);
        BOOST_TEST(text.find("too high") != std::string::npos);
        BOOST_TEST(text.find("row 3 (甜), column 1 (苹果)") != std::string::npos);
        BOOST_TEST(text.find("too low") != std::string::npos);
        // A matrix of a shape no mistake produces cannot be compared at all.
        BOOST_CHECK_THROW(judged("3.3", rows(mat{{1, 2}, {3, 4}})), input_error);
    }
    {   // number: which way, and the mistake's description
        answer a = number(1.0);
        std::string text = joined(explain(judged("3.2", a), ex("3.2"), a, run_of("3.2"), book, lang::en));
        BOOST_TEST(text.find("1 is too low (tolerance ±0.01).") != std::string::npos, text);
        answer m = number(0.145);
        std::string named = joined(explain(judged("3.2", m), ex("3.2"), m, run_of("3.2"), book, lang::en));
        BOOST_TEST(named.find(book.at("k_not_transposed").en) != std::string::npos, named);
    }
    {   // choice: what is wrong with that choice, without giving the answer away
        verdict v = judged("1.3", choice('C'));
        BOOST_TEST(!v.correct);
        std::string text = joined(explain(v, ex("1.3"), choice('C'), run_of("1.3"), book, lang::en));
        BOOST_TEST(text.find("C is not right.") != std::string::npos);
        BOOST_TEST(text.find(ex("1.3").why_not.at('C').en) != std::string::npos);
        BOOST_TEST(judged("1.3", choice('A')).correct);  // its options reordered: answers spread over A-D
        BOOST_TEST(judged("8.2", choice('B')).correct);  // the article's answer
    }
    BOOST_TEST(judged("3.2", number(1.5669 + 0.009)).correct);   // inside the tolerance
    BOOST_TEST(!judged("3.2", number(1.5669 + 0.011)).correct);  // outside it
}

BOOST_AUTO_TEST_CASE(malformed_files_say_where) {
    mistake_book book = parse_mistakes("[no_scale]\nzh = \"忘了缩放\"\nen = \"forgot to scale\"\n", "m.toml");
    auto error_of = [&](const std::string& text) { return exercise_file_error(text, book); };
    const std::string head = "lesson = 3\n[[exercise]]\nid = \"3.1\"\nkind = \"number\"\n"
                             "question = { zh = \"问\", en = \"q\" }\nsolution = { zh = \"解\", en = \"s\" }\n"
                             "hints = [{ zh = \"提示\", en = \"h\" }]\n";
    BOOST_TEST(error_of(head + "expected = \"S[2, 3]\"\n") == "no error");
    std::string e = error_of(head + "expected = \"S[2, 3]\"\ncolour = 1\n");
    BOOST_TEST(e.find("x.toml:9:") == 0u, e);
    BOOST_TEST(e.find("unknown key 'colour'") != std::string::npos, e);
    e = error_of(head + "expected = \"S[2, 3]\"\nmistakes = { forgot_everything = \"S\" }\n");
    BOOST_TEST(e.find("x.toml:9:") == 0u, e);
    BOOST_TEST(e.find("'forgot_everything' is not in mistakes.toml") != std::string::npos, e);
    e = error_of(head + "expected = \"S[2, \"\n");
    BOOST_TEST(e.find("x.toml:8:") == 0u, e);  // the formula's own position
    e = error_of(head + "expected = \"S\"\nanswer = \"B\"\n");
    BOOST_TEST(e.find("only a choice has 'answer'") != std::string::npos, e);
    e = error_of(head);
    BOOST_TEST(e.find("missing 'expected'") != std::string::npos, e);
    e = error_of("lesson = 4\n" + head.substr(head.find('\n') + 1) + "expected = \"S\"\n");
    BOOST_TEST(e.find("id '3.1' must be 4.K") != std::string::npos, e);
    // lesson 0 (why attention) has exercises too; a negative lesson is no lesson
    std::string zero = head;
    zero.replace(zero.find("lesson = 3"), 10, "lesson = 0");
    zero.replace(zero.find("3.1"), 3, "0.1");
    BOOST_TEST(error_of(zero + "expected = \"S\"\n") == "no error");
    e = error_of("lesson = -1\n" + head.substr(head.find('\n') + 1) + "expected = \"S\"\n");
    BOOST_TEST(e.find("lesson must be a lesson number") != std::string::npos, e);
    e = error_of("lesson = 3\n[[exercise]]\nid = \"3.1\"\nkind = \"choice\"\nquestion = { zh = \"问\", en = \"q\" }\n"
                 "solution = { zh = \"解\", en = \"\" }\nhints = [{ zh = \"提示\", en = \"h\" }]\n");
    BOOST_TEST(e.find("zh and en must both be written") != std::string::npos, e);
}

// For `qkv validate`: the same reader lists every problem, each at its line, and returns the
// exercises that read cleanly.
BOOST_AUTO_TEST_CASE(a_wrong_shape_written_out_is_a_mistake_too) {
    // PyTorch's per-head weights are [1, 8, 10, 10]: four dimensions, which no formula value has,
    // so 8.6 names that mistake with shape(1, 8, 10, 10)
    verdict v = judged("8.6", shape({1, 8, 10, 10}));
    BOOST_TEST(!v.correct);
    BOOST_TEST((std::find(v.mistakes.begin(), v.mistakes.end(), "per_head_weights") != v.mistakes.end()));
    BOOST_TEST(judged("8.6", shape({1, 10, 10})).correct);
    mistake_book book = parse_mistakes("[no_scale]\nzh = \"忘了缩放\"\nen = \"forgot to scale\"\n", "m.toml");
    const std::string head = "lesson = 3\n[[exercise]]\nid = \"3.1\"\nquestion = { zh = \"问\", en = \"q\" }\n"
                             "solution = { zh = \"解\", en = \"s\" }\nhints = [{ zh = \"提示\", en = \"h\" }]\nexpected = \"S\"\n";
    auto error_of = [&](const std::string& text) { return exercise_file_error(text, book); };
    BOOST_TEST(error_of(head + "kind = \"shape\"\nmistakes = { no_scale = \"shape(3, 4)\" }\n") == "no error");
    BOOST_TEST(error_of(head + "kind = \"shape\"\nmistakes = { no_scale = \"shape(3, y)\" }\n").find("x.toml:9:") == 0u);
    BOOST_TEST(error_of(head + "kind = \"number\"\nmistakes = { no_scale = \"shape(3, 4)\" }\n").find("only a shape exercise") !=
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_reader_given_a_list_collects_every_problem) {
    mistake_book book = parse_mistakes("[no_scale]\nzh = \"忘了缩放\"\nen = \"forgot to scale\"\n", "m.toml");
    const std::string text = "lesson = 3\n"
                             "[[exercise]]\n"
                             "id = \"3.1\"\n"
                             "kind = \"numbr\"\n"                          // line 4: no such kind
                             "colour = 1\n"                                // line 5: no such key
                             "question = { zh = \"问\", en = \"q\" }\n"
                             "solution = { zh = \"解\", en = \"\" }\n"       // line 7: no English
                             "hints = [{ zh = \"提示\", en = \"h\" }]\n"
                             "[[exercise]]\n"
                             "id = \"3.2\"\n"
                             "kind = \"number\"\n"
                             "expected = \"S[2, 3]\"\n"
                             "question = { zh = \"问\", en = \"q\" }\n"
                             "solution = { zh = \"解\", en = \"s\" }\n"
                             "hints = [{ zh = \"提示\", en = \"h\" }]\n";
    std::vector<problem> problems;
    auto read = read_exercises(read_toml_text(text, "x.toml"), book, &problems);
    BOOST_REQUIRE_EQUAL(read.size(), 1u);
    BOOST_TEST(read[0].id == "3.2");
    BOOST_REQUIRE_EQUAL(problems.size(), 3u);
    BOOST_TEST(problems[0].str().find("x.toml:5:") == 0u, problems[0].str());  // keys first, then in order
    BOOST_TEST(problems[0].str().find("unknown key 'colour'") != std::string::npos);
    BOOST_TEST(problems[1].str().find("x.toml:4:") == 0u, problems[1].str());
    BOOST_TEST(problems[1].str().find("kind must be") != std::string::npos);
    BOOST_TEST(problems[2].str().find("x.toml:7:") == 0u, problems[2].str());
    BOOST_TEST(problems[2].str().find("zh and en must both be written") != std::string::npos);
    // Without a list, the first of them is thrown.
    try {
        parse_exercises(text, "x.toml", book);
        BOOST_FAIL("no error");
    } catch (const input_error& e) {
        BOOST_TEST(std::string(e.what()) == problems[0].str());
    }
}

BOOST_AUTO_TEST_CASE(expected_value_must_suit_the_kind) {
    mistake_book book = parse_mistakes("[no_scale]\nzh = \"忘了缩放\"\nen = \"forgot to scale\"\n", "m.toml");
    auto list = parse_exercises("lesson = 1\n[[exercise]]\nid = \"1.9\"\nkind = \"number\"\nexpected = \"S\"\n"
                                "question = { zh = \"问\", en = \"q\" }\nsolution = { zh = \"解\", en = \"s\" }\n"
                                "hints = [{ zh = \"提示\", en = \"h\" }]\n",
                                "x.toml", book);
    BOOST_CHECK_THROW(run_exercise(list.front(), lang::en), input_error);  // S is [3, 3], not a number
}
