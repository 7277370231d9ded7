// Wrong answers: every mistake in the vocabulary, made here with plain loops, is recognised and
// named; and a wrong answer is explained (which dimension, which cells, which row, which way).
#define BOOST_TEST_MODULE exercise_mistakes
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <filesystem>
#include <map>

#include "qkv/exercise.hpp"
#include "qkv/judge.hpp"
#include "qkv/scenario_gen.hpp"
#include "support/shipped_exercises.hpp"
#include "support/training.hpp"

using namespace qkv;
using namespace qkv::test;

namespace {

std::string joined(const std::vector<std::string>& lines) {
    std::string out;
    for (auto& l : lines) out += l + "\n";
    return out;
}

}  // namespace

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
    seen["transposed"] = judged("3.3", rows(tr(p.S)));                                    // Sᵀ for S
    {   // lesson 1 with the exp left out: row 1 of S = X·Xᵀ, 1.34, 0.3 and 0.8, divided by their sum 2.44
        std::vector<double> s1 = mul(p.X, tr(p.X))[0];
        const double sum = s1[0] + s1[1] + s1[2];
        for (double& x : s1) x /= sum;  // ≈ [0.5492, 0.1230, 0.3279]; softmax gives [0.5165, 0.1826, 0.3010]
        seen["normalised_without_exp"] = judged("1.2", row(s1));
    }
    {   // z(苹果) with 1/3 on each row of V, and with A's row 1 on the rows of X instead of V
        std::vector<double> mean(p.V[0].size(), 0.0);
        for (const auto& r : p.V)
            for (std::size_t c = 0; c < r.size(); ++c) mean[c] += r[c] / 3;  // ≈ [0.49, 0.4333, 0.4833, 0.38]
        seen["plain_average"] = judged("6.1", row(mean));
        seen["x_not_v"] = judged("6.1", row(mul(softmax_rows(p.S_scaled), p.X)[0]));   // ≈ [0.4291, 0.6266, 0.3194, 0.5376]
    }
    seen["x_shape_for_s"] = judged("3.1", shape({100, 512}));                              // X is [100, 512]
    seen["unscaled_variance"] = judged("4.3", number(256));                                // q·k unscaled: d_k = 256
    seen["variance_by_sqrt_d_k"] = judged("4.3", number(256.0 / 16));                      // 256 ÷ √256, not ÷ 256
    // wrong row without the exercise listing it: 5.1 asks row 甜 of A, here row 苹果; 16.1 row 1 of
    // dV = Aᵀ·dZ, here row 2 (the target v(甜) in every row, as below)
    BOOST_TEST(names(judged("5.1", row(softmax_rows(p.S_scaled)[0])), "wrong_row"));
    BOOST_TEST(names(judged("5.1", row(tr(softmax_rows(p.S_scaled))[2])), "wrong_row"));  // column 甜
    {
        mat A = softmax_rows(p.S_scaled), dZ = mul(A, p.V);
        for (auto& r : dZ)
            for (std::size_t c = 0; c < r.size(); ++c) r[c] -= p.V[2][c];
        BOOST_TEST(names(judged("16.1", row(mul(tr(A), dZ)[1])), "wrong_row"));
    }
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
    {  // lesson 19's circuits of the named pair, with this file's loops: its K-composition three wrong ways
        const workspace& ws = run_of("19.1").run.ws;
        const matrix& heads = ws.at("heads").mat();
        const std::size_t p = std::size_t(heads(0, 1)) - 1, i = std::size_t(heads(1, 1)) - 1;
        const mat OV = of(ws.at("OV_1").mats.at(p)), QK_2 = of(ws.at("QK_2").mats.at(i)), QK_1 = of(ws.at("QK_1").mats.at(i));
        seen["k_comp_no_transpose"] = judged("19.1", number(frobenius(mul(OV, QK_2)) / (frobenius(OV) * frobenius(QK_2))));
        seen["qk_of_wrong_layer"] = judged("19.1", number(frobenius(mul(OV, tr(QK_1))) / (frobenius(OV) * frobenius(QK_1))));
        seen["composition_not_normalised"] = judged("19.1", number(frobenius(mul(OV, tr(QK_2)))));
        seen["circuit_rank_d_model"] = judged("19.3", number(32));  // d_model for d_k = 16
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
}

