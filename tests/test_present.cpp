// The presenter as a class meets it: the real qkv on a pseudo-terminal, driven by keys, signals
// and window resizes. Every way out must give the terminal back exactly as it was (termios read
// on the terminal before and after) and leave the alternate screen; every screen must fit. The
// keys themselves, which --step and --present share, are test_navigation's.
#define BOOST_TEST_MODULE present
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <chrono>
#include <regex>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <thread>
#include <unistd.h>

#include "qkv/display_width.hpp"
#include "qkv/terminal.hpp"
#include "support/pty_session.hpp"
#include "support/run_qkv.hpp"

using qkv::test::run_qkv;
using namespace std::chrono_literals;

namespace {

using qkv::test::frames_of;
using qkv::test::pages_of;
using qkv::test::same_mode;
using qkv::test::session;
using qkv::test::enter_alt;
using qkv::test::leave_alt;
using qkv::test::show_cursor;
using qkv::test::frame_start;

void expect_fits(const std::vector<std::string>& frame, std::size_t cols, std::size_t rows) {
    BOOST_TEST(frame.size() == rows);
    for (const auto& l : frame) BOOST_TEST(qkv::display_width(l) <= cols, "too wide (" << qkv::display_width(l) << "): " << l);
}

// The status line says "↓ 12" when the body scrolls (its key list says "↑↓ scroll" always).
bool scrolls(const std::vector<std::string>& frame) {
    const std::string& status = frame.back();
    for (std::size_t at = status.find("↓ "); at != std::string::npos; at = status.find("↓ ", at + 1)) {
        std::size_t d = at + std::string("↓ ").size();
        if (d < status.size() && std::isdigit(static_cast<unsigned char>(status[d]))) return true;
    }
    return false;
}

bool has_line_with(const std::vector<std::string>& frame, std::string_view a, std::string_view b) {
    for (const auto& l : frame)
        if (l.find(a) != std::string::npos && l.find(b) != std::string::npos) return true;
    return false;
}

}  // namespace

BOOST_AUTO_TEST_CASE(keys_move_through_the_stages_and_q_gives_the_terminal_back) {
    session s({"lesson", "3", "--present"});
    BOOST_REQUIRE(s.wait_for("Recap: Q and K"));
    BOOST_TEST(s.in_raw_mode());
    BOOST_TEST(s.out.find(enter_alt) < s.out.find("Recap: Q and K"));
    BOOST_TEST(s.out.find("1/5") != std::string::npos);
    s.send("n");
    BOOST_TEST(s.wait_for("Why Kᵀ: making the shapes meet"));
    BOOST_TEST(s.out.find("2/5") != std::string::npos);
    std::size_t mark = s.out.size();
    s.send("\x1b[C");  // → next
    BOOST_TEST(s.wait_for("The score matrix S = Q·Kᵀ", mark));
    mark = s.out.size();
    s.send("\x1b[D");  // ← back
    BOOST_TEST(s.wait_for("Why Kᵀ", mark));
    mark = s.out.size();
    s.send("g5\r");
    BOOST_TEST(s.wait_for("5/5", mark));
    s.send("q");
    BOOST_TEST(s.finish() == 0);
    BOOST_TEST(s.restored());
    BOOST_TEST(s.out.rfind(leave_alt) > s.out.rfind(frame_start));
    BOOST_TEST(s.out.rfind(show_cursor) != std::string::npos);
    auto frames = frames_of(s.out);
    BOOST_REQUIRE(!frames.empty());
    for (const auto& f : frames) expect_fits(f, 80, 24);
}

BOOST_AUTO_TEST_CASE(ctrl_c_gives_the_terminal_back) {
    session s({"lesson", "5", "--present"});
    BOOST_REQUIRE(s.wait_for("Recap"));
    BOOST_TEST(s.in_raw_mode());
    s.send("\x03");  // the terminal turns it into SIGINT (ISIG stays on)
    BOOST_TEST(s.finish() == 128 + SIGINT);
    BOOST_TEST(s.restored());
    BOOST_TEST(s.out.rfind(leave_alt) != std::string::npos);
}

