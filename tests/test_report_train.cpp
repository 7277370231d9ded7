// The report of a training run, on an outcome built by hand (no training): the JSON document has
// every field README.md lists, in its order, with the figures put in; the text says the same
// figures, worked out below from the numbers given; every task of the tasks' table has its words;
// and the progress line keeps what a narrow window can show.
#define BOOST_TEST_MODULE report_train
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/columns.hpp"
#include "qkv/report_train.hpp"
#include "qkv/report_train_progress.hpp"
#include "qkv/tasks.hpp"

using namespace qkv;
using namespace qkv::train;
using json = nlohmann::ordered_json;

namespace {

using qkv::test::columns;

// A [6, 6] attention pattern: every row puts `w` on the key `back` positions before it (or on
// itself when there is none) and the rest on itself.
matrix looking_back(std::size_t back, float w) {
    matrix A(6, 6);
    for (std::size_t i = 0; i < 6; ++i) {
        const std::size_t j = i >= back ? i - back : i;
        A(i, j) += w, A(i, i) += 1 - w;
    }
    return A;
}

// One layer of two heads on the held-out sequence a b c d b c (tokens 0 1 2 3 1 2), whose segment
// "b c" (length 2) starts at positions 1 and 4 from 0; trained 2 steps on 2 threads, from seed 7.
// Head 1.1 looks one back (previous-token), head 1.2 is the induction head; the scores are given,
// as the report reads them and never computes them.
train_outcome by_hand(task t = task::induction) {
    train_outcome o;
    train_config& c = o.config;
    c.what = t;
    c.size = {4, 6, 8, 2, 1};  // vocab, seq, d_model, heads, layers
    c.batch = 3, c.steps = 2, c.segment_min = 2, c.segment_max = 2, c.seed = 7, c.threads = 2;
    run_result& r = o.run;
    r.steps = {{1, 1.5f, 1.2f, 0.001f, 0}, {2, 0.9f, 0.5f, 0.002f, 0}};
    const head_view previous{1, 1, looking_back(1, 0.8f), 0.8f, 0.1f, 0.3f};  // layer, head, A, scores p, i, s
    const head_view induction{1, 2, looking_back(2, 0.9f), 0.2f, 0.9f, 0.7f};
    for (std::size_t step : {0u, 1u, 2u})  // losses on the held-out sequence 2, 1, 0 and half of them
        r.checkpoints.push_back({step, {previous, induction}, float(2 - step), float(2 - step) / 2});
    r.held = {1, 6, {0, 1, 2, 3, 1, 2}, {{1, 4, 2}}};
    r.names.previous_token[0] = 1, r.names.previous_token[1] = 1;
    r.names.induction[0] = 1, r.names.induction[1] = 2;
    r.names.source[0] = 1, r.names.source[1] = 2;
    // the repeated copy's loss over a window of 1 step (steps / 50, at least 1): 1.2, then 0.5 below
    // ½ ln 4 = 0.693, so the drop is at step 2
    r.drop = 2;
    r.seconds = 0.5;
    o.first_step = 0;
    return o;
}

// "a b c" as {"a", "b", "c"}.
std::vector<std::string> words(const std::string& text) {
    std::vector<std::string> out;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t end = std::min(text.find(' ', at), text.size());
        out.push_back(text.substr(at, end - at));
        at = end + 1;
    }
    return out;
}

std::vector<std::string> keys_of(const json& j) {
    std::vector<std::string> out;
    for (const auto& [k, v] : j.items()) out.push_back(k);
    return out;
}

bool has(const std::string& text, const std::string& piece) { return text.find(piece) != std::string::npos; }

}  // namespace

