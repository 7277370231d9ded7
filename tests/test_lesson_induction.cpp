// Lesson 18 as a learner runs it, its values held to this file's own reading of them: the scores
// recomputed from the attention maps the lesson shows, the drop from the loss curve it shows, the
// named heads as the best of their layer, the held-out sequence's promise (a segment of distinct
// tokens found nowhere else), and what switching a head off must and must not change.
#define BOOST_TEST_MODULE lesson_induction
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <set>

#include "qkv/render_text.hpp"
#include "support/lessons.hpp"
#include "support/training.hpp"

using namespace qkv;

namespace {

const lesson_run& run18() {
    static const lesson_run r = test::run(18);
    return r;
}

const matrix& mat(const std::string& name) { return run18().ws.at(name).mat(); }
const value& val(const std::string& name) { return run18().ws.at(name); }
float num(const std::string& name) { return run18().ws.at(name).number; }

// first, second (from 0) and length of the held-out sequence's two copies
struct span {
    std::size_t first, second, length;
};
span repeat() {
    const matrix& r = mat("r");
    return {std::size_t(r(0, 0)) - 1, std::size_t(r(0, 1)) - 1, std::size_t(r(0, 2))};
}

double previous_token(const matrix& A) {
    double sum = 0;
    for (std::size_t i = 1; i < A.rows; ++i) sum += A(i, i - 1);
    return sum / double(A.rows - 1);
}

double induction(const matrix& A, const span& s) {
    double sum = 0;
    for (std::size_t k = 0; k < s.length; ++k) sum += A(s.second + k, s.first + k + 1);
    return sum / double(s.length);
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_held_out_segment_is_distinct_and_found_nowhere_else) {
    const matrix& x = mat("x");
    const span s = repeat();
    BOOST_TEST_REQUIRE(s.second >= s.first + s.length);
    BOOST_TEST_REQUIRE(s.second + s.length <= x.cols);
    std::set<float> segment;
    for (std::size_t k = 0; k < s.length; ++k) {
        BOOST_TEST(x(0, s.first + k) == x(0, s.second + k));
        segment.insert(x(0, s.first + k));
    }
    BOOST_TEST(segment.size() == s.length);
    for (std::size_t i = 0; i < x.cols; ++i) {
        const bool in_copy = (i >= s.first && i < s.first + s.length) || (i >= s.second && i < s.second + s.length);
        if (!in_copy) BOOST_TEST(!segment.count(x(0, i)), "position " << i + 1);
    }
}

BOOST_AUTO_TEST_CASE(the_scores_are_what_the_maps_show) {
    const span s = repeat();
    const matrix& S = mat("S_end");
    const value& A1 = val("A1_end");
    const value& A2 = val("A2_end");
    BOOST_TEST_REQUIRE(A1.mats.size() == 2u);
    BOOST_TEST_REQUIRE(S.rows == 4u);
    for (std::size_t h = 0; h < 2; ++h) {
        // float weights summed in double on both sides: agreement to float rounding
        BOOST_TEST(S(h, 0) == previous_token(A1.mats[h]), boost::test_tools::tolerance(1e-5));
        BOOST_TEST(S(h, 1) == induction(A1.mats[h], s), boost::test_tools::tolerance(1e-5));
        BOOST_TEST(S(2 + h, 0) == previous_token(A2.mats[h]), boost::test_tools::tolerance(1e-5));
        BOOST_TEST(S(2 + h, 1) == induction(A2.mats[h], s), boost::test_tools::tolerance(1e-5));
    }
    // causal: nothing above the diagonal, and every row a distribution
    for (const matrix& A : A2.mats)
        for (std::size_t i = 0; i < A.rows; ++i) {
            double row = 0;
            for (std::size_t j = 0; j < A.cols; ++j) row += A(i, j);
            for (std::size_t j = i + 1; j < A.cols; ++j) BOOST_TEST(A(i, j) == 0.0f);
            BOOST_TEST(row == 1.0, boost::test_tools::tolerance(1e-5));
        }
}

BOOST_AUTO_TEST_CASE(the_named_heads_are_the_best_of_their_layer_and_the_circuit_formed) {
    const matrix& S = mat("S_end");
    const matrix& heads = mat("heads");
    const std::size_t prev = std::size_t(heads(0, 1)) - 1, ind = 2 + std::size_t(heads(1, 1)) - 1;
    BOOST_TEST(heads(0, 0) == 1.0f);
    BOOST_TEST(heads(1, 0) == 2.0f);
    BOOST_TEST(S(prev, 0) >= S(1 - prev, 0));
    BOOST_TEST(S(ind, 1) >= S(ind == 2 ? 3 : 2, 1));
    // what the lesson's seed is chosen for, and its prose says only under an {if}
    BOOST_TEST(S(prev, 0) > 0.5f);
    BOOST_TEST(S(ind, 1) > 0.5f);
}

BOOST_AUTO_TEST_CASE(the_drop_is_where_the_shown_curve_first_falls_below_half_of_ln_vocab) {
    const matrix& loss = mat("loss");
    const double half = std::log(double(mat("model")(0, 0))) / 2;  // ln 20 / 2 ≈ 1.498
    const std::size_t window = std::min<std::size_t>(std::max<std::size_t>(loss.rows / 50, 1), 50);
    std::size_t first = 0;
    for (std::size_t i = window - 1; i < loss.rows && !first; ++i)
        if (loss(i, 0) < half) first = i + 1;
    BOOST_TEST(num("drop") == float(first));
    BOOST_TEST(num("before") < num("drop"));
    BOOST_TEST(std::fmod(num("before"), num("steps") / 10) == 0.0f);  // a checkpoint
    BOOST_TEST(loss(std::size_t(num("before")) - 1, 0) >= 0.8 * 2 * half);
    // one recorded checkpoint per tenth of the run, and step 0
    BOOST_TEST(test::stage_of(run18().t, "plateau").steps.size() == 11u);
}

BOOST_AUTO_TEST_CASE(switching_the_previous_token_head_off_undoes_the_circuit_and_nothing_before_it) {
    const matrix& S = mat("S_end");
    const matrix& off = mat("S_off");
    // layer 1 runs before the switch: its attention is as it was
    for (std::size_t h = 0; h < 2; ++h)
        for (std::size_t c = 0; c < 2; ++c) BOOST_TEST(off(h, c) == S(h, c));
    const std::size_t ind = 2 + std::size_t(mat("heads")(1, 1)) - 1;
    BOOST_TEST(off(ind, 1) < 0.5f * S(ind, 1));
    BOOST_TEST(mat("L_off")(0, 1) > mat("L_on")(0, 1) + 0.5f);
    BOOST_TEST(mat("L_other")(0, 1) < mat("L_off")(0, 1));
    // the induction head's map as the lesson shows it, with the head off: its score read off it
    const span s = repeat();
    BOOST_TEST(off(ind, 1) == induction(mat("A_ind_off"), s), boost::test_tools::tolerance(1e-5));
    BOOST_TEST(S(ind, 1) == induction(mat("A_ind"), s), boost::test_tools::tolerance(1e-5));
}

// Issue 40: lesson 18 trains on sequences it makes itself; its heading said "scenario 苹果很甜"
// (and still did under --tokens "the cat sat on the mat"), data that never ran. The heading names
// no scenario the lesson did not read.
BOOST_AUTO_TEST_CASE(the_heading_names_no_scenario_that_did_not_run) {
    const scenario apple = load_scenario(test::apple_file);
    BOOST_TEST(run18().t.scenario != apple.name);
    BOOST_TEST(run18().t.scenario.find(apple.name) == std::string::npos);
    scenario_choice given;
    given.made = generate_scenario(scenario_spec{split_tokens("the cat sat on the mat")});
    given.made_from = scenario_spec{split_tokens("the cat sat on the mat")};
    for (lang l : {lang::en, lang::zh}) {
        const std::vector<trace> t = run_lessons({test::lesson_path(18)}, given, l);
        BOOST_TEST_REQUIRE(t.size() == 1u);
        BOOST_TEST(t[0].scenario.find("苹果") == std::string::npos, t[0].scenario);
        BOOST_TEST(t[0].scenario.find("cat") == std::string::npos, t[0].scenario);
        BOOST_TEST(t[0].scenario.empty(), "no scenario ran: " << t[0].scenario);
        render_options words;
        words.language = l;
        BOOST_TEST(render_text(t[0], words).find(l == lang::en ? "the lesson makes its own data" : "数据由本课自己生成") != std::string::npos,
                   "the heading says what ran");
    }
}