BOOST_AUTO_TEST_CASE(sigterm_gives_the_terminal_back) {
    session s({"lesson", "2", "--present"});
    BOOST_REQUIRE(s.wait_for("1/"));
    BOOST_TEST(s.in_raw_mode());
    kill(s.pid, SIGTERM);
    BOOST_TEST(s.finish() == 128 + SIGTERM);
    BOOST_TEST(s.restored());
    BOOST_TEST(s.out.rfind(leave_alt) != std::string::npos);
    BOOST_TEST(s.out.rfind(show_cursor) != std::string::npos);
}

BOOST_AUTO_TEST_CASE(end_of_input_ctrl_d_leaves_quietly) {
    session s({"lesson", "1", "--present"});
    BOOST_REQUIRE(s.wait_for("1/"));
    s.send("\x04");
    BOOST_TEST(s.finish() == 0);
    BOOST_TEST(s.restored());
}

BOOST_AUTO_TEST_CASE(an_error_inside_raw_mode_still_restores_everything) {
    // The RAII half of the promise, without the program: throw while the screen is taken over.
    int master = -1, slave = -1;
    winsize ws{24, 80, 0, 0};
    BOOST_REQUIRE(openpty(&master, &slave, nullptr, nullptr, &ws) == 0);
    termios before{}, during{}, after{};
    tcgetattr(slave, &before);
    try {
        qkv::terminal::raw_mode raw(slave, qkv::terminal::screen::full, slave);
        BOOST_TEST(raw.active());
        tcgetattr(slave, &during);
        throw std::runtime_error("a formula failed");
    } catch (const std::runtime_error&) {
    }
    tcgetattr(slave, &after);
    BOOST_TEST(!same_mode(before, during));  // raw mode really was on
    BOOST_TEST(same_mode(before, after));
    std::string screen;
    for (int i = 0; i < 50 && screen.find(leave_alt) == std::string::npos; ++i) {
        pollfd p{master, POLLIN, 0};
        if (poll(&p, 1, 20) <= 0) continue;
        char buf[256];
        ssize_t n = read(master, buf, sizeof buf);
        if (n > 0) screen.append(buf, static_cast<std::size_t>(n));
    }
    BOOST_TEST(screen.find(enter_alt) < screen.find(leave_alt));
    BOOST_TEST(screen.find(leave_alt) != std::string::npos);
    close(master), close(slave);
}

// p pauses --auto and sets it going again (space reads on, as in --step: the test below).
BOOST_AUTO_TEST_CASE(auto_advances_and_p_pauses) {
    session s({"lesson", "3", "--present", "--auto", "0.4"});
    BOOST_REQUIRE(s.wait_for("Recap: Q and K"));
    BOOST_TEST(s.wait_for("p pauses"));
    BOOST_TEST(s.wait_for("Why Kᵀ", 0, 3000ms));  // no key pressed
    s.send("p");
    BOOST_TEST(s.wait_for("paused · p goes on"));
    std::size_t mark = s.out.size();
    std::this_thread::sleep_for(1200ms);  // three times --auto: nothing may move
    for (int i = 0; i < 5; ++i) s.pump(10);
    BOOST_TEST(s.out.find("The score matrix", mark) == std::string::npos);
    s.send("p");
    BOOST_TEST(s.wait_for("The score matrix", mark, 3000ms));
    s.send("q");
    BOOST_TEST(s.finish() == 0);
    BOOST_TEST(s.restored());
}