BOOST_AUTO_TEST_CASE(the_json_has_every_documented_field_with_the_figures_given) {
    const json j = json::parse(train_json(by_hand(), false));
    // README.md, "--format json", in its order
    BOOST_TEST(keys_of(j) ==
               words("config steps checkpoints tokens repeat previous_token_head induction_head naming_threshold previous_token_rose_at induction_rose_at drop_step "
                     "loss_repeated_final steps_done stopped seconds"));
    BOOST_TEST(keys_of(j["config"]) ==
               words("task vocab seq d_model heads layers batch steps segment_min segment_max "
                     "init_embedding init_position init_gain lr beta1 beta2 eps warmup clip seed "
                     "threads parameters"));
    BOOST_TEST(j["config"]["task"] == "induction");
    BOOST_TEST(j["naming_threshold"].get<double>() == 0.4, boost::test_tools::tolerance(1e-6));
    BOOST_TEST(j["previous_token_rose_at"] == 0);  // 0.8 and 0.9 from the first checkpoint on
    BOOST_TEST(j["induction_rose_at"] == 0);
    BOOST_TEST(j["config"]["seed"] == 7);
    BOOST_TEST(j["config"]["threads"] == 2);
    // V·C + T·C + L·4·C² + C·V = 4·8 + 6·8 + 1·4·64 + 8·4 = 32 + 48 + 256 + 32
    BOOST_TEST(j["config"]["parameters"] == 368);
    BOOST_TEST_REQUIRE(j["steps"].size() == 2u);
    BOOST_TEST(keys_of(j["steps"][1]) == words("step loss loss_repeated lr"));
    BOOST_TEST(j["steps"][1]["step"] == 2);
    BOOST_TEST(j["steps"][1]["loss"].get<double>() == 0.9);  // a float written as its shortest decimal
    BOOST_TEST(j["steps"][1]["loss_repeated"].get<double>() == 0.5);
    BOOST_TEST(j["steps"][1]["lr"].get<double>() == 0.002);
    BOOST_TEST_REQUIRE(j["checkpoints"].size() == 3u);
    const json& end = j["checkpoints"][2];
    BOOST_TEST(keys_of(end) == words("step loss loss_repeated heads"));
    BOOST_TEST(end["step"] == 2);
    BOOST_TEST(end["loss"].get<double>() == 0.0);
    BOOST_TEST_REQUIRE(end["heads"].size() == 2u);
    const json& h = end["heads"][1];
    BOOST_TEST(keys_of(h) == words("layer head A previous_token_score induction_score"));
    BOOST_TEST(h["layer"] == 1);
    BOOST_TEST(h["head"] == 2);
    BOOST_TEST(h["A"].size() == 6u);
    BOOST_TEST(h["A"][4][2].get<double>() == 0.9, boost::test_tools::tolerance(1e-6));  // two back from position 4
    // nothing two back from position 1: all of it on itself
    BOOST_TEST(h["A"][1][1].get<double>() == 1.0, boost::test_tools::tolerance(1e-6));
    BOOST_TEST(h["induction_score"].get<double>() == 0.9, boost::test_tools::tolerance(1e-6));
    BOOST_TEST(j["tokens"] == json({0, 1, 2, 3, 1, 2}));
    BOOST_TEST(j["repeat"] == json({{"first", 2}, {"second", 5}, {"length", 2}}));  // positions from 1
    BOOST_TEST(j["previous_token_head"] == json({1, 1}));
    BOOST_TEST(j["induction_head"] == json({1, 2}));
    BOOST_TEST(j["drop_step"] == 2);
    BOOST_TEST(j["loss_repeated_final"].get<double>() == 0.5);  // the last step's, over a window of 1
    BOOST_TEST(j["steps_done"] == 2);
    BOOST_TEST(j["stopped"] == false);
    BOOST_TEST(j["seconds"].get<double>() == 0.5);
}

BOOST_AUTO_TEST_CASE(a_loaded_model_counts_its_steps_and_a_run_may_not_drop) {
    train_outcome o = by_hand();
    o.first_step = 40;  // a model --load read, 40 steps old
    o.run.drop.reset();
    const json j = json::parse(train_json(o, true));
    BOOST_TEST(j["steps_done"] == 42);
    BOOST_TEST(j["drop_step"].is_null());
    BOOST_TEST(!j["steps"][0].contains("tokens"));  // asked for, but this run recorded none
    o.run.batches = {{0, 1, 2, 3, 1, 2, 3, 3, 0, 1, 3, 0, 2, 2, 1, 0, 2, 1},
                     {1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3}};
    const json with = json::parse(train_json(o, true));
    BOOST_TEST(with["steps"][1]["tokens"].size() == 18u);  // batch 3 · seq 6
    BOOST_TEST(!json::parse(train_json(o, false))["steps"][1].contains("tokens"));
}