// 8.3 runs on 苹果很甜 at d_model = 8, 2 heads of d_k = 4: ÷ d_k = 4 and ÷ √d_model = √8 are two
// numbers, each named alone, on its own data and on students' variants. On apple.toml's d_model = 4
// both are ÷ 2: they agree, and both are named.
BOOST_AUTO_TEST_CASE(exercise_8_3_tells_its_two_wrong_scalings_apart) {
    const mistake_book& book = shipped().book;
    const scenario wide = load_scenario((std::filesystem::path(data_dir()) / "apple-wide.toml").string());
    BOOST_REQUIRE(wide.matrices.at("X").cols == 8u);
    for (const std::string student : {"", "alice", "carl"}) {
        BOOST_TEST_CONTEXT("student '" << student << "'") {
            pipeline p(student.empty() ? wide : student_variant(wide, student));
            const std::vector<double> q = p.head(p.W_Q, 0, 4)[0], k = p.head(p.W_K, 0, 4)[2];  // head 1: 苹果, 甜
            double s13 = 0;
            for (std::size_t i = 0; i < 4; ++i) s13 += q[i] * k[i];
            // the file's own: 1.55×1.5 + 0.45×0.3 + 0.8×0.9 + 0.2×0.1 = 3.2
            if (student.empty()) BOOST_TEST(s13 == 3.2, boost::test_tools::tolerance(1e-5));
            BOOST_REQUIRE(std::fabs(s13) > 0.5);  // s/2, s/√8, s/4 and s further apart than ±0.01
            const exercise_run r = run_exercise(ex("8.3"), lang::en, "", student);
            auto judged_here = [&](double x) { return judge(ex("8.3"), number(x), r); };
            BOOST_TEST(judged_here(s13 / 2).correct);
            const verdict by_d_k = judged_here(s13 / 4), by_sqrt_d_model = judged_here(s13 / std::sqrt(8.0));
            BOOST_TEST(names(by_d_k, "scale_by_d_k"));
            BOOST_TEST(!names(by_d_k, "scale_by_sqrt_d_model"));
            BOOST_TEST(names(by_sqrt_d_model, "scale_by_sqrt_d_model"));
            BOOST_TEST(!names(by_sqrt_d_model, "scale_by_d_k"));
            BOOST_TEST(names(judged_here(s13), "no_scale"));
            for (const auto& [x, id] : {std::pair{s13 / 4, "scale_by_d_k"}, std::pair{s13 / std::sqrt(8.0), "scale_by_sqrt_d_model"}}) {
                const std::string text = joined(explain(judged_here(x), ex("8.3"), number(x), r, book, lang::en));
                BOOST_TEST(text.find("This is what a common mistake gives: " + book.at(id).en) != std::string::npos, text);
                BOOST_TEST(text.find("they agree") == std::string::npos, text);
            }
        }
    }
    const exercise_run on_four = run_exercise(ex("8.3"), lang::en, (std::filesystem::path(data_dir()) / "apple.toml").string(), "");
    const verdict both = judge(ex("8.3"), number(2.46 / 2), on_four);  // s13 = 1.55×1.5 + 0.45×0.3 = 2.46, ÷ 2 either way
    BOOST_TEST(names(both, "scale_by_d_k"));
    BOOST_TEST(names(both, "scale_by_sqrt_d_model"));
}