BOOST_AUTO_TEST_CASE(a_resized_window_is_drawn_again_at_its_new_size) {
    session s({"lesson", "3", "--present"});
    BOOST_REQUIRE(s.wait_for("Recap: Q and K"));
    std::size_t mark = s.out.size();
    winsize big{40, 120, 0, 0};
    ioctl(s.master, TIOCSWINSZ, &big);  // the kernel sends SIGWINCH to qkv
    BOOST_TEST(s.wait_for(std::string(frame_start), mark));
    BOOST_TEST(s.wait_for("quit", mark));
    s.send("q");
    BOOST_TEST(s.finish() == 0);
    auto frames = frames_of(s.out);
    BOOST_REQUIRE(frames.size() >= 2u);
    expect_fits(frames.front(), 80, 24);
    expect_fits(frames.back(), 120, 40);
    BOOST_TEST(qkv::display_width(frames.back()[1]) > 100u);  // the progress bar spans the new width
    BOOST_TEST(s.restored());
}

BOOST_AUTO_TEST_CASE(every_stage_of_every_lesson_fits_80_by_24_and_a_large_screen_is_used) {
    std::string keys;
    for (int i = 0; i < 300; ++i) keys += "n\n";
    auto small = run_qkv({"lesson", "all", "--present", "--color", "never"}, keys, {{"COLUMNS", "80"}, {"LINES", "24"}, {"TERM", "xterm"}});
    BOOST_TEST(small.status == 0);
    BOOST_TEST(small.err.empty());
    BOOST_TEST(small.out.find('\x1b') == std::string::npos);  // not even the reset after a cut line's "…"
    auto frames = pages_of(small.out, 23);  // on a pipe: pages a line short of LINES
    BOOST_TEST(frames.size() > 40u);
    for (const auto& f : frames) expect_fits(f, 80, 23);

    // Lesson 3, stage 3 (Q, Kᵀ, S): on 80 × 24 the body scrolls (a "↓" in the status line);
    // on 160 × 50 all of it shows, Q and Kᵀ side by side.
    auto scroll = run_qkv({"lesson", "3", "--present", "--stage", "3"}, "q\n", {{"COLUMNS", "80"}, {"LINES", "24"}, {"TERM", "xterm"}});
    auto roomy = run_qkv({"lesson", "3", "--present", "--stage", "3"}, "q\n", {{"COLUMNS", "160"}, {"LINES", "50"}, {"TERM", "xterm"}});
    auto f80 = pages_of(scroll.out, 23), f160 = pages_of(roomy.out, 49);
    BOOST_REQUIRE(!f80.empty());
    BOOST_REQUIRE(!f160.empty());
    BOOST_TEST(scrolls(f80.front()));
    BOOST_TEST(!scrolls(f160.front()));
    expect_fits(f160.front(), 160, 49);
    BOOST_TEST(has_line_with(f160.front(), "Q  [3, 4]", "K_t  [4, 3]"));
    BOOST_TEST(has_line_with(f160.front(), "The score matrix", ""));
}

// A slide summarises a long list of sub-steps as `qkv lesson` does (the first in full, a line for
// each other), and --full shows every step.
BOOST_AUTO_TEST_CASE(a_slide_summarises_sub_steps_and_full_shows_them) {
    auto first_frame = [](std::vector<std::string> extra) {
        std::vector<std::string> args{"lesson", "9", "--present", "--stage", "2", "--color", "never"};
        args.insert(args.end(), extra.begin(), extra.end());
        auto frames = pages_of(run_qkv(args, "q\n", {{"COLUMNS", "120"}, {"LINES", "200"}, {"TERM", "xterm"}}).out, 199);
        BOOST_REQUIRE(!frames.empty());
        return frames.front();
    };
    auto slide = first_frame({});
    BOOST_TEST(has_line_with(slide, "t = 3  q_t, k_t, v_t [1, 4]", "a_t = [0.5462, 0.1541, 0.2997]"));
    BOOST_TEST(has_line_with(slide, "(--full shows every step in full)", ""));
    BOOST_TEST(!has_line_with(slide, "K_cache  [3, 4]", ""));
    auto full = first_frame({"--full"});
    BOOST_TEST(has_line_with(full, "K_cache  [3, 4]", ""));
    BOOST_TEST(!has_line_with(full, "--full shows", ""));
}

