// The backward pass of one head (softmax_backward and the chain lesson 16 writes, the gradient
// train_head descends along) held to central finite differences that this file computes itself:
// its own loops for the forward pass and the loss, in double, sharing no code with the engine.
// And training: the loss falls, and two runs give the same trace. Then lessons 16 and 17 as a
// learner runs them, and the chart of their loss.
#define BOOST_TEST_MODULE backward
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "qkv/builtins.hpp"
#include "qkv/formula.hpp"
#include "qkv/kernels.hpp"
#include "qkv/plot.hpp"
#include "qkv/render_html.hpp"
#include "qkv/render_text.hpp"
#include "qkv/scenario_gen.hpp"
#include "support/evaluate.hpp"
#include "support/lessons.hpp"

using namespace qkv;
using qkv::test::contains;
using qkv::test::eval_error;
using qkv::test::ev;

namespace {

// The float32 gradients against the exact (double) ones: float32 keeps 24 bits, about 6e-8 of
// each number; the chain multiplies five products of length up to 9 and a softmax, which loses
// a few hundred of those. 2e-4 of the largest gradient (at least 1) is far above that and far
// below any mistake in the chain rule (a missing term or factor changes entries by ~10%).
constexpr double float_chain = 2e-4;

struct shapes {
    std::size_t n, d_model, d_k, d_v;
};

// softmax(X W_Q (X W_K)^T / sqrt(d_k) [+ mask]) X W_V, then 1/2 |Z - T|^2, in double loops.
double loss_ref(const matrix& X, const matrix& W_Q, const matrix& W_K, const matrix& W_V, const matrix& T, bool causal) {
    const std::size_t n = X.rows, d = X.cols;
    auto proj = [&](const matrix& W) {
        std::vector<std::vector<double>> P(n, std::vector<double>(W.cols));
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t c = 0; c < W.cols; ++c)
                for (std::size_t m = 0; m < d; ++m) P[i][c] += double(X(i, m)) * W(m, c);
        return P;
    };
    auto Q = proj(W_Q), K = proj(W_K), V = proj(W_V);
    double loss = 0;
    for (std::size_t i = 0; i < n; ++i) {
        std::vector<double> e(n, 0.0);
        double sum = 0;
        for (std::size_t j = 0; j < n; ++j) {
            if (causal && j > i) continue;
            double s = 0;
            for (std::size_t c = 0; c < W_Q.cols; ++c) s += Q[i][c] * K[j][c];
            sum += e[j] = std::exp(s / std::sqrt(double(W_Q.cols)));
        }
        for (std::size_t c = 0; c < W_V.cols; ++c) {
            double z = 0;
            for (std::size_t j = 0; j < n; ++j) z += e[j] / sum * V[j][c];
            loss += 0.5 * (z - T(i, c)) * (z - T(i, c));
        }
    }
    return loss;
}

// d loss / d W for the one of W_Q, W_K, W_V that `W` points into, by central differences.
matrix fd_ref(const matrix& X, matrix& W_Q, matrix& W_K, matrix& W_V, const matrix& T, bool causal, matrix& W) {
    const double eps = 1e-3;  // in double: truncation ~eps^2, rounding ~1e-16/eps, both negligible
    matrix G(W.rows, W.cols);
    for (std::size_t i = 0; i < W.size(); ++i) {
        const float w = W.data[i];
        W.data[i] = float(w + eps);
        const double step_up = double(W.data[i]) - w;
        const double up = loss_ref(X, W_Q, W_K, W_V, T, causal);
        W.data[i] = float(w - eps);
        const double step_down = w - double(W.data[i]);
        const double down = loss_ref(X, W_Q, W_K, W_V, T, causal);
        W.data[i] = w;
        G.data[i] = float((up - down) / (step_up + step_down));  // the steps float really took
    }
    return G;
}

double scaled_gap(const matrix& got, const matrix& want) {
    double scale = 1.0, gap = 0.0;
    for (std::size_t i = 0; i < want.size(); ++i) {
        scale = std::max(scale, std::fabs(double(want.data[i])));
        gap = std::max(gap, std::fabs(double(got.data[i]) - want.data[i]));
    }
    return gap / scale;
}

workspace random_head(const shapes& s, std::uint64_t seed) {
    workspace ws;
    ws["X"] = value::of(kernels::randn(s.n, s.d_model, seed));
    ws["W_Q"] = value::of(kernels::randn(s.d_model, s.d_k, seed + 1));
    ws["W_K"] = value::of(kernels::randn(s.d_model, s.d_k, seed + 2));
    ws["W_V"] = value::of(kernels::randn(s.d_model, s.d_v, seed + 3));
    ws["T"] = value::of(kernels::randn(s.n, s.d_v, seed + 4));
    return ws;
}

