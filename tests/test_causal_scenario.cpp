// A causal scenario (weights trained under the mask, `causal = true`): the shipped trained model,
// data/induction.toml, through lessons 2–9. No weight above the diagonal is shown or quoted, the
// masked weights are the ones a plain softmax of the masked scores gives, and a scenario without
// the flag still runs the plain formulas. The flag and causal_formula are checked as files are.
#define BOOST_TEST_MODULE causal_scenario
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "qkv/display_width.hpp"
#include "qkv/error.hpp"
#include "qkv/kernels.hpp"
#include "qkv/render_html.hpp"
#include "qkv/render_json.hpp"
#include "qkv/render_markdown.hpp"
#include "qkv/render_text.hpp"
#include "qkv/toml_file.hpp"
#include "support/lessons.hpp"

using namespace qkv;
using namespace qkv::test;

namespace {

const char* const induction_file = "data/induction.toml";

// A matrix whose rows and columns are both the scenario's tokens: who looks at whom.
bool token_by_token(const value& v, const std::vector<std::string>& tokens) {
    return v.rows.names == tokens && v.cols.names == tokens;
}

// softmax(M) row by row, computed here: exp(m − the row's max), over the row's sum. exp(−∞) = 0.
matrix softmax_here(const matrix& M) {
    matrix A(M.rows, M.cols);
    for (std::size_t i = 0; i < M.rows; ++i) {
        float top = -std::numeric_limits<float>::infinity();
        for (std::size_t j = 0; j < M.cols; ++j) top = std::max(top, M(i, j));
        double sum = 0;
        for (std::size_t j = 0; j < M.cols; ++j) sum += std::exp(static_cast<double>(M(i, j)) - top);
        for (std::size_t j = 0; j < M.cols; ++j) A(i, j) = static_cast<float>(std::exp(static_cast<double>(M(i, j)) - top) / sum);
    }
    return A;
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_shipped_model_is_a_causal_scenario_with_every_layer) {
    const scenario s = load_scenario(induction_file);
    BOOST_TEST(s.causal);
    BOOST_TEST(s.tokens.size() == 20u);
    BOOST_TEST_REQUIRE(s.heads.has_value());
    BOOST_TEST(*s.heads == 2u);
    for (const char* name : {"X", "W_Q", "W_K", "W_V", "W_O", "X_1", "W_Q_1", "W_O_1", "X_2", "W_Q_2", "W_O_2", "head_scores"})
        BOOST_TEST(s.matrices.count(name) == 1u, name);
    // X, W_Q … are layer 2's, kept under their own names too
    BOOST_TEST((s.matrices.at("X").data == s.matrices.at("X_2").data));
    BOOST_TEST((s.matrices.at("W_K").data == s.matrices.at("W_K_2").data));
    BOOST_TEST((s.matrices.at("head_scores").rows == 4u && s.matrices.at("head_scores").cols == 2u));
    // `--data induction` names it
    BOOST_TEST(load_scenario("induction").tokens == s.tokens);
}

// The heart of the issue: `qkv lesson 8 --data F` showed "d"₆ → "h"₁₇ 0.98, a weight on a later
// position this model can never have. Now no weight of the sentence's tokens is above the
// diagonal, in any stage of lessons 2–9, in either language; nor does the text quote one.
// Lesson 7's bidirectional table is the exception its text names: the same scores without the mask.
BOOST_AUTO_TEST_CASE(no_lesson_shows_or_quotes_a_weight_above_the_diagonal) {
    const scenario s = load_scenario(induction_file);
    for (int n = 2; n <= 9; ++n)
        for (lang l : {lang::en, lang::zh}) {
            const lesson_run r = run_lesson(load_lesson(lesson_path(n)), s, l);
            BOOST_TEST(r.t.causal);
            std::size_t checked = 0;
            for (const stage_trace& st : r.t.stages) {
                for (const shown_value& sv : st.values) {
                    if (!sv.v.weights || !token_by_token(sv.v, s.tokens) || sv.name == "A_bidirectional") continue;
                    ++checked;
                    for (std::size_t h = 0; h < sv.v.mats.size(); ++h)
                        for (std::size_t i = 0; i < s.tokens.size(); ++i)
                            for (std::size_t j = i + 1; j < s.tokens.size(); ++j)
                                BOOST_TEST(sv.v.mats[h](i, j) == 0.0f,
                                           "lesson " << n << " " << st.id << " " << sv.name << " head " << h + 1 << " [" << i + 1 << ", " << j + 1 << "]");
                }
                for (const quote_source& q : st.text_sources) {
                    auto it = r.ws.find(q.name);
                    if (it == r.ws.end() || !it->second.weights || !token_by_token(it->second, s.tokens) || q.name == "A_bidirectional") continue;
                    BOOST_TEST(q.col <= q.row, "lesson " << n << " " << st.id << " quotes " << q.name << "[" << q.row + 1 << ", " << q.col + 1 << "]");
                }
            }
            if (n != 3 && n != 9) BOOST_TEST(checked > 0u, "lesson " << n << " shows no weights of the sentence");
        }
}

// Lesson 6's A on the causal scenario, recomputed: softmax(X·W_Q·(X·W_K)ᵀ / √d_k + M), with M −∞
// above the diagonal, by the reference products and a softmax written here.
BOOST_AUTO_TEST_CASE(the_masked_weights_are_softmax_of_the_masked_scores) {
    const scenario s = load_scenario(induction_file);
    const matrix& X = s.matrices.at("X");
    const matrix Q = kernels::matmul_ref(X, s.matrices.at("W_Q"));  // [20, 32]
    const matrix K = kernels::matmul_ref(X, s.matrices.at("W_K"));  // [20, 32]
    matrix S = kernels::matmul_ref(Q, kernels::transpose(K));       // [20, 20]
    const float root = std::sqrt(static_cast<float>(K.cols));
    for (std::size_t i = 0; i < S.rows; ++i)
        for (std::size_t j = 0; j < S.cols; ++j) S(i, j) = j > i ? -std::numeric_limits<float>::infinity() : S(i, j) / root;
    const matrix expected = softmax_here(S);
    const lesson_run r = run_lesson(load_lesson(lesson_path(6)), s, lang::en);
    const matrix& A = shown_mat(r.t, "recap", "A");
    BOOST_TEST_REQUIRE(A.rows == expected.rows);
    // float32 products of 32 terms, rounded in another order by OpenBLAS: 1e-4 absolute on weights ≤ 1
    for (std::size_t i = 0; i < A.rows; ++i)
        for (std::size_t j = 0; j < A.cols; ++j) BOOST_TEST(std::abs(A(i, j) - expected(i, j)) <= 1e-4f, "[" << i + 1 << ", " << j + 1 << "]");
    BOOST_TEST(stage_of(r.t, "recap").formula.find("causal_mask(n)") != std::string::npos);
}

// Without `causal = true` nothing changes: 苹果很甜 runs and prints the plain formula.
BOOST_AUTO_TEST_CASE(a_scenario_without_the_flag_runs_the_plain_formulas) {
    const lesson_run r = run(6);
    BOOST_TEST(!r.t.causal);
    BOOST_TEST(stage_of(r.t, "recap").formula.find("causal_mask") == std::string::npos);
    BOOST_TEST(shown_mat(r.t, "recap", "A")(0, 2) > 0.0f);  // 苹果 → 甜, a weight above the diagonal
}

BOOST_AUTO_TEST_CASE(causal_must_be_true_or_false) {
    try {
        read_scenario(read_toml_text("tokens = [\"a\"]\ncausal = \"yes\"\n[matrices]\nX = [[1.0]]\n", "s.toml"));
        BOOST_FAIL("no error");
    } catch (const input_error& e) {
        BOOST_TEST(std::string(e.what()).find("s.toml:2") == 0u, e.what());
        BOOST_TEST(std::string(e.what()).find("causal must be true or false") != std::string::npos, e.what());
    }
}

// causal_formula assigns what formula assigns: the text quotes those names on either scenario.
BOOST_AUTO_TEST_CASE(a_causal_formula_assigns_the_same_names) {
    const std::string text = "number = 20\ntitle = { zh = \"甲\", en = \"A\" }\n"
                             "[[stage]]\nid = \"a\"\ntitle = { zh = \"甲\", en = \"A\" }\ntext = { zh = \"甲\", en = \"a\" }\n"
                             "formula = \"A = softmax(X)\"\n"
                             "causal_formula = \"B = softmax(X + causal_mask(n))\"\n";  // line 8
    std::vector<problem> problems;
    read_lesson(read_toml_text(text, "x.toml"), &problems);
    BOOST_REQUIRE_EQUAL(problems.size(), 1u);
    BOOST_TEST(problems[0].str().find("x.toml:8:") == 0u, problems[0].str());
    BOOST_TEST(problems[0].str().find("causal_formula must assign the names formula assigns") != std::string::npos, problems[0].str());
}

// The trained model's 20 tokens, in lessons 2–9 at 80 columns, in both languages: not one line
// wider than the screen (a CJK character counts two).
BOOST_AUTO_TEST_CASE(lessons_on_the_trained_model_fit_80_columns) {
    const scenario s = load_scenario(induction_file);
    for (int n = 2; n <= 9; ++n)
        for (lang l : {lang::en, lang::zh}) {
            render_options o;
            o.language = l;
            o.width = 80;
            const std::string text = render_text(run_lesson(load_lesson(lesson_path(n)), s, l).t, o);
            std::size_t at = 0, line = 1;
            while (at < text.size()) {
                const std::size_t end = std::min(text.find('\n', at), text.size());
                const std::string one = text.substr(at, end - at);
                BOOST_TEST(display_width(one) <= 80u, "lesson " << n << " line " << line << ": " << one);
                at = end + 1, ++line;
            }
        }
}

// Lesson 8's head detector on the trained layer, recomputed here from the A_h it shows: the
// induction pattern from the tokens (i → j + 1 where token j is token i, j < i, as
// TransformerLens's get_induction_head_detection_pattern builds it), then sum(A ∘ P) / sum(A).
BOOST_AUTO_TEST_CASE(lesson_8_scores_its_heads_as_the_head_detector_does) {
    const scenario s = load_scenario(induction_file);
    const lesson_run r = run_lesson(load_lesson(lesson_path(8)), s, lang::en);
    const value& A_h = shown(r.t, "head-weights", "A_h");
    const matrix& s_ind = shown_mat(r.t, "what-heads-do", "s_ind");
    const matrix& s_prev = shown_mat(r.t, "what-heads-do", "s_prev");
    const std::size_t n = s.tokens.size();
    for (std::size_t h = 0; h < A_h.mats.size(); ++h) {
        const matrix& A = A_h.mats[h];
        double on_ind = 0, on_prev = 0, all = 0;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) {
                all += A(i, j);
                if (j >= 1 && j - 1 < i && s.tokens[j - 1] == s.tokens[i] && j <= i) on_ind += A(i, j);
                if (j + 1 == i) on_prev += A(i, j);
            }
        // sums of 400 float weights: 1e-5
        BOOST_TEST(s_ind(h, 0) == on_ind / all, boost::test_tools::tolerance(1e-5));
        BOOST_TEST(s_prev(h, 0) == on_prev / all, boost::test_tools::tolerance(1e-5));
    }
    // the weight piled on position 1 (the text's explanation), recomputed: rows 2 … n with no earlier
    // occurrence of their token, against the rows that have one
    const matrix& A = A_h.mats[0];
    double resting = 0, looking = 0;
    std::size_t without = 0, with = 0;
    for (std::size_t i = 1; i < n; ++i) {
        bool seen = false;
        for (std::size_t j = 0; j < i; ++j) seen = seen || s.tokens[j] == s.tokens[i];
        (seen ? looking : resting) += A(i, 0);
        ++(seen ? with : without);
    }
    BOOST_TEST_REQUIRE((with > 0u && without > 0u));
    BOOST_TEST(resting / without > 0.5);   // 0.59 on this run: most of those rows' weight
    BOOST_TEST(looking / with < 0.05);     // 0.01
    BOOST_TEST(stage_of(r.t, "what-heads-do").text.find("rests when it has nowhere to look") != std::string::npos);
    // the trained layer 2 holds an induction head: over the rows with somewhere to look, above 0.4
    BOOST_TEST(stage_of(r.t, "what-heads-do").text.find("is an induction head") != std::string::npos, stage_of(r.t, "what-heads-do").text);
}