BOOST_AUTO_TEST_CASE(the_text_says_the_figures_given) {
    render_options r;
    r.width = 1000;  // the facts of the run on one line
    BOOST_TEST(
        train_text(by_hand(), r).rfind(
            "qkv train  induction · vocab 4 · seq 6 · d_model 8 · 1 × 2 heads (layers × heads) · batch 3 · 2 steps · "
            "seed 7 · 2 threads\n",
            0) == 0u);
    r.width = 100;
    const std::string text = train_text(by_hand(), r);
    BOOST_TEST(has(text,
                   "The held-out sequence (every head below is shown on it):\n  a b c d b c\n"
                   "  its segment of 2 starts at position 2 and again at 5\n"));
    // the telling checkpoints: before training, the last before the drop (step 1), the end
    BOOST_TEST(has(text, "\nStep 0, before training\n"));
    BOOST_TEST(has(text, "\nStep 1, on the plateau\n"));
    BOOST_TEST(has(text, "\nStep 2, the end\n"));
    // the scores at the end: "head 1.1" in 10 columns, then 16 and 12 right-aligned
    BOOST_TEST(has(
        text, "head 1.1" + std::string(14, ' ') + "0.80" + std::string(8, ' ') + "0.10  ← the previous-token head\n"));
    BOOST_TEST(
        has(text, "head 1.2" + std::string(14, ' ') + "0.20" + std::string(8, ' ') + "0.90  ← the induction head\n"));
    // ½ ln 4 = 0.693; over a window of 1 step
    BOOST_TEST(has(
        text, "The drop: step 2, where the loss of the repeated copy (a mean of 1 step) fell below ½ ln 4 = 0.69.\n"));
    // 0.5 / ln 4 = 0.5 / 1.386 = 36 %
    BOOST_TEST(has(
        text, "The loss of the repeated copy at the end: 0.50, 36% of ln 4 = 1.39 (the mean of the last 1 step).\n"));
    // 0.5 s over 2 steps: 250 ms a step
    BOOST_TEST(has(text, "Trained 2 steps in 0.50 s: 250.00 ms a step, 2 threads.\n"));
    BOOST_TEST(!has(text, "source"));
    BOOST_TEST(!has(text, "Training was stopped"));
    // the plateau held to ln V: step 1's loss of the copy over a window of 1 step, 1.2 / ln 4 = 87 %
    BOOST_TEST(has(text, "On the plateau, at step 1, it was 1.20: 87% of ln 4 = 1.39, the loss of a uniform guess"));
    // one layer: why there is no induction head to name, and no "more steps may find it"
    BOOST_TEST(has(text, "With one layer no induction head can form"));
    BOOST_TEST(!has(text, "may find it"));
}

// Two layers: a head is named only at a score of 0.4 or more, and the order in which the two
// scores rose is read from the checkpoints given (the induction score at step 1, the previous-token
// score at step 2).
BOOST_AUTO_TEST_CASE(heads_are_named_above_the_threshold_in_the_order_their_scores_rose) {
    train_outcome o = by_hand();
    o.config.size.layers = 2;
    auto heads_at = [](float previous, float induction) {
        return std::vector<head_view>{{1, 1, looking_back(1, 0.8f), previous, 0.1f, 0},
                                      {2, 1, looking_back(2, 0.9f), 0.1f, induction, 0}};
    };
    o.run.checkpoints[0].heads = heads_at(0.1f, 0.1f);
    o.run.checkpoints[1].heads = heads_at(0.3f, 0.5f);  // the induction score passes 0.4 first
    o.run.checkpoints[2].heads = heads_at(0.7f, 0.9f);
    o.run.names.previous_token[0] = 1, o.run.names.previous_token[1] = 1;
    o.run.names.induction[0] = 2, o.run.names.induction[1] = 1;
    render_options r;
    r.width = 1000;
    std::string text = train_text(o, r);
    BOOST_TEST(has(text, "0.10  ← the previous-token head\n"));
    BOOST_TEST(has(text, "0.90  ← the induction head\n"));
    BOOST_TEST(has(text, "Head 1.1's previous-token score first reached 0.4 at step 2, head 2.1's induction score at step 1 "
                         "(checkpoints every 1 steps): the induction score rose first."), text);
    // below the threshold at the end: no name, and a line that says why
    o.run.checkpoints[2].heads = heads_at(0.35f, 0.9f);
    text = train_text(o, r);
    BOOST_TEST(!has(text, "← the previous-token head"));
    BOOST_TEST(has(text, "No head reaches 0.4 on the previous-token score (the best, head 1.1, has 0.35): none is named for it."), text);
    BOOST_TEST(!has(text, "rose first"));
}