// Lesson 16's chain, written as the lesson writes it.
const char* const chain = R"(Q = X @ W_Q
K = X @ W_K
V = X @ W_V
S = Q @ K^T / sqrt(cols(K)) + M
A = softmax(S)
Z = A @ V
dZ = Z - T
dV = A^T @ dZ
dA = dZ @ V^T
dS = softmax_backward(A, dA)
dQ = dS @ K / sqrt(cols(K))
dK = dS^T @ Q / sqrt(cols(K))
dW_Q = X^T @ dQ
dW_K = X^T @ dK
dW_V = X^T @ dV)";

const std::vector<shapes> random_shapes{{1, 3, 2, 2}, {2, 4, 4, 4}, {3, 4, 2, 3}, {5, 6, 3, 2}, {7, 5, 5, 4}, {9, 8, 4, 6}};

}  // namespace

BOOST_AUTO_TEST_CASE(softmax_backward_by_hand) {
    // a = [0.5, 0.5], da = [1, 0]: rowsum(da * a) = 0.5, ds = a * (da - 0.5) = [0.25, -0.25]
    workspace ws{{"A", value::of(matrix::of({{0.5f, 0.5f}}))}, {"dA", value::of(matrix::of({{1.0f, 0.0f}}))}};
    value dS = ev("softmax_backward(A, dA)", ws);
    BOOST_TEST(dS.mat()(0, 0) == 0.25f);
    BOOST_TEST(dS.mat()(0, 1) == -0.25f);
    // a constant added to a row of dA changes nothing: softmax ignores a shift of its input row
    BOOST_TEST(max_abs_diff(ev("softmax_backward(A, dA + 3)", ws).mat(), dS.mat()) <= 1e-6f);
    BOOST_TEST(contains(eval_error("softmax_backward(A, dA^T)", ws), "need the same shape"));
}

BOOST_AUTO_TEST_CASE(the_lessons_chain_matches_finite_differences_on_random_shapes) {
    std::uint64_t seed = 11;
    for (const shapes& s : random_shapes)
        for (bool causal : {false, true}) {
            workspace ws = random_head(s, seed += 10);
            ws["M"] = causal ? value::of(kernels::causal_mask(s.n)) : value::of(matrix(s.n, s.n));
            eval_context ctx{test::formula_place, "test", "chain"};
            run_formula(parse_formula(chain, test::formula_place), ws, ctx);
            matrix X = ws["X"].mat(), W_Q = ws["W_Q"].mat(), W_K = ws["W_K"].mat(), W_V = ws["W_V"].mat(), T = ws["T"].mat();
            for (auto [name, W] : {std::pair{"dW_Q", &W_Q}, {"dW_K", &W_K}, {"dW_V", &W_V}}) {
                matrix want = fd_ref(X, W_Q, W_K, W_V, T, causal, *W);
                BOOST_TEST(scaled_gap(ws[name].mat(), want) <= float_chain,
                           name << " n = " << s.n << " d_model = " << s.d_model << (causal ? " causal" : ""));
            }
            if (causal && s.n > 1)  // a masked weight is exactly 0, and so is its gradient
                BOOST_TEST(ws["dS"].mat()(0, s.n - 1) == 0.0f);
        }
}

BOOST_AUTO_TEST_CASE(train_head_descends_the_finite_difference_gradient) {
    // One step of lr: (W0 - W1) / lr is the gradient train_head used, held to this file's own.
    std::uint64_t seed = 500;
    for (const shapes& s : random_shapes)
        for (bool causal : {false, true}) {
            workspace ws = random_head(s, seed += 10);
            ws["c"] = value::scalar(causal ? 1.0f : 0.0f);
            matrix X = ws["X"].mat(), W_Q = ws["W_Q"].mat(), W_K = ws["W_K"].mat(), W_V = ws["W_V"].mat(), T = ws["T"].mat();
            for (auto [fn, W] : {std::pair{"W_Q", &W_Q}, {"W_K", &W_K}, {"W_V", &W_V}}) {
                // lr = 1/1024 is a power of two: the division by it is exact
                value got = ev(std::string("(") + fn + " - trained_" + fn + "(X, T, W_Q, W_K, W_V, 1, 1/1024, c)) * 1024", ws);
                matrix want = fd_ref(X, W_Q, W_K, W_V, T, causal, *W);
                // W - lr dW rounds to float at W's scale: a loss of ~6e-8 |W| / lr ≈ 1e-4 per entry
                BOOST_TEST(scaled_gap(got.mat(), want) <= 20 * float_chain, fn << " n = " << s.n << (causal ? " causal" : ""));
            }
        }
}