BOOST_AUTO_TEST_CASE(from_a_pipe_the_stepper_letters_work_a_line_at_a_time) {
    auto r = run_qkv({"lesson", "3", "--present"}, "n\nb\ng 4\nq\nn\n", {{"TERM", "xterm"}, {"LINES", "24"}});
    BOOST_TEST(r.status == 0);
    BOOST_TEST(r.err.empty());
    auto frames = pages_of(r.out, 23);
    BOOST_REQUIRE(frames.size() == 4u);  // 1, 2, 1, 4, then q: the last n is never read
    std::vector<std::string> want{"1/5", "2/5", "1/5", "4/5"};
    for (std::size_t i = 0; i < 4; ++i) BOOST_TEST(frames[i][1].find(want[i]) != std::string::npos, "frame " << i << ": " << frames[i][1]);
    BOOST_TEST(r.out.find(enter_alt) == std::string::npos);  // not a terminal: no screen to take over
    // and no escape at all: a pipe or a file gets the pages as text (it got a clear-screen per
    // frame before, with --color never too)
    BOOST_TEST(r.out.find('\x1b') == std::string::npos);
    auto plain = run_qkv({"lesson", "3", "--present", "--color", "never"}, "n\nq\n", {{"TERM", "xterm"}});
    BOOST_TEST(plain.out.find('\x1b') == std::string::npos);
}

