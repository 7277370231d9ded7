// The training sequences: every batch of every task keeps its promise (the copy is a copy, the
// span fits, the lengths lie in their range), a step's batch is a function of (seed, step) alone,
// the held-out sequence is unambiguous, and the settings that cannot work are refused in one line;
// every task of the tasks' table makes the sequences its own source rule predicts.
#define BOOST_TEST_MODULE train_tasks
#include <boost/test/unit_test.hpp>

#include <set>

#include "qkv/error.hpp"
#include "qkv/task_data.hpp"
#include "qkv/tasks.hpp"

using namespace qkv::train;

namespace {

train_config of(task t, std::size_t vocab = 24, std::size_t seq = 24) {
    train_config c;
    c.what = t;
    c.size.vocab = vocab, c.size.seq = seq;
    resolve_segments(c);
    check_config(c);
    return c;
}

std::string refusal(train_config c) {
    try {
        resolve_segments(c);
        check_config(c);
    } catch (const qkv::input_error& e) {
        return e.what();
    }
    return "accepted";
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_default_segments_leave_room_around_two_copies) {
    const train_config c = of(task::induction);
    BOOST_TEST(c.segment_min == 4u);
    BOOST_TEST(c.segment_max == 10u);  // (24 - 4) / 2
}

BOOST_AUTO_TEST_CASE(every_induction_sequence_repeats_a_segment_within_its_range) {
    const train_config c = of(task::induction);
    std::set<std::size_t> lengths, gaps;
    for (std::size_t step = 1; step <= 50; ++step) {
        const batch b = make_batch(c, step);
        BOOST_TEST_REQUIRE(b.tokens.size() == c.batch * c.size.seq);
        for (std::size_t q = 0; q < b.count; ++q) {
            const repeat_span& s = b.spans[q];
            const int* t = &b.tokens[q * c.size.seq];
            BOOST_TEST(s.length >= c.segment_min);
            BOOST_TEST(s.length <= c.segment_max);
            BOOST_TEST(s.second >= s.first + s.length);  // the copies do not overlap
            BOOST_TEST(s.second + s.length <= c.size.seq);
            for (std::size_t k = 0; k < s.length; ++k) BOOST_TEST(t[s.first + k] == t[s.second + k]);
            for (std::size_t p = 0; p < c.size.seq; ++p) BOOST_TEST((t[p] >= 0 && t[p] < int(c.size.vocab)));
            lengths.insert(s.length), gaps.insert(s.second - s.first);
        }
    }
    // drawn afresh: every length of the range turns up, and the copies sit at many distances
    BOOST_TEST(lengths.size() == c.segment_max - c.segment_min + 1);
    BOOST_TEST(gaps.size() > 8u);
}

BOOST_AUTO_TEST_CASE(reverse_and_copy_repeat_the_first_half) {
    for (task t : {task::reverse, task::copy}) {
        const train_config c = of(t, 24, 16);
        const batch b = make_batch(c, 7);
        for (std::size_t q = 0; q < b.count; ++q) {
            const int* x = &b.tokens[q * 16];
            for (std::size_t k = 0; k < 8; ++k) BOOST_TEST(x[8 + k] == x[t == task::copy ? k : 7 - k]);
        }
        // the predictions that can be right: the one at position 7 (the last of the first half) on
        const prediction_range r = predictable(t, b.spans[0]);
        BOOST_TEST(r.from == 7u);
        BOOST_TEST(r.to == 15u);
        // the token predicted at p stands at source_of(p): for reverse, position 2m − 2 − p
        const std::span<const int> x0(b.tokens.data(), 16);
        for (std::size_t p = r.from; p < r.to; ++p) BOOST_TEST(x0[p + 1] == x0[source_of(t, x0, b.spans[0], p)]);
    }
}

BOOST_AUTO_TEST_CASE(induction_predictions_inside_the_copy_read_after_the_earlier_occurrence) {
    const train_config c = of(task::induction);
    const batch b = make_batch(c, 3);
    for (std::size_t q = 0; q < b.count; ++q) {
        const repeat_span& s = b.spans[q];
        const prediction_range r = predictable(task::induction, s);
        BOOST_TEST(r.from == s.second);
        BOOST_TEST(r.to == s.second + s.length - 1);  // the copy's last token predicts what follows it: random
        const int* x = &b.tokens[q * c.size.seq];
        for (std::size_t p = r.from; p < r.to; ++p)
            BOOST_TEST(x[p + 1] == x[source_of(task::induction, {x, c.size.seq}, s, p)]);
    }
}

// Whatever a task's entry says, its sequences keep it: every prediction its rule calls predictable
// has its next token standing where its source rule says, earlier in the sequence; on the held-out
// sequence there and nowhere else before it, so that a head's source score has one right answer.
BOOST_AUTO_TEST_CASE(every_task_of_the_table_makes_the_batches_its_source_rule_predicts) {
    BOOST_TEST_REQUIRE(tasks().size() == 3u);  // induction, reverse, copy
    for (const task_rule& rule : tasks()) {
        BOOST_TEST_CONTEXT(rule.name) {
            BOOST_TEST(&rule_of(rule.id) == &rule);
            BOOST_TEST(find_task(rule.name) == &rule);
            BOOST_TEST(task_name(rule.id) == rule.name);
            const train_config c = of(rule.id, 24, 16);  // seq 16 fits every task: even, segments of 4 to 6
            std::size_t predictions = 0;
            for (std::size_t step = 1; step <= 20; ++step) {
                const batch b = make_batch(c, step);
                for (std::size_t q = 0; q < b.count; ++q) {
                    const std::span<const int> x(&b.tokens[q * 16], 16);
                    const prediction_range r = rule.predictable(b.spans[q]);
                    BOOST_TEST((r.from < r.to && r.to < 16u));
                    for (std::size_t p = r.from; p < r.to; ++p, ++predictions) {
                        const std::size_t from = rule.source_of(x, b.spans[q], p);
                        BOOST_TEST(from <= p);
                        BOOST_TEST(x[p + 1] == x[from], "step " << step << " sequence " << q << " position " << p);
                    }
                }
            }
            BOOST_TEST(predictions > 20u * 32u * 2u);  // at least the shortest copy's 3 in each
            const batch h = held_out(c);
            const prediction_range r = rule.predictable(h.spans[0]);
            for (std::size_t p = r.from; p < r.to; ++p) {
                const std::size_t from = rule.source_of(h.tokens, h.spans[0], p);
                for (std::size_t k = 0; k <= p; ++k)
                    BOOST_TEST((h.tokens[k] == h.tokens[p + 1]) == (k == from), "position " << p << ", " << k);
            }
        }
    }
    BOOST_TEST(find_task("sort") == nullptr);
    BOOST_TEST(task_list(", ", " or ") == "induction, reverse or copy");
}

BOOST_AUTO_TEST_CASE(a_batch_is_a_function_of_seed_and_step) {
    train_config c = of(task::induction);
    BOOST_TEST((make_batch(c, 5).tokens == make_batch(c, 5).tokens));
    BOOST_TEST((make_batch(c, 5).tokens != make_batch(c, 6).tokens));
    train_config other = c;
    other.seed = 2;
    BOOST_TEST((make_batch(other, 5).tokens != make_batch(c, 5).tokens));
}

BOOST_AUTO_TEST_CASE(the_held_out_segment_has_one_right_answer) {
    for (std::size_t vocab : {8u, 24u, 64u}) {
        const train_config c = of(task::induction, vocab);
        const batch h = held_out(c);
        const repeat_span& s = h.spans[0];
        BOOST_TEST(s.length == (c.segment_min + c.segment_max) / 2);
        std::set<int> segment;
        for (std::size_t k = 0; k < s.length; ++k) {
            BOOST_TEST(h.tokens[s.first + k] == h.tokens[s.second + k]);
            segment.insert(h.tokens[s.first + k]);
        }
        BOOST_TEST(segment.size() == s.length, "vocab " << vocab);
        for (std::size_t p = 0; p < c.size.seq; ++p) {
            const bool inside = (p >= s.first && p < s.first + s.length) || (p >= s.second && p < s.second + s.length);
            if (!inside) BOOST_TEST(!segment.count(h.tokens[p]), "vocab " << vocab << " position " << p);
        }
        // the same whatever the seed: runs with other seeds are shown on the same sequence
        train_config reseeded = c;
        reseeded.seed = 99;
        BOOST_TEST((held_out(reseeded).tokens == h.tokens));
    }
}

BOOST_AUTO_TEST_CASE(tokens_are_letters_up_to_26_and_numbers_beyond) {
    BOOST_TEST(token_label(0, 24) == "a");
    BOOST_TEST(token_label(25, 26) == "z");
    BOOST_TEST(token_label(25, 27) == "25");
}

BOOST_AUTO_TEST_CASE(settings_that_cannot_work_are_refused_in_one_line) {
    train_config c;
    c.size.heads = 3;  // 32 / 3
    BOOST_TEST(refusal(c).find("heads (3) must divide d_model (32)") != std::string::npos, refusal(c));
    c = {};
    c.segment_min = 2, c.segment_max = 13;  // two copies of 13 need 26 positions
    BOOST_TEST(refusal(c).find("do not fit in seq 24") != std::string::npos, refusal(c));
    c = {};
    c.size.vocab = 5;  // a held-out segment of 7 distinct tokens
    BOOST_TEST(refusal(c).find("vocab 5 is too small") != std::string::npos, refusal(c));
    c = {};
    c.what = task::reverse, c.size.seq = 23;
    BOOST_TEST(refusal(c).find("even seq") != std::string::npos, refusal(c));
    c = {};
    c.adam.lr = -1;
    BOOST_TEST(refusal(c).find("lr must be a positive number") != std::string::npos, refusal(c));
    c = {};
    c.adam.beta2 = 1;
    BOOST_TEST(refusal(c).find("beta2 must be in [0, 1)") != std::string::npos, refusal(c));
    c = {};
    c.size.d_model = 1024, c.size.seq = 1024, c.batch = 4096;  // about 200 GiB of activations
    BOOST_TEST(refusal(c).find("MiB, more than the limit") != std::string::npos, refusal(c));
    BOOST_TEST(refusal(train_config{}) == "accepted");
}
