// The scores that name a run's heads, on attention maps written out here, where each answer can be
// worked by hand; the drop and the checkpoints a reader is shown, on loss curves written out here;
// Adam's first steps against its formula computed here.
#define BOOST_TEST_MODULE train_scores
#include <boost/test/unit_test.hpp>

#include <cmath>

#include "qkv/adam.hpp"
#include "qkv/head_scores.hpp"
#include "qkv/training_run.hpp"

using namespace qkv;
using namespace qkv::train;

BOOST_AUTO_TEST_CASE(a_head_that_looks_one_back_scores_one) {
    matrix A(4, 4);
    A(0, 0) = 1;
    for (std::size_t i = 1; i < 4; ++i) A(i, i - 1) = 1;
    BOOST_TEST(previous_token_score(A) == 1.0f);
    matrix even(4, 4);  // row i spreads 1 / i over keys 1 … i: (1/2 + 1/3 + 1/4) / 3 ≈ 0.3611
    for (std::size_t i = 0; i < 4; ++i)
        for (std::size_t j = 0; j <= i; ++j) even(i, j) = 1.0f / float(i + 1);
    BOOST_TEST(previous_token_score(even) == (0.5f + 1.0f / 3 + 0.25f) / 3, boost::test_tools::tolerance(1e-6f));
}

BOOST_AUTO_TEST_CASE(the_induction_score_reads_just_after_the_earlier_occurrence) {
    // segment of 2 at positions 1 and 4 (from 0): the copy's positions 4 and 5 should read 2 and 3
    const repeat_span s{1, 4, 2};
    matrix A(7, 7);
    A(4, 2) = 0.8f, A(4, 1) = 0.2f;  // position 4: 0.8 just after, 0.2 on the occurrence itself
    A(5, 3) = 0.6f, A(5, 4) = 0.4f;
    BOOST_TEST(induction_score(A, s) == (0.8f + 0.6f) / 2, boost::test_tools::tolerance(1e-6f));
    // reverse, m = 3: the predictions at 2, 3, 4 read 2, 1, 0
    const repeat_span half{0, 3, 3};
    matrix R(6, 6);
    R(2, 2) = 1, R(3, 1) = 1, R(4, 0) = 0.5f;
    const std::vector<int> tokens{0, 1, 2, 2, 1, 0};  // reverse's sources are places: the values move none
    BOOST_TEST(source_score(R, task::reverse, tokens, half) == 2.5f / 3, boost::test_tools::tolerance(1e-6f));
}

BOOST_AUTO_TEST_CASE(the_named_heads_come_from_the_layers_the_circuit_needs) {
    auto head = [](std::size_t l, std::size_t h, float prev, float ind) { return head_view{l, h, matrix(), prev, ind, 0}; };
    // a layer-2 head with the highest previous-token score is not the previous-token head, and a
    // layer-1 head with the highest induction score is not the induction head
    const std::vector<head_view> heads{head(1, 1, 0.3f, 0.9f), head(1, 2, 0.6f, 0.1f), head(2, 1, 0.9f, 0.2f), head(2, 2, 0.1f, 0.7f)};
    const named_heads n = name_heads(heads, 2);
    BOOST_TEST(n.previous_token[0] == 1u);
    BOOST_TEST(n.previous_token[1] == 2u);
    BOOST_TEST(n.induction[0] == 2u);
    BOOST_TEST(n.induction[1] == 2u);
}

namespace {

std::vector<step_record> curve(const std::vector<float>& repeated) {
    std::vector<step_record> out;
    for (std::size_t i = 0; i < repeated.size(); ++i) out.push_back({i + 1, repeated[i], repeated[i], 0, 0});
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_drop_is_the_first_window_below_half_of_ln_vocab) {
    // 100 steps: a window of 2 (100 / 50). ln 16 / 2 ≈ 1.386: steps at 2.8, then 1.0 from step 61
    std::vector<float> loss(100, 2.8f);
    for (std::size_t i = 60; i < 100; ++i) loss[i] = 1.0f;
    // the window ending at step 61 holds 2.8 and 1.0 (mean 1.9); the one ending at 62, 1.0 and 1.0
    BOOST_TEST(drop_step(curve(loss), 16).value() == 62u);
    BOOST_TEST(!drop_step(curve(std::vector<float>(100, 2.0f)), 16).has_value());
}

BOOST_AUTO_TEST_CASE(the_plateau_shown_is_the_last_checkpoint_still_near_ln_vocab) {
    run_result run;
    std::vector<float> loss(100, 2.7f);                             // ln 16 ≈ 2.773: 0.8 of it is 2.218
    for (std::size_t i = 40; i < 60; ++i) loss[i] = 2.0f;           // falling from step 41
    for (std::size_t i = 60; i < 100; ++i) loss[i] = 0.5f;          // below half from step 62
    run.steps = curve(loss);
    for (std::size_t s = 0; s <= 100; s += 20) run.checkpoints.push_back({s, {}, 0, 0});
    run.drop = drop_step(run.steps, 16);
    const std::vector<std::size_t> shown = telling_checkpoints(run, 16);
    BOOST_TEST_REQUIRE(shown.size() == 3u);
    BOOST_TEST(run.checkpoints[shown[0]].step == 0u);
    BOOST_TEST(run.checkpoints[shown[1]].step == 40u);  // 60 is before the drop, but already at 2.0
    BOOST_TEST(run.checkpoints[shown[2]].step == 100u);
}

BOOST_AUTO_TEST_CASE(adam_takes_the_steps_of_its_formula) {
    optimizer_config o;
    o.lr = 0.1f, o.warmup = 2, o.clip = 0;
    std::vector<float> w{1.0f}, g{0.5f};
    adam_state s;
    // step 1 at lr 0.1 · 1/2: m = 0.05, v = 0.00025; m̂ = 0.5, v̂ = 0.25: w = 1 − 0.05 · 0.5 / (0.5 + 1e-8)
    update_report r = adam_update(w, g, s, o, 1);
    BOOST_TEST(r.lr == 0.05f);
    BOOST_TEST(w[0] == 1.0 - 0.05 * 0.5 / (0.5 + 1e-8), boost::test_tools::tolerance(1e-6));
    // step 2 at the full rate, the same gradient: m̂ = 0.5 and v̂ = 0.25 again, another 0.1 down
    g = {0.5f};
    adam_update(w, g, s, o, 2);
    BOOST_TEST(w[0] == 1.0 - 0.05 - 0.1, boost::test_tools::tolerance(1e-5));
}

BOOST_AUTO_TEST_CASE(a_gradient_above_the_clip_is_scaled_to_it) {
    optimizer_config o;
    o.clip = 1.0f;
    std::vector<float> w{0.0f, 0.0f}, g{3.0f, 4.0f};  // norm 5
    adam_state s;
    const update_report r = adam_update(w, g, s, o, 1);
    BOOST_TEST(r.grad_norm == 5.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(g[0] == 0.6f, boost::test_tools::tolerance(1e-6f));  // 3 · 1 / (5 + 1e-6)
    BOOST_TEST(g[1] == 0.8f, boost::test_tools::tolerance(1e-6f));
}