BOOST_AUTO_TEST_CASE(bad_present_options_are_usage_errors) {
    for (auto args : std::vector<std::vector<std::string>>{{"lesson", "1", "--present", "--step"},
                                                           {"lesson", "1", "--auto", "3"},
                                                           {"lesson", "1", "--present", "--auto", "0"},
                                                           {"lesson", "1", "--present", "--format", "json"}}) {
        auto r = run_qkv(args);
        BOOST_TEST(r.status == 2);
        BOOST_TEST(r.out.empty());
        BOOST_TEST(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    }
}

namespace {

// A line without its colour codes.
std::string without_codes(const std::string& line) { return std::regex_replace(line, std::regex("\x1b\\[[0-9;]*m"), ""); }

// The lines of `out` whose text (colour codes left out) starts with `label` after its indent: the
// rows a token labels, and the line above the first of them (the column labels).
std::vector<std::string> labelled_rows(const std::string& out, const std::string& label, std::string* header) {
    std::vector<std::string> lines, rows;
    for (std::size_t at = 0, end; at < out.size(); at = end + 1) {
        end = std::min(out.find('\n', at), out.size());
        lines.push_back(out.substr(at, end - at));
    }
    for (std::size_t i = 1; i < lines.size(); ++i) {
        const std::string text = without_codes(lines[i]);
        const std::size_t first = text.find_first_not_of(' ');
        if (first == std::string::npos || text.compare(first, label.size(), label) != 0) continue;
        if (text.find('.') == std::string::npos) continue;  // column labels that start with the token: no row
        if (rows.empty() && header) *header = lines[i - 1];
        rows.push_back(lines[i]);
    }
    return rows;
}

}  // namespace

// Issue 40: on a slide the token labels were dim (faint, as `qkv lesson` prints them), and dim text
// does not read on a projector. A slide shows them at the numbers' weight: the rows' labels and the
// column labels carry no faint code. The axes under a name stay a quiet caption.
BOOST_AUTO_TEST_CASE(token_labels_on_a_slide_are_not_dim) {
    const std::string faint = "\x1b[2m";
    const std::vector<std::pair<std::string, std::string>> wide{{"COLUMNS", "160"}, {"LINES", "50"}, {"TERM", "xterm"}};
    // lesson 3, stage 3: Q, Kᵀ and S, their rows and columns labelled 苹果 很 甜
    std::string header;
    const auto printed = run_qkv({"lesson", "3", "--stage", "3", "--color", "always"}, "", wide);
    const auto rows_printed = labelled_rows(printed.out, "苹果", &header);
    BOOST_REQUIRE(!rows_printed.empty());
    BOOST_TEST(rows_printed.front().find(faint) != std::string::npos);  // the premise: `qkv lesson` dims them
    const auto slide = run_qkv({"lesson", "3", "--present", "--stage", "3", "--color", "always"}, "q\n", wide);
    BOOST_TEST_REQUIRE(slide.status == 0, slide.err);
    const auto rows = labelled_rows(slide.out, "苹果", &header);
    BOOST_REQUIRE(rows.size() == 1u);  // S's row, with Q's beside it
    BOOST_TEST(without_codes(rows.front()).find("2.5965") != std::string::npos, rows.front());
    BOOST_TEST(rows.front().find(faint) == std::string::npos, rows.front());
    BOOST_TEST(without_codes(header).find("甜") != std::string::npos, header);
    BOOST_TEST(header.find(faint) == std::string::npos, header);
    for (const std::string label : {"很", "甜"}) {
        const auto more = labelled_rows(slide.out, label, nullptr);
        BOOST_TEST_REQUIRE(more.size() == 1u, label);
        BOOST_TEST(more.front().find(faint) == std::string::npos, more.front());
    }
    BOOST_TEST(slide.out.find(faint + "rows: queries · columns: keys") != std::string::npos);
}

namespace {

// The first whole frame (24 rows, the keys on the last) drawn after byte `mark` of which `want`
// holds; empty when none came within five seconds.
template <typename P>
std::vector<std::string> whole_frame_after(session& s, std::size_t mark, P want) {
    const auto end = std::chrono::steady_clock::now() + 5000ms;
    while (std::chrono::steady_clock::now() < end) {
        for (auto& f : frames_of(s.out.substr(std::min(mark, s.out.size()))))
            if (f.size() >= 24 && f[23].find("quit") != std::string::npos && want(f)) return {f.begin(), f.begin() + 24};
        s.pump(50);
    }
    return {};
}

}  // namespace

// Issue 40: space jumped to the next stage in --present, past what a small screen had not shown,
// where in --step it pages down. It reads on in both, as --help says: lesson 3's stage 3 scrolls
// at 80 × 24, and space first pages down through it (the same stage, the body moved, the status
// showing less below), and only at its bottom goes on to stage 4. Enter does the same.
BOOST_AUTO_TEST_CASE(space_and_enter_read_on_as_in_step) {
    auto stage_is = [](const char* k) { return [k](const std::vector<std::string>& f) { return f[1].find(k) != std::string::npos; }; };
    for (const char* key : {" ", "\r"}) {
        BOOST_TEST_CONTEXT("key " << int(key[0])) {
            session s({"lesson", "3", "--present", "--stage", "3"});
            const auto first = whole_frame_after(s, 0, stage_is("3/5"));
            BOOST_REQUIRE(!first.empty());
            BOOST_REQUIRE(scrolls(first));  // more below: the premise
            std::size_t mark = s.out.size();
            s.send(key);
            const auto paged = whole_frame_after(s, mark, [](const std::vector<std::string>&) { return true; });
            BOOST_REQUIRE(!paged.empty());
            BOOST_TEST(paged[1].find("3/5") != std::string::npos, paged[1]);  // still stage 3
            BOOST_TEST((paged != first));                                    // its body paged down
            BOOST_TEST(paged[23] != first[23]);                              // "↓ N" less, or "↑"
            mark = s.out.size();
            for (int i = 0; i < 12; ++i) s.send(key);  // at its bottom, the next stage
            BOOST_TEST(!whole_frame_after(s, mark, stage_is("4/5")).empty());
            s.send("q");
            BOOST_TEST(s.finish() == 0);
            BOOST_TEST(s.out.find("unknown key") == std::string::npos);
            BOOST_TEST(s.restored());
        }
    }
}