BOOST_AUTO_TEST_CASE(fd_gradient_and_attention_loss_agree_with_this_files_loops) {
    workspace ws = random_head({4, 5, 3, 2}, 77);
    matrix X = ws["X"].mat(), W_Q = ws["W_Q"].mat(), W_K = ws["W_K"].mat(), W_V = ws["W_V"].mat(), T = ws["T"].mat();
    for (int causal : {0, 1}) {
        ws["c"] = value::scalar(float(causal));
        double want = loss_ref(X, W_Q, W_K, W_V, T, causal);
        BOOST_TEST(std::fabs(ev("attention_loss(X, W_Q, W_K, W_V, T, c)", ws).number - want) <= 1e-5 * std::max(1.0, want));
        matrix g = ev("fd_gradient(X, W_Q, W_K, W_V, T, 2, 0.001, c)", ws).mat();
        BOOST_TEST(scaled_gap(g, fd_ref(X, W_Q, W_K, W_V, T, causal, W_K)) <= float_chain);
    }
    BOOST_TEST(contains(eval_error("fd_gradient(X, W_Q, W_K, W_V, T, 4, 0.001)", ws), "which must be 1 (W_Q), 2 (W_K) or 3 (W_V)"));
    BOOST_TEST(contains(eval_error("attention_loss(X, W_Q, W_K, W_V, T^T)", ws), "the target T must be [n, d_v]"));
    BOOST_TEST(contains(eval_error("attention_loss(X, W_Q, W_V, W_K, T)", ws), "need the same d_k"));
}

BOOST_AUTO_TEST_CASE(training_lowers_the_loss_and_runs_the_same_twice) {
    workspace ws = random_head({5, 4, 4, 4}, 900);
    std::vector<sub_step> first, second;
    eval_context ctx{test::formula_place, "test", "train"};
    ctx.steps = &first;
    auto e = parse_expression("train_head(X, T, W_Q, W_K, W_V, 30, 0.05)", test::formula_place);
    matrix loss = evaluate(*e, ws, ctx).mat();
    ctx.steps = &second;
    matrix again = evaluate(*e, ws, ctx).mat();
    BOOST_TEST(loss.rows == 30u);
    BOOST_TEST(loss.cols == 1u);
    for (std::size_t t = 1; t < loss.rows; ++t) BOOST_TEST(loss(t, 0) < loss(t - 1, 0), "step " << t + 1);
    BOOST_TEST(loss(29, 0) < 0.5f * loss(0, 0));
    BOOST_TEST((loss == again));
    BOOST_TEST_REQUIRE(first.size() == 30u);
    BOOST_TEST(first.back().label == "t = 30");
    for (std::size_t t = 0; t < first.size(); ++t) {
        BOOST_TEST(first[t].values[0].second.number == loss(t, 0));
        BOOST_TEST((first[t].values[1].second.mat() == second[t].values[1].second.mat()));
    }
    // the loss after the last step, from the trained weights, is below the loss before it
    float after = ev("attention_loss(X, trained_W_Q(X, T, W_Q, W_K, W_V, 30, 0.05), trained_W_K(X, T, W_Q, W_K, W_V, 30, 0.05), "
                     "trained_W_V(X, T, W_Q, W_K, W_V, 30, 0.05), T)", ws).number;
    BOOST_TEST(after < loss(29, 0));
}