BOOST_AUTO_TEST_CASE(a_task_judged_by_its_source_reports_the_source_head) {
    train_outcome o = by_hand(task::reverse);
    o.run.held.spans = {{0, 3, 3}};  // the halves of seq 6: a b c, then c b a
    o.run.held.tokens = {0, 1, 2, 2, 1, 0};
    const json j = json::parse(train_json(o, false));
    BOOST_TEST(j["config"]["task"] == "reverse");
    BOOST_TEST(j["source_head"] == json({1, 2}));
    BOOST_TEST(j["checkpoints"][0]["heads"][0]["source_score"].get<double>() == 0.3,
               boost::test_tools::tolerance(1e-6));
    render_options r;
    r.width = 1000;  // the prose on one line each
    const std::string text = train_text(o, r);
    BOOST_TEST(has(text, "  its first 3 tokens start at position 1 and come again backwards from 4\n"));
    BOOST_TEST(has(text, "0.70  ← the source head\n"));
    BOOST_TEST(!has(text, "← the induction head"));
    BOOST_TEST(has(text, "where the loss of the second half"));
    BOOST_TEST(has(text, "Before the drop the model has no way to the second half but to bet on the tokens it has seen."));  // drop_source
    BOOST_TEST(has(text, "For reverse, the previous-token and induction scores measure stripes this task does not use"));
}

namespace {

// text with each line end and the indent after it as one space (en), or as nothing (zh).
std::string joined(const std::string& text, bool spaced) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '\n') {
            out += text[i];
            continue;
        }
        while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
        if (spaced) out += ' ';
    }
    return out;
}

}  // namespace