// The cells the induction score counts are marked in A_h's heatmap, in every format: a • in text
// and Markdown, a class in HTML, the pattern itself in JSON, where P_ind has a 1: row o₁₄ (the
// repeat's first token), column q₄, the token after the earlier o₃.
BOOST_AUTO_TEST_CASE(the_cells_a_score_counts_are_marked_in_every_format) {
    const scenario s = load_scenario(induction_file);
    const lesson_run r = run_lesson(load_lesson(lesson_path(8)), s, lang::en);
    trace one = r.t;
    one.stages = {stage_of(r.t, "what-heads-do")};
    render_options o;
    o.width = 100;
    const std::string text = render_text(one, o);
    BOOST_TEST(text.find("•  a cell the score counts") != std::string::npos);
    BOOST_TEST(text.find("█•") != std::string::npos, text);  // o₁₄'s weight on q₄, marked
    BOOST_TEST(render_markdown(one, o).find("•") != std::string::npos);
    BOOST_TEST(render_html({one}, o).find("class=\"heat marked\"") != std::string::npos);
    const auto j = nlohmann::json::parse(render_json(one));
    bool found = false;
    for (const auto& v : j["stages"][0]["values"])
        if (v["name"] == "A_h") {
            found = true;
            BOOST_TEST(v["marked"][13][3] == 1);  // o₁₄ → q₄ (from 0: row 13, column 3)
            BOOST_TEST(v["marked"][13][2] == 0);
        }
    BOOST_TEST(found);
}