BOOST_AUTO_TEST_CASE(a_kept_run_gives_what_training_afresh_gives_and_only_for_its_own_start) {
    // trained_W_Q, _K and _V read the weights of train_head's run when they start where it
    // started, bit for bit; any other start trains. Each start below is evaluated right after the
    // kept run (where a wrong match would hand back the kept weights) and again after an unrelated
    // run has taken its place (so it surely trains): the two must be the same matrix.
    workspace ws = random_head({5, 4, 4, 4}, 903);
    workspace other = random_head({3, 4, 2, 2}, 904);
    auto unrelated = [&] { ev("trained_W_Q(X, T, W_Q, W_K, W_V, 3, 0.05)", other); };
    const std::string base = "trained_W_Q(X, T, W_Q, W_K, W_V, 30, 0.05, 0, 0)";
    unrelated();
    const matrix fresh = ev(base, ws).mat();
    ev("train_head(X, T, W_Q, W_K, W_V, 30, 0.05, 0, 0)", ws);
    BOOST_TEST((ev(base, ws).mat() == fresh), "train_head's kept run");
    // W_K one float step away in one entry
    ws["W_K_near"] = ws["W_K"];
    float& entry = ws["W_K_near"].mat().data[3];
    entry = std::nextafter(entry, 1.0f);
    for (const std::string start : {"trained_W_Q(X, T, W_Q, W_K, W_V, 29, 0.05, 0, 0)", "trained_W_Q(X, T, W_Q, W_K, W_V, 30, 0.04, 0, 0)",
                                    "trained_W_Q(X, T, W_Q, W_K, W_V, 30, 0.05, 1, 0)", "trained_W_Q(X, T, W_Q, W_K, W_V, 30, 0.05, 0, 1)",
                                    "trained_W_Q(X, T, W_Q, W_K_near, W_V, 30, 0.05, 0, 0)", "trained_W_Q(X, T * 2, W_Q, W_K, W_V, 30, 0.05, 0, 0)",
                                    "trained_W_Q(X * 2, T, W_Q, W_K, W_V, 30, 0.05, 0, 0)", "trained_W_Q(X, T, W_Q * 2, W_K, W_V, 30, 0.05, 0, 0)",
                                    "trained_W_Q(X, T, W_Q, W_K, W_V * 2, 30, 0.05, 0, 0)"}) {
        ev("train_head(X, T, W_Q, W_K, W_V, 30, 0.05, 0, 0)", ws);
        const matrix after_kept = ev(start, ws).mat();
        unrelated();
        BOOST_TEST((after_kept == ev(start, ws).mat()), start);
    }
}

BOOST_AUTO_TEST_CASE(a_step_too_long_is_halved_until_the_loss_falls) {
    workspace ws = random_head({5, 4, 4, 4}, 901);
    // lr = 1000 overshoots by far: a plain step there climbs
    const float before = ev("attention_loss(X, W_Q, W_K, W_V, T)", ws).number;
    const float eta = ev("backtrack_lr(X, T, W_Q, W_K, W_V, 1000)", ws).number;
    BOOST_TEST_REQUIRE(eta > 0.0f);
    const double halvings = std::log2(1000.0 / eta);
    BOOST_TEST(std::fabs(halvings - std::round(halvings)) < 1e-6);  // 1000 / 2^k exactly
    BOOST_TEST(halvings >= 1.0);
    // the step it chose lowers the loss, and one twice as long (the try before it) did not
    auto loss_at = [&](float lr) {
        ws["lr"] = value::scalar(lr);
        ws["W_Q1"] = ev("trained_W_Q(X, T, W_Q, W_K, W_V, 1, lr)", ws);
        ws["W_K1"] = ev("trained_W_K(X, T, W_Q, W_K, W_V, 1, lr)", ws);
        ws["W_V1"] = ev("trained_W_V(X, T, W_Q, W_K, W_V, 1, lr)", ws);
        return ev("attention_loss(X, W_Q1, W_K1, W_V1, T)", ws).number;
    };
    BOOST_TEST(loss_at(eta) < before);
    // the try before it, twice as long, along this file's own gradient: it climbed (by far, so
    // the gradient's rounding does not decide it)
    ws["eta2"] = value::scalar(2 * eta);
    for (auto [name, which] : {std::pair{"gQ", 1}, {"gK", 2}, {"gV", 3}})
        ws[name] = value::of(fd_ref(ws["X"].mat(), ws["W_Q"].mat(), ws["W_K"].mat(), ws["W_V"].mat(), ws["T"].mat(), false,
                                    which == 1 ? ws["W_Q"].mat() : which == 2 ? ws["W_K"].mat() : ws["W_V"].mat()));
    BOOST_TEST(ev("attention_loss(X, W_Q - eta2 * gQ, W_K - eta2 * gK, W_V - eta2 * gV, T)", ws).number > before);
    // a whole run at that lr never climbs
    const matrix loss = ev("train_head(X, T, W_Q, W_K, W_V, 20, 1000)", ws).mat();
    for (std::size_t t = 1; t < loss.rows; ++t) BOOST_TEST(loss(t, 0) <= loss(t - 1, 0), "step " << t + 1);
    // fixed_v = 1: W_V stays as given, W_Q still moves
    BOOST_TEST((ev("trained_W_V(X, T, W_Q, W_K, W_V, 5, 0.05, 0, 1)", ws).mat() == ws["W_V"].mat()));
    BOOST_TEST(!(ev("trained_W_Q(X, T, W_Q, W_K, W_V, 5, 0.05, 0, 1)", ws).mat() == ws["W_Q"].mat()));
    BOOST_TEST(contains(eval_error("train_head(X, T, W_Q, W_K, W_V, 5, 0.05, 0, 0.5)", ws), "fixed_v"));
}

