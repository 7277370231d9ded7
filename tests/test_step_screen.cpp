// --step as a student meets it on an ordinary terminal: the real qkv on an 80 × 24 pseudo-terminal,
// driven by keys and resizes. Every stage opens with its counter and title in sight, a tall stage
// scrolls under a head that stays, h lists every key, and TERM=dumb gets no escapes at all.
#define BOOST_TEST_MODULE step_screen
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "qkv/display_width.hpp"
#include "support/pty_session.hpp"
#include "support/run_qkv.hpp"

using namespace std::chrono_literals;
using qkv::test::frames_of;
using qkv::test::session;

namespace {

using frame = std::vector<std::string>;

// The first whole frame drawn after byte `mark` that satisfies `want`: all its rows are there and
// the bottom line (the keys) too. Empty when none came.
template <typename P>
frame frame_after(session& s, std::size_t mark, std::size_t rows, P want) {
    auto end = std::chrono::steady_clock::now() + 5000ms;
    while (std::chrono::steady_clock::now() < end) {
        auto frames = frames_of(s.out.substr(std::min(mark, s.out.size())));
        for (std::size_t i = 0; i < frames.size(); ++i) {
            bool whole = frames[i].size() >= rows && frames[i][rows - 1].find("quit") != std::string::npos;
            if (whole && want(frames[i])) return frame(frames[i].begin(), frames[i].begin() + static_cast<long>(rows));
        }
        s.pump(50);
    }
    return {};
}
frame frame_after(session& s, std::size_t mark, std::size_t rows = 24) {
    return frame_after(s, mark, rows, [](const frame&) { return true; });
}

void expect_fits(const frame& f, std::size_t cols, std::size_t rows) {
    BOOST_TEST(f.size() == rows);
    for (const auto& l : f) BOOST_TEST(qkv::display_width(l) <= cols, "too wide: " << l);
}

// The row of the rule under the head (the body starts below it).
std::size_t rule_row(const frame& f) {
    for (std::size_t r = 0; r < f.size(); ++r)
        if (f[r].rfind("────", 0) == 0) return r;
    return f.size();
}

bool has(const std::string& s, std::string_view piece) { return s.find(piece) != std::string::npos; }

// The "K/N  title" headings of a lesson as `qkv lesson` prints them: what each screen must open with.
std::vector<std::string> headings(const std::string& lesson) {
    auto r = qkv::test::run_qkv({"lesson", lesson, "--color", "never"});
    std::vector<std::string> out;
    std::size_t at = 0;
    while (at < r.out.size()) {
        std::size_t nl = r.out.find('\n', at);
        std::string line = r.out.substr(at, nl - at);
        auto slash = line.find('/'), gap = line.find("  ");
        if (slash != std::string::npos && slash > 0 && gap != std::string::npos && slash < gap &&
            std::all_of(line.begin(), line.begin() + static_cast<long>(slash), ::isdigit))
            out.push_back(line);
        at = nl == std::string::npos ? r.out.size() : nl + 1;
    }
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_stage_of_lesson_8_opens_with_its_counter_and_title_at_80_by_24) {
    auto heads = headings("8");
    BOOST_REQUIRE(heads.size() >= 7u);
    session s({"lesson", "8", "--step"});
    std::size_t mark = 0;
    for (std::size_t k = 0; k < heads.size(); ++k) {
        BOOST_TEST_CONTEXT("stage " << k + 1) {
            frame f = frame_after(s, mark, 24, [&](const frame& f) { return f[1] == heads[k]; });
            BOOST_REQUIRE_MESSAGE(!f.empty(), "no screen opened with " << heads[k]);
            BOOST_TEST(has(f[0], "Lesson 8"));
            expect_fits(f, 80, 24);
            mark = s.out.size();
            s.send("n");
        }
    }
    s.send("q");
    BOOST_TEST(s.finish() == 0);
    BOOST_TEST(s.restored());
    BOOST_TEST(s.out.rfind(qkv::test::leave_alt) > s.out.rfind(qkv::test::frame_start));
}

BOOST_AUTO_TEST_CASE(down_and_page_down_move_the_body_and_the_head_stays) {
    session s({"lesson", "8", "--step", "--stage", "7"});
    frame first = frame_after(s, 0);
    BOOST_REQUIRE(!first.empty());
    const std::size_t body = rule_row(first) + 1, height = 23 - body;
    BOOST_REQUIRE(body < 12u);  // the head leaves the body most of the screen
    BOOST_TEST(has(first[23], "↓ "));  // more below
    std::size_t mark = s.out.size();
    s.send("\x1b[B");  // ↓: one line
    frame down = frame_after(s, mark);
    mark = s.out.size();
    s.send("j");
    frame j = frame_after(s, mark);
    mark = s.out.size();
    s.send("\x1b[6~");  // PgDn: a page, one line kept in sight
    frame page = frame_after(s, mark);
    BOOST_REQUIRE((!down.empty() && !j.empty() && !page.empty()));
    for (const frame* f : {&down, &j, &page})
        for (std::size_t r = 0; r < body; ++r) BOOST_TEST((*f)[r] == first[r], "head row " << r);
    BOOST_TEST(down[body] == first[body + 1]);
    BOOST_TEST(j[body] == first[body + 2]);
    BOOST_TEST(page[body] == j[body + height - 1]);
    mark = s.out.size();
    s.send("\x1b[A");  // ↑ back a line
    frame up = frame_after(s, mark);
    BOOST_TEST(up[body + 1] == page[body]);
    s.send("q");
    BOOST_TEST(s.finish() == 0);
    BOOST_TEST(!has(s.out, "unknown key"));
    BOOST_TEST(s.restored());
}

BOOST_AUTO_TEST_CASE(space_reads_on_and_arrows_are_one_key_each) {
    session s({"lesson", "3", "--step"});
    BOOST_REQUIRE(!frame_after(s, 0).empty());
    std::size_t mark = s.out.size();
    s.send("\x1b[C");  // → the next stage
    frame next = frame_after(s, mark, 24, [](const frame& f) { return f[1].rfind("2/5", 0) == 0; });
    BOOST_TEST(!next.empty());
    mark = s.out.size();
    s.send("\x1b[D");  // ← back
    BOOST_TEST(!frame_after(s, mark, 24, [](const frame& f) { return f[1].rfind("1/5", 0) == 0; }).empty());
    s.send("\x1b[15~\x1bOP\x1b[3~");  // F5, F1, Delete: nothing at all
    mark = s.out.size();
    // space pages down a tall stage and, at its bottom, goes on to the next one
    for (int i = 0; i < 12; ++i) s.send(" ");
    BOOST_TEST(!frame_after(s, mark, 24, [](const frame& f) { return f[1].rfind("2/5", 0) == 0; }).empty());
    s.send("q");
    BOOST_TEST(s.finish() == 0);
    BOOST_TEST(!has(s.out, "unknown key"));
    BOOST_TEST(s.restored());
}

BOOST_AUTO_TEST_CASE(a_resize_draws_the_whole_screen_again_at_the_new_size) {
    session s({"lesson", "8", "--step", "--stage", "3"});
    frame small = frame_after(s, 0);
    BOOST_REQUIRE(!small.empty());
    std::size_t mark = s.out.size();
    winsize big{40, 120, 0, 0};
    ioctl(s.master, TIOCSWINSZ, &big);  // the kernel sends SIGWINCH to qkv
    frame f = frame_after(s, mark, 40);
    BOOST_REQUIRE(!f.empty());
    expect_fits(f, 120, 40);
    BOOST_TEST(f[1] == small[1]);
    BOOST_TEST(qkv::display_width(f[rule_row(f)]) == 120u);  // the rule spans the new width
    BOOST_TEST(frames_of(s.out.substr(mark)).front().size() == 40u);  // one screen, nothing piled under it
    s.send("q");
    BOOST_TEST(s.finish() == 0);
    BOOST_TEST(s.restored());
}

// A window smaller than the 20 × 8 the screen is laid out for at the least: each frame is cut to
// it, the head's first lines and the bottom line, so the terminal never scrolls or wraps. (Frames
// of 8 lines, 20 columns wide, went to a 12 × 5 window before: the head scrolled out of sight.)
BOOST_AUTO_TEST_CASE(a_window_below_20_by_8_gets_frames_cut_to_it) {
    session s({"lesson", "8", "--step", "--stage", "3"});
    const frame big = frame_after(s, 0);
    BOOST_REQUIRE(!big.empty());
    const std::size_t mark = s.out.size();
    winsize tiny{5, 12, 0, 0};
    ioctl(s.master, TIOCSWINSZ, &tiny);
    auto end = std::chrono::steady_clock::now() + 5000ms;
    while (frames_of(s.out.substr(mark)).empty() && std::chrono::steady_clock::now() < end) s.pump(50);
    s.pump(200);  // the whole frame
    auto frames = frames_of(s.out.substr(mark));
    BOOST_REQUIRE(!frames.empty());
    expect_fits(frames.front(), 12, 5);
    BOOST_TEST(frames.front().front().substr(0, 1) == big.front().substr(0, 1), "the head's first line: " << frames.front().front());
    s.send("q");
    BOOST_TEST(s.finish() == 0);
    BOOST_TEST(s.restored());
}

BOOST_AUTO_TEST_CASE(h_lists_every_key_and_any_key_leaves_the_list) {
    session s({"lesson", "5", "--step"});
    frame stage = frame_after(s, 0);
    BOOST_REQUIRE(!stage.empty());
    std::size_t mark = s.out.size();
    s.send("h");
    frame keys = frame_after(s, mark);
    BOOST_REQUIRE(!keys.empty());
    std::string all;
    for (auto& l : keys) all += l + "\n";
    for (std::string_view k : {"Keys", "space  Enter", "n  →", "b  ←", "g K", "↑ ↓  k j", "PgUp PgDn", "Home End",
                               "r  Ctrl-L", "h  ?", "q  Ctrl-D", "Ctrl-Z"})
        BOOST_TEST(has(all, k), k);
    BOOST_TEST(keys[1] == stage[1]);  // still the same stage, its head in place
    mark = s.out.size();
    s.send("x");
    frame back = frame_after(s, mark);
    BOOST_TEST(back == stage);
    s.send("q");
    BOOST_TEST(s.finish() == 0);
    BOOST_TEST(s.restored());
}

BOOST_AUTO_TEST_CASE(g_goes_to_a_stage_typed_in_the_status_line) {
    session s({"lesson", "8", "--step"});
    BOOST_REQUIRE(!frame_after(s, 0).empty());
    std::size_t mark = s.out.size();
    s.send("g6\r");
    BOOST_TEST(!frame_after(s, mark, 24, [](const frame& f) { return f[1].rfind("6/", 0) == 0; }).empty());
    s.send("g99\r");
    BOOST_TEST(!frame_after(s, mark, 24, [](const frame& f) { return has(f[23], "no such stage"); }).empty());
    s.send("q");
    BOOST_TEST(s.finish() == 0);
    BOOST_TEST(s.restored());
}

// A dumb terminal (or none named) gets no cursor or screen escape: --step prints each stage with
// single keys, --present prints page after page.
BOOST_AUTO_TEST_CASE(term_dumb_gets_no_escapes) {
    for (const char* term : {"dumb", static_cast<const char*>(nullptr)}) {
        for (const char* mode : {"--step", "--present"}) {
            BOOST_TEST_CONTEXT((term ? term : "TERM unset") << " " << mode) {
                session s({"lesson", "3", mode}, 80, 24, term);
                BOOST_REQUIRE(s.wait_for("1/5"));
                s.send("n");
                BOOST_TEST(s.wait_for("2/5"));
                s.send("\x1b[A\x1b[B");
                s.send("h");
                BOOST_TEST(s.wait_for("Ctrl-Z"));
                s.send("q");
                BOOST_TEST(s.finish() == 0);
                BOOST_TEST(s.restored());
                BOOST_TEST(!has(s.out, "\x1b["), "an escape was sent");
                BOOST_TEST(!has(s.out, "unknown key"));
            }
        }
    }
}

// The stepper's body is `qkv lesson`'s text for the stage: eight tall heads are summarised in it
// too, the first head in full and a line for each other.
BOOST_AUTO_TEST_CASE(the_stepper_summarises_a_tall_stack_of_heads) {
    session s({"lesson", "8", "--step", "--stage", "7", "--color", "never"}, 100, 120);
    BOOST_REQUIRE(s.wait_for("7/9"));
    BOOST_TEST(s.wait_for("head 2  [10, 64]  min "));
    BOOST_TEST(s.wait_for("head 8  [10, 10]  looks most at: 1→"));
    BOOST_TEST(s.wait_for("(--full shows every head in full)"));
    s.send("q");
    BOOST_TEST(s.finish() == 0);
    BOOST_TEST(s.restored());
}

BOOST_AUTO_TEST_CASE(the_stepper_pages_through_every_recorded_step) {
    // lesson 17's thirty training steps: `qkv lesson` shows the first and a line for each other one;
    // the stepper scrolls, so it shows each in full, its weights and all, one page after another
    const auto printed = qkv::test::run_qkv({"lesson", "17", "--stage", "4", "--color", "never"});
    BOOST_TEST(has(printed.out, "t = 30  loss = "));  // the summary line
    session s({"lesson", "17", "--step", "--stage", "4", "--color", "never"}, 100, 40);
    BOOST_REQUIRE(s.wait_for("4/6"));
    for (int page = 0; page < 40 && !has(s.out, "t = 30\r\nloss = "); ++page) s.send("\x1b[6~"), s.pump(100);  // PgDn
    BOOST_TEST(s.wait_for("t = 30\r\nloss = "), "the last step as a block of its own");
    BOOST_TEST(!has(s.out, "t = 30  loss = "));
    s.send("q");
    BOOST_TEST(s.finish() == 0);
    BOOST_TEST(s.restored());
}

// A stage is about what it computes: lesson 3's third stage explains S, made from Q and Kᵀ. On an
// 80 × 24 screen S is in sight below the text, its inputs after it (they had come first and pushed
// S off the screen).
BOOST_AUTO_TEST_CASE(the_matrix_a_stage_computes_comes_before_its_inputs) {
    session s({"lesson", "3", "--step", "--stage", "3"});
    frame f = frame_after(s, 0);
    BOOST_REQUIRE(!f.empty());
    std::size_t s_row = f.size(), q_row = f.size();
    for (std::size_t r = rule_row(f) + 1; r < f.size(); ++r) {
        if (f[r].rfind("S  [", 0) == 0) s_row = std::min(s_row, r);
        if (f[r].rfind("Q  [", 0) == 0) q_row = std::min(q_row, r);
    }
    BOOST_TEST(s_row < f.size() - 1, "S is not on the first screen of stage 3");
    BOOST_TEST(s_row < q_row);
    s.send("q");
    BOOST_TEST(s.finish() == 0);
}
