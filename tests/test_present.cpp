// The presenter as a class meets it: the real qkv on a pseudo-terminal, driven by keys, signals
// and window resizes. Every way out must give the terminal back exactly as it was (termios read
// on the terminal before and after) and leave the alternate screen; every screen must fit. At the
// end, the keys themselves, which --step and --present share (navigation.hpp).
#define BOOST_TEST_MODULE present
#include <boost/test/unit_test.hpp>

#include <chrono>
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
#include "qkv/navigation.hpp"
#include "qkv/terminal.hpp"
#include "support/pty_session.hpp"
#include "support/run_qkv.hpp"

using qkv::test::run_qkv;
using namespace std::chrono_literals;

namespace {

using qkv::test::frames_of;
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

BOOST_AUTO_TEST_CASE(auto_advances_and_space_pauses) {
    session s({"lesson", "3", "--present", "--auto", "0.4"});
    BOOST_REQUIRE(s.wait_for("Recap: Q and K"));
    BOOST_TEST(s.wait_for("Why Kᵀ", 0, 3000ms));  // no key pressed
    s.send(" ");
    BOOST_TEST(s.wait_for("paused"));
    std::size_t mark = s.out.size();
    std::this_thread::sleep_for(1200ms);  // three times --auto: nothing may move
    for (int i = 0; i < 5; ++i) s.pump(10);
    BOOST_TEST(s.out.find("The score matrix", mark) == std::string::npos);
    s.send(" ");
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
    auto frames = frames_of(small.out);
    BOOST_TEST(frames.size() > 40u);
    for (const auto& f : frames) expect_fits(f, 80, 24);

    // Lesson 3, stage 3 (Q, Kᵀ, S): on 80 × 24 the body scrolls (a "↓" in the status line);
    // on 160 × 50 all of it shows, Q and Kᵀ side by side.
    auto scroll = run_qkv({"lesson", "3", "--present", "--stage", "3"}, "q\n", {{"COLUMNS", "80"}, {"LINES", "24"}, {"TERM", "xterm"}});
    auto roomy = run_qkv({"lesson", "3", "--present", "--stage", "3"}, "q\n", {{"COLUMNS", "160"}, {"LINES", "50"}, {"TERM", "xterm"}});
    auto f80 = frames_of(scroll.out), f160 = frames_of(roomy.out);
    BOOST_REQUIRE(!f80.empty());
    BOOST_REQUIRE(!f160.empty());
    BOOST_TEST(scrolls(f80.front()));
    BOOST_TEST(!scrolls(f160.front()));
    expect_fits(f160.front(), 160, 50);
    BOOST_TEST(has_line_with(f160.front(), "Q  [3, 4]", "K_t  [4, 3]"));
    BOOST_TEST(has_line_with(f160.front(), "The score matrix", ""));
}

// A slide summarises a long list of sub-steps as `qkv lesson` does (the first in full, a line for
// each other), and --full shows every step.
BOOST_AUTO_TEST_CASE(a_slide_summarises_sub_steps_and_full_shows_them) {
    auto first_frame = [](std::vector<std::string> extra) {
        std::vector<std::string> args{"lesson", "9", "--present", "--stage", "2", "--color", "never"};
        args.insert(args.end(), extra.begin(), extra.end());
        auto frames = frames_of(run_qkv(args, "q\n", {{"COLUMNS", "120"}, {"LINES", "200"}, {"TERM", "xterm"}}).out);
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
    auto r = run_qkv({"lesson", "3", "--present"}, "n\nb\ng 4\nq\nn\n", {{"TERM", "xterm"}});
    BOOST_TEST(r.status == 0);
    BOOST_TEST(r.err.empty());
    auto frames = frames_of(r.out);
    BOOST_REQUIRE(frames.size() == 4u);  // 1, 2, 1, 4, then q: the last n is never read
    std::vector<std::string> want{"1/5", "2/5", "1/5", "4/5"};
    for (std::size_t i = 0; i < 4; ++i) BOOST_TEST(frames[i][1].find(want[i]) != std::string::npos, "frame " << i << ": " << frames[i][1]);
    BOOST_TEST(r.out.find(enter_alt) == std::string::npos);  // not a terminal: no screen to take over
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

// --- the keys themselves (navigation.hpp), shared by --step and --present ---------------------

namespace {

qkv::trace stages(int lesson, std::size_t n) {
    qkv::trace t;
    t.lesson = lesson;
    t.stages.resize(n);
    return t;
}

}  // namespace

BOOST_AUTO_TEST_CASE(typed_lines_map_to_the_same_commands_for_both) {
    using qkv::action;
    for (std::string_view next : {"", "n", "  n \r", "\t"}) BOOST_TEST((qkv::parse_line(next).a == action::next), next);
    BOOST_TEST((qkv::parse_line("b").a == action::back));
    BOOST_TEST((qkv::parse_line("r").a == action::redraw));
    BOOST_TEST((qkv::parse_line("?").a == action::help));
    BOOST_TEST((qkv::parse_line("q").a == action::quit));
    BOOST_TEST((qkv::parse_line("p").a == action::pause));
    BOOST_TEST((qkv::parse_line("j").a == action::down));
    for (std::string_view go : {"g 4", "g4", " g  4 "}) {
        auto c = qkv::parse_line(go);
        BOOST_TEST((c.a == action::go && c.stage == 4), go);
    }
    for (std::string_view bad : {"g", "g x", "g 1234567", "next", "x"})
        BOOST_TEST((qkv::parse_line(bad).a == action::unknown), bad);
}

BOOST_AUTO_TEST_CASE(single_keys_differ_only_where_space_enter_and_t_do) {
    using qkv::action;
    using qkv::key_set;
    auto in = [](char ch, key_set k) { return qkv::decode_key(ch, k, -1).a; };
    for (char ch : {'\n', '\r'}) BOOST_TEST((in(ch, key_set::stepper) == action::page_or_next && in(ch, key_set::presenter) == action::next));
    BOOST_TEST((in(' ', key_set::stepper) == action::page_or_next));  // a page down, at the bottom the next stage
    BOOST_TEST((in(' ', key_set::presenter) == action::pause));
    BOOST_TEST((in('t', key_set::stepper) == action::unknown && in('t', key_set::presenter) == action::text));
    BOOST_TEST((in('x', key_set::stepper) == action::unknown && in('x', key_set::presenter) == action::unknown));
    for (key_set k : {key_set::stepper, key_set::presenter}) {
        BOOST_TEST((in(3, k) == action::interrupt));
        for (char ch : {'n', 'l'}) BOOST_TEST((in(ch, k) == action::next));
        for (char ch : {'b', '\x7f', '\x08'}) BOOST_TEST((in(ch, k) == action::back));
        BOOST_TEST((in('j', k) == action::down && in('k', k) == action::up));
        BOOST_TEST((in('\x04', k) == action::quit && in('q', k) == action::quit));
        BOOST_TEST((in('\x0c', k) == action::redraw && in('h', k) == action::help));
    }
    auto g = qkv::decode_key('g', key_set::stepper, -1);
    BOOST_TEST((g.a == action::go && g.stage == -1));  // the number is still to come
}

// An escape sequence is one key however long it is: its bytes never come back as keys of their own.
BOOST_AUTO_TEST_CASE(escape_sequences_are_read_whole) {
    using qkv::action;
    int fds[2];
    BOOST_REQUIRE(pipe(fds) == 0);
    auto key = [&](std::string_view rest) {
        BOOST_REQUIRE(write(fds[1], rest.data(), rest.size()) == static_cast<ssize_t>(rest.size()));
        auto c = qkv::decode_key('\x1b', qkv::key_set::stepper, fds[0]).a;
        pollfd p{fds[0], POLLIN, 0};
        BOOST_TEST(poll(&p, 1, 0) == 0, "bytes left after ESC" << rest);  // all of it was read
        return c;
    };
    BOOST_TEST((key("[A") == action::up));
    BOOST_TEST((key("[B") == action::down));
    BOOST_TEST((key("[C") == action::next));
    BOOST_TEST((key("[D") == action::back));
    BOOST_TEST((key("OA") == action::up));
    BOOST_TEST((key("[5~") == action::page_up));
    BOOST_TEST((key("[6~") == action::page_down));
    BOOST_TEST((key("[H") == action::top && key("[4~") == action::bottom));
    BOOST_TEST((key("[1;5A") == action::up));   // Ctrl-↑
    BOOST_TEST((key("[15~") == action::none));  // F5: nothing, and not "unknown key" twice
    BOOST_TEST((key("[3~") == action::none));   // Delete
    BOOST_TEST((key("") == action::redraw));    // a lone Esc
    close(fds[0]), close(fds[1]);
}

BOOST_AUTO_TEST_CASE(the_number_after_g_is_typed_erased_and_cancelled) {
    using step = qkv::stage_entry::step;
    qkv::stage_entry e(qkv::key_set::stepper);
    BOOST_TEST((e.feed('\x7f') == step::ignored));  // nothing to erase yet
    BOOST_TEST((e.feed('1') == step::added));
    BOOST_TEST((e.feed('2') == step::added));
    BOOST_TEST((e.feed('\x7f') == step::erased));
    BOOST_TEST((e.feed('q') == step::ignored));  // only the presenter takes q as cancel
    BOOST_TEST((e.feed('\r') == step::done));
    BOOST_TEST((e.result().a == qkv::action::go && e.result().stage == 1));
    qkv::stage_entry p(qkv::key_set::presenter);
    BOOST_TEST((p.feed('q') == step::cancelled));
    BOOST_TEST((qkv::stage_entry(qkv::key_set::stepper).feed('\x1b') == step::cancelled));
    qkv::stage_entry many(qkv::key_set::presenter);
    for (int i = 0; i < 6; ++i) BOOST_TEST((many.feed('9') == step::added));
    BOOST_TEST((many.feed('9') == step::ignored));  // six digits at the most
    BOOST_TEST((qkv::stage_entry(qkv::key_set::stepper).result().a == qkv::action::unknown));  // Enter alone
}

BOOST_AUTO_TEST_CASE(the_cursor_goes_through_every_lesson_and_g_stays_in_one) {
    std::vector<qkv::trace> traces{stages(1, 2), stages(2, 3)};  // overall stages 0-1, then 2-4
    qkv::stage_cursor at(traces, 1);
    BOOST_TEST((at.lesson() == 0 && at.stage() == 1));
    BOOST_TEST(at.next());
    BOOST_TEST((at.lesson() == 1 && at.stage() == 0 && at.stages_here() == 3u));
    BOOST_TEST(at.go(3));
    BOOST_TEST((at.stage() == 2 && at.at_end()));
    BOOST_TEST(!at.next());
    BOOST_TEST(!at.go(4));  // lesson 2 has stages 1-3: no move
    BOOST_TEST(!at.go(0));
    BOOST_TEST(at.stage() == 2u);
    BOOST_TEST(at.back());
    BOOST_TEST(qkv::stage_cursor(traces, 99).stage() == 0u);  // out of range: the first stage
    BOOST_TEST(qkv::stage_cursor({}, 0).empty());
    qkv::stage_cursor first(traces, 0);
    BOOST_TEST(!first.back());
}