// Lessons 16 and 17 as a learner runs them, on the running sentence.
BOOST_AUTO_TEST_CASE(lesson_16_shows_the_chain_by_its_names_and_it_matches_finite_differences) {
    const qkv::lesson_run r = test::run(16);
    for (const char* name : {"Q", "K", "V"}) BOOST_TEST(test::shown(r.t, "forward", name).is_matrix(), name);
    for (const auto& [stage, names] : std::vector<std::pair<std::string, std::vector<std::string>>>{
             {"dZ", {"dZ"}}, {"dV-dA", {"dV", "dA"}}, {"dS", {"dS"}}, {"dQ-dK", {"dQ", "dK"}}, {"dW", {"dW_Q", "dW_K", "dW_V"}}})
        for (const auto& name : names) BOOST_TEST(test::shown(r.t, stage, name).is_matrix(), name);
    matrix X = r.ws.at("X").mat(), W_Q = r.ws.at("W_Q").mat(), W_K = r.ws.at("W_K").mat(), W_V = r.ws.at("W_V").mat();
    matrix T = r.ws.at("T").mat();
    BOOST_TEST(scaled_gap(r.ws.at("dW_Q").mat(), fd_ref(X, W_Q, W_K, W_V, T, false, W_Q)) <= float_chain);
    BOOST_TEST(scaled_gap(r.ws.at("dW_K").mat(), fd_ref(X, W_Q, W_K, W_V, T, false, W_K)) <= float_chain);
    BOOST_TEST(scaled_gap(r.ws.at("dW_V").mat(), fd_ref(X, W_Q, W_K, W_V, T, false, W_V)) <= float_chain);
    BOOST_TEST(test::shown_num(r.t, "check", "largest") <= 1e-4f);
    const matrix& dS_c = test::shown_mat(r.t, "causal", "dS_c");
    for (std::size_t i = 0; i < dS_c.rows; ++i)
        for (std::size_t j = i + 1; j < dS_c.cols; ++j) BOOST_TEST(dS_c(i, j) == 0.0f);
}

BOOST_AUTO_TEST_CASE(lesson_17_learns_to_fetch_the_first_token_fast_and_the_same_every_run) {
    const auto start = std::chrono::steady_clock::now();
    const qkv::lesson_run r = test::run(17);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    BOOST_TEST(seconds < 0.5);
    const matrix& loss = test::shown_mat(r.t, "train", "loss");
    BOOST_TEST(loss.rows >= 20u);
    for (std::size_t t = 1; t < loss.rows; ++t) BOOST_TEST(loss(t, 0) <= loss(t - 1, 0), "step " << t + 1);
    BOOST_TEST(loss(loss.rows - 1, 0) < 0.5f * loss(0, 0));
    BOOST_TEST(test::stage_of(r.t, "train").steps.size() == loss.rows);
    // before: the last row looks elsewhere; after: at the first position, with most of its weight
    const matrix& A0 = r.ws.at("A0").mat();
    const matrix& A1 = r.ws.at("A1").mat();
    const std::size_t last = A1.rows - 1;
    BOOST_TEST(std::max_element(A1.row(last), A1.row(last) + A1.cols) - A1.row(last) == 0);
    BOOST_TEST(std::max_element(A0.row(last), A0.row(last) + A0.cols) - A0.row(last) != 0);
    BOOST_TEST(A1(last, 0) > 0.5f);
    // W_V does not train: it is the identity the lesson started from
    const matrix& W_V0 = r.ws.at("W_V0").mat();
    for (std::size_t i = 0; i < W_V0.rows; ++i)
        for (std::size_t j = 0; j < W_V0.cols; ++j) BOOST_TEST(W_V0(i, j) == (i == j ? 1.0f : 0.0f));
    BOOST_TEST((ev("trained_W_V(H, T, W_Q0, W_K0, W_V0, 30, lr0, causal, fixed_v)", r.ws).mat() == W_V0));
    // the first update by hand in stage 'one-step' is train_head's first step
    BOOST_TEST(std::fabs(test::shown_num(r.t, "one-step", "loss_one_step") - loss(1, 0)) <= 1e-5f);
    const qkv::lesson_run again = test::run(17);
    BOOST_TEST((test::shown_mat(again.t, "train", "loss") == loss));
    BOOST_TEST((again.ws.at("W_Q1").mat() == r.ws.at("W_Q1").mat()));
}