// The same mistakes on a student's own numbers (--student NAME): made here by hand from the
// student's variant of 苹果很甜, judged against that student's run of the exercise.
BOOST_AUTO_TEST_CASE(mistakes_are_named_on_a_students_own_numbers) {
    const scenario apple = load_scenario((std::filesystem::path(data_dir()) / "apple.toml").string());
    for (const char* student : {"alice", "carl"}) {
        pipeline p(student_variant(apple, student));
        BOOST_REQUIRE(std::fabs(p.X[0][0] - 1.0) > 1e-3);  // not the lesson's own numbers
        std::map<std::string, exercise_run> runs;
        auto judged_for = [&](const std::string& id, const answer& a) {
            if (!runs.count(id)) runs.emplace(id, run_exercise(ex(id), lang::en, "", student));
            return judge(ex(id), a, runs.at(id));
        };
        const std::size_t n = p.X.size(), d = p.V[0].size();
        std::vector<double> s1 = mul(p.X, tr(p.X))[0], mean(d, 0.0);
        double sum = 0;
        for (double x : s1) sum += x;
        for (double& x : s1) x /= sum;
        for (const auto& r : p.V)
            for (std::size_t c = 0; c < d; ++c) mean[c] += r[c] / static_cast<double>(n);
        const std::vector<std::pair<std::string, verdict>> made = {
            {"normalised_without_exp", judged_for("1.2", row(s1))},
            {"plain_average", judged_for("6.1", row(mean))},
            {"x_not_v", judged_for("6.1", row(mul(softmax_rows(p.S_scaled), p.X)[0]))},
            {"x_shape_for_s", judged_for("3.1", shape({100, 512}))},
            {"unscaled_variance", judged_for("4.3", number(256))},
            {"variance_by_sqrt_d_k", judged_for("4.3", number(16))},
        };
        for (const auto& [id, v] : made) {
            BOOST_TEST_CONTEXT(student << ": " << id) {
                BOOST_TEST(!v.correct);
                BOOST_TEST(names(v, id));
            }
        }
    }
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
    {   // one row asked (row 甜 of A in 5.1): its cells are entries named by their keys, not "row 1 (甜)"
        pipeline p("apple.toml");
        std::vector<double> r = softmax_rows(p.S_scaled)[2];
        r[0] += 0.2;
        answer a = row(r);
        std::string text = joined(explain(judged("5.1", a), ex("5.1"), a, run_of("5.1"), book, lang::en));
        BOOST_TEST(text.find("entry 1 (“苹果”): ") != std::string::npos, text);
        BOOST_TEST(text.find("row 1") == std::string::npos, text);
    }
    {   // the right thing's wrong row says which row it is: 5.1 asks row 甜 of A; row 苹果 (row 1)
        // and column 甜 (column 3, read down) are named; 16.1 asks row 1 of dV = Aᵀ·dZ, row 2 is named
        pipeline p("apple.toml");
        mat A = softmax_rows(p.S_scaled);
        auto told = [&](const char* id, const answer& a) { return joined(explain(judged(id, a), ex(id), a, run_of(id), book, lang::en)); };
        std::string text = told("5.1", row(A[0]));
        BOOST_TEST(text.find("This answer is row 1 (“苹果”) of A.") != std::string::npos, text);
        text = told("5.1", row(tr(A)[2]));
        BOOST_TEST(text.find("This answer is column 3 (“甜”) of A, read down.") != std::string::npos, text);
        mat dZ = mul(A, p.V);  // the target v(甜) in every row, as in every_mistake_is_recognised
        for (auto& r : dZ)
            for (std::size_t c = 0; c < r.size(); ++c) r[c] -= p.V[2][c];
        text = told("16.1", row(mul(tr(A), dZ)[1]));
        BOOST_TEST(text.find("This answer is row 2 (“很”) of dV.") != std::string::npos, text);
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
        BOOST_TEST(text.find("row 2 (“很”), column 3 (“甜”)") != std::string::npos, text);
        BOOST_TEST(text.find("too high") != std::string::npos);
        BOOST_TEST(text.find("row 3 (“甜”), column 1 (“苹果”)") != std::string::npos);
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