// Issue 40: at 80 columns the report's own sentences ran on to 105 columns (the drop, the loss at the
// end) and the facts of the run to 128, and the terminal cut them ("fe/ll below"). Every line fits,
// in both languages, wrapped as the prose around it is; joined again, each sentence is whole, and
// no fact of the header is cut in two.
BOOST_AUTO_TEST_CASE(the_report_fits_80_columns_and_its_sentences_stay_whole) {
    train_outcome o = by_hand();
    // figures of the size a default run prints: a four-digit step, two-digit sums, 16 threads
    o.config.size.vocab = 24, o.config.threads = 16, o.run.drop = 1587, o.run.seconds = 11.06;
    // ½ ln 24 = 1.589; the end: 0.5 / ln 24 = 0.5 / 3.178 = 16 %; 11.06 s / 2 steps = 5530 ms a step
    const std::string drop_en = "The drop: step 1587, where the loss of the repeated copy (a mean of 1 step) fell below ½ ln 24 = 1.59.";
    const std::string end_en = "The loss of the repeated copy at the end: 0.50, 16% of ln 24 = 3.18 (the mean of the last 1 step).";
    const std::string facts_en = "qkv train  induction · vocab 24 · seq 6 · d_model 8 · 1 × 2 heads (layers × heads) · batch 3 · "
                                 "2 steps · seed 7 · 16 threads";
    const std::string drop_zh = "下降：第 1587 步，重复的那一段的损失（1 步的平均）跌到 ½ ln 24 = 1.59 以下。";
    const std::string end_zh = "结束时重复的那一段的损失：0.50，是 ln 24 = 3.18 的 16%（最后 1 步的平均）。";
    for (const lang l : {lang::en, lang::zh}) {
        BOOST_TEST_CONTEXT(lang_code(l)) {
            render_options r;
            r.language = l;
            r.width = 80;
            const std::string text = train_text(o, r);
            for (std::size_t at = 0, end; at < text.size(); at = end + 1) {
                end = text.find('\n', at);
                const std::string line = text.substr(at, end - at);
                BOOST_TEST(columns(line) <= 79u, columns(line) << ": " << line);
            }
            const std::string one = joined(text, l == lang::en);
            if (l == lang::en) {
                BOOST_TEST(has(text, drop_en.substr(0, 40)));
                BOOST_TEST(!has(text, drop_en));  // 101 columns: it is wrapped
                BOOST_TEST(has(one, drop_en));
                BOOST_TEST(has(one, end_en));
                BOOST_TEST(has(one, "Trained 2 steps in 11.06 s: 5530.00 ms a step, 16 threads."));
                BOOST_TEST(joined(text.substr(0, text.find("\n\n")), true) == facts_en);
            } else {
                BOOST_TEST(has(one, drop_zh));
                BOOST_TEST(has(one, end_zh));
                BOOST_TEST(has(one, "训练 2 步用了 11.06 秒：每步 5530.00 毫秒，16 个线程。"));
                BOOST_TEST(text.rfind("qkv train  induction · vocab 24 · ", 0) == 0u);
                BOOST_TEST(has(one, "1 × 2 头（层 × 头）"));  // a fact kept whole
            }
        }
    }
}

// A task added to the table without its words in the report would fail here, not in front of a user.
BOOST_AUTO_TEST_CASE(every_task_of_the_table_has_its_words) {
    for (const task_rule& t : tasks()) {
        BOOST_TEST_CONTEXT(t.name) {
            train_outcome o = by_hand(t.id);
            std::string text;
            BOOST_CHECK_NO_THROW(text = train_text(o, render_options{}));
            BOOST_TEST(has(text, "qkv train  " + std::string(t.name) + " · "));
            // under the held-out tokens, where its copies stand: a line of the task's own words
            const std::size_t at = text.find("  a b c d b c\n");
            BOOST_TEST_REQUIRE(at != std::string::npos);
            const std::size_t from = at + std::string("  a b c d b c\n").size();
            BOOST_TEST(text.find('\n', from) - from > 20u, text.substr(from, 80));
            BOOST_TEST(json::parse(train_json(o, false)).contains("source_head") == t.by_source);
        }
    }
}

BOOST_AUTO_TEST_CASE(a_stopped_run_says_so_first) {
    train_outcome o = by_hand();
    o.run.stopped = true;
    const std::string text = train_text(o, render_options{});
    BOOST_TEST(text.find("Training was stopped") < text.find("Loss, log scale"));
    BOOST_TEST(json::parse(train_json(o, false))["stopped"] == true);
}

BOOST_AUTO_TEST_CASE(the_progress_line_keeps_what_a_narrow_window_can_show) {
    const train_outcome o = by_hand();
    probe_result latest{o.run.checkpoints.back().heads, 0, 0};
    run_state s;
    s.step = 2, s.last_step = 4, s.steps = &o.run.steps, s.latest = &latest, s.best_induction = 0.38f, s.seconds = 1.0;
    // 2 of 4 steps done in 1.0 s: 0.5 s a step, 1.0 s for the 2 left
    const std::string full = "step 2/4  loss 0.90 (repeated 0.50)  best induction 0.38  1.0 s, 1.0 s left";
    BOOST_TEST(progress_text(s, lang::en) == full);
    BOOST_TEST(progress_text(s, lang::en, full.size() - 1) ==
               "step 2/4  loss 0.90  best induction 0.38  1.0 s, 1.0 s left");
    BOOST_TEST(progress_text(s, lang::en, 40) == "step 2/4  loss 0.90  1.0 s, 1.0 s left");
    BOOST_TEST(live_title(s, lang::en, 200) == "qkv train  " + full);
    render_options r;
    r.width = 100;
    const std::vector<std::string> body = live_body(o.config, s, o.run.held, r);
    std::string all;
    for (const std::string& l : body) all += l + "\n";
    BOOST_TEST(has(all, "ln 4"));  // the loss chart's guide
    // the latest probe's heads under the chart: a row for each of the 6 held-out tokens at least
    s.latest = nullptr;
    BOOST_TEST(body.size() >= live_body(o.config, s, o.run.held, r).size() + 6);
}