// The sentences on which lesson 17 used to climb (a fixed step of 2 / |X|^2 overshot) and to say
// "it has learned" of a row at [0.48, 0.45, 0.07]: every step now lowers the loss, a repeated
// token ("the" twice) still has a row of its own, and the words follow the weights.
BOOST_AUTO_TEST_CASE(lesson_17_falls_on_any_sentence_and_says_learned_only_when_the_weights_show_it) {
    const auto lesson = load_lesson(test::lesson_path(17));
    for (const char* sentence : {"the cat sat on the mat", "我 爱 北京", "a b c d e f g h", "a b a b c"}) {
        scenario_spec spec;
        spec.tokens = split_tokens(sentence);
        const qkv::lesson_run r = run_lesson(lesson, generate_scenario(spec), lang::en);
        const matrix& loss = test::shown_mat(r.t, "train", "loss");
        for (std::size_t t = 1; t < loss.rows; ++t) BOOST_TEST(loss(t, 0) <= loss(t - 1, 0), sentence << " step " << t + 1);
        BOOST_TEST(loss(loss.rows - 1, 0) < loss(0, 0), sentence);
        const matrix& H = r.ws.at("H").mat();
        for (std::size_t i = 0; i < H.rows; ++i)
            for (std::size_t j = i + 1; j < H.rows; ++j)
                BOOST_TEST(max_abs_diff(test::rows_of(H, i, 1), test::rows_of(H, j, 1)) > 1e-3f, sentence << " rows " << i + 1 << ", " << j + 1);
        const matrix& A1 = r.ws.at("A1").mat();
        const bool learned = A1(A1.rows - 1, 0) > 0.5f;
        const std::string& text = test::stage_of(r.t, "after").text;
        BOOST_TEST(contains(text, "it has learned to fetch the first token") == learned, sentence);
    }
}

BOOST_AUTO_TEST_CASE(a_loss_over_steps_is_drawn_in_text_and_html) {
    const qkv::lesson_run r = test::run(17);
    std::size_t train = 0;
    while (r.t.stages[train].id != "train") ++train;
    qkv::render_options o;
    const std::string text = qkv::render_text_stage(r.t, train, o);
    BOOST_TEST(contains(text, "│█"));  // the first step is the tallest bar
    BOOST_TEST(contains(text, "30 steps"));
    const std::string html = qkv::render_html({r.t}, o);
    BOOST_TEST(contains(html, "<polyline"));
    // only a column named loss is drawn: the weights beside it are not
    BOOST_TEST(!qkv::plotted("A1", r.ws.at("loss")));
    BOOST_TEST(!qkv::plotted("loss", r.ws.at("A1")));
    BOOST_TEST(qkv::plotted("loss", r.ws.at("loss")));
}

// Issue 27, item 13: lesson 17 on a scenario with an entry of 1e30 computes lr0 = 8 / norm(H)²
// = 8 / inf = 0, and was told "lr must be a number above 0, got a scalar". A step size or a
// tolerance out of range is now named by its value; a matrix still by its kind.
BOOST_AUTO_TEST_CASE(a_step_size_out_of_range_is_named_by_its_value) {
    workspace ws = random_head({3, 4, 4, 4}, 7);
    ws["big"] = value::scalar(1e30f);
    ws["lr0"] = ev("8 / (big * big)", ws);  // (1e30)² = 1e60 overflows float: 8 / inf = 0
    BOOST_TEST(contains(eval_error("backtrack_lr(X, T, W_Q, W_K, W_V, lr0)", ws), "backtrack_lr: lr must be a number above 0, got 0"));
    BOOST_TEST(contains(eval_error("train_head(X, T, W_Q, W_K, W_V, 3, big * big)", ws), "lr must be a number above 0, got inf"));
    BOOST_TEST(contains(eval_error("fd_gradient(X, W_Q, W_K, W_V, T, 1, -0.5)", ws), "eps must be a number above 0, got -0.5"));
    BOOST_TEST(contains(eval_error("backtrack_lr(X, T, W_Q, W_K, W_V, X)", ws), "lr must be a number above 0, got a matrix [3, 4]"));
}