// The live screen at 80 × 24 (22 rows between its title and its keys): the head most like a
// previous-token head and the one most like an induction head in a later layer, each whole, on the
// first page; the other two on the second; a character for a k × k block of the 24 positions.
BOOST_AUTO_TEST_CASE(the_live_screen_shows_the_leading_heads_whole_at_80_by_24) {
    train_outcome o = by_hand();
    train_config& c = o.config;
    c.size = {4, 24, 8, 2, 2};  // vocab, seq, d_model, heads, layers
    batch held{1, 24, {}, {{1, 13, 11}}};
    for (std::size_t t = 0; t < 24; ++t) held.tokens.push_back(int(t % 4));
    auto pattern = [](std::size_t back) {
        matrix A(24, 24);
        for (std::size_t i = 0; i < 24; ++i) A(i, i >= back ? i - back : i) = 1;
        return A;
    };
    // 1.1 has the highest induction score, but in layer 1, where the trick cannot be done
    probe_result latest{{{1, 1, pattern(0), 0.05f, 0.90f, 0}, {1, 2, pattern(1), 0.80f, 0.10f, 0},
                         {2, 1, pattern(11), 0.10f, 0.70f, 0}, {2, 2, pattern(0), 0.02f, 0.05f, 0}},
                        0, 0};
    run_state s;
    s.step = 2, s.last_step = 4, s.steps = &o.run.steps, s.latest = &latest;
    render_options r;
    r.width = 80;
    std::size_t pages = 0;
    const std::vector<std::string> first = live_body(c, s, held, r, 22, 0, &pages);
    BOOST_TEST(pages == 2u);
    BOOST_TEST(first.size() <= 22u);
    for (const std::string& line : first) BOOST_TEST(columns(line) <= 80u);
    std::string all;
    for (const std::string& l : first) all += l + "\n";
    BOOST_TEST(has(all, "page 1 of 2 (n next, b back): 1.2 p 0.80 i 0.10 · 2.1 p 0.10 i 0.70"));
    // the panels' titles, then a row for each block of k positions down to the last, then a blank
    auto title = std::find_if(first.begin(), first.end(), [](const std::string& l) { return has(l, "  1.2 p") && has(l, "  2.1 p"); });
    BOOST_REQUIRE(title != first.end());
    const auto blank = std::find(title, first.end(), std::string());
    BOOST_REQUIRE(blank != first.end());
    const std::size_t shown_rows = static_cast<std::size_t>(blank - title - 1);
    std::size_t k = 1;
    for (const std::string& l : first)
        if (const auto at = l.find("the largest of "); at != std::string::npos) k = std::stoul(l.substr(at + 15));
    BOOST_TEST(k > 1u);                                // 24 rows do not fit under the loss chart
    BOOST_TEST(shown_rows == (24 + k - 1) / k);        // every position, k to a row: the heads whole
    const std::vector<std::string> second = live_body(c, s, held, r, 22, 1, &pages);
    all.clear();
    for (const std::string& l : second) all += l + "\n";
    BOOST_TEST(has(all, "page 2 of 2 (n next, b back): 1.1 p 0.05 i 0.90 · 2.2 p 0.02 i 0.05"));
    BOOST_TEST(live_body(c, s, held, r, 22, 2) == first);  // past the last page: the first again
    // with no rows given, every head, each position a row of its own
    BOOST_TEST(live_body(c, s, held, r).size() > first.size() + 24);
}
