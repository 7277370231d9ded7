// The keys of --step and --present and where they move (navigation.hpp), without a terminal:
// typed lines, single keys and whole escape sequences read from a pipe, the number typed after g,
// the cursor through one or more lessons and the moves at the end. Every expected value is read
// off the key table that navigation.hpp and the design notes state, not off the code.
#define BOOST_TEST_MODULE navigation
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <string>
#include <string_view>
#include <vector>

#include <poll.h>
#include <unistd.h>

#include "qkv/navigation.hpp"
#include "qkv/terminal.hpp"

namespace {

qkv::trace stages(int lesson, std::size_t n) {
    qkv::trace t;
    t.lesson = lesson;
    t.stages.resize(n);
    return t;
}

// A pipe to feed bytes to decode_key and read_stage_number as a terminal would.
struct byte_pipe {
    int fds[2] = {-1, -1};
    byte_pipe() { BOOST_REQUIRE(pipe(fds) == 0); }
    ~byte_pipe() { close_writer(), close(fds[0]); }
    int reader() const { return fds[0]; }
    void write_all(std::string_view bytes) {
        BOOST_REQUIRE(write(fds[1], bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
    }
    void close_writer() {
        if (fds[1] >= 0) close(fds[1]), fds[1] = -1;
    }
    bool empty() const {
        pollfd p{fds[0], POLLIN, 0};
        return poll(&p, 1, 0) == 0;
    }
};

}  // namespace

// --- the cases that stood in test_present.cpp ---------------------------------------------------

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

// Issue 40: space paged down in --step but jumped to the next stage in --present. Space and Enter
// read on in both (a page down, at the bottom the next stage), as --help says; the presenter's own
// keys are t (the text) and p (pause --auto).
BOOST_AUTO_TEST_CASE(single_keys_differ_only_where_t_and_p_do) {
    using qkv::action;
    using qkv::key_set;
    auto in = [](char ch, key_set k) { return qkv::decode_key(ch, k, -1).a; };
    for (char ch : {'\n', '\r', ' '})
        BOOST_TEST((in(ch, key_set::stepper) == action::page_or_next && in(ch, key_set::presenter) == action::page_or_next), int(ch));
    BOOST_TEST((in('t', key_set::stepper) == action::unknown && in('t', key_set::presenter) == action::text));
    BOOST_TEST((in('p', key_set::stepper) == action::unknown && in('p', key_set::presenter) == action::pause));
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

// --- typed lines ---------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(every_typed_letter_and_the_stage_number_rules) {
    using qkv::action;
    // The letters of the design notes, one a line, blanks around them ignored.
    BOOST_TEST((qkv::parse_line("h").a == action::help));
    BOOST_TEST((qkv::parse_line(" q ").a == action::quit));
    BOOST_TEST((qkv::parse_line("t").a == action::text));  // the presenter's; the stepper answers "unknown"
    BOOST_TEST((qkv::parse_line("k").a == action::up));
    BOOST_TEST((qkv::parse_line("\r").a == action::next));  // a bare Enter from a CRLF file
    // g and up to six digits, spaces allowed between: 0 is a number (the cursor says there is no
    // stage 0), 123456 is six digits, leading zeros count for nothing.
    auto go = [](std::string_view line) { return qkv::parse_line(line); };
    BOOST_TEST((go("g 0").a == action::go && go("g 0").stage == 0));
    BOOST_TEST((go("g123456").a == action::go && go("g123456").stage == 123456));
    BOOST_TEST((go("g 007").a == action::go && go("g 007").stage == 7));
    // Upper case, a sign, a second letter or anything after the number is no command.
    for (std::string_view bad : {"G 4", "Q", "N", "g -1", "g 4x", "gg", "n n", "qq", "g 4 5"})
        BOOST_TEST((qkv::parse_line(bad).a == action::unknown), bad);
}

// --- single keys ---------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(keys_with_no_binding_are_unknown_and_only_g_waits_for_a_number) {
    using qkv::action;
    using qkv::key_set;
    for (key_set k : {key_set::stepper, key_set::presenter}) {
        for (char ch : {'G', 'Q', 'N', '0', '5', 'x', '\t'})
            BOOST_TEST((qkv::decode_key(ch, k, -1).a == action::unknown), "key " << int(ch));
        BOOST_TEST((qkv::decode_key('r', k, -1).a == action::redraw));
        BOOST_TEST((qkv::decode_key('?', k, -1).a == action::help));
        BOOST_TEST((qkv::decode_key('g', k, -1).stage == -1));
        BOOST_TEST((qkv::decode_key('n', k, -1).stage == 0));  // no number for anything but g
    }
}

BOOST_AUTO_TEST_CASE(home_end_and_the_other_spellings_of_the_cursor_keys) {
    using qkv::action;
    byte_pipe in;
    auto key = [&](std::string_view rest) {
        in.write_all(rest);
        auto a = qkv::decode_key('\x1b', qkv::key_set::presenter, in.reader()).a;
        BOOST_TEST(in.empty(), "bytes left after ESC" << rest);
        return a;
    };
    // xterm's Home/End (ESC [ H / F, ESC O H / F), the vt220 ones (1~ 4~) and rxvt's (7~ 8~).
    for (std::string_view home : {"[H", "OH", "[1~", "[7~"}) BOOST_TEST((key(home) == action::top), home);
    for (std::string_view end : {"[F", "OF", "[4~", "[8~"}) BOOST_TEST((key(end) == action::bottom), end);
    BOOST_TEST((key("OB") == action::down));
    BOOST_TEST((key("[2~") == action::none));  // Insert
    BOOST_TEST((key("x") == action::none));    // Alt-x: the x is taken with it
}

BOOST_AUTO_TEST_CASE(an_escape_cut_short_by_the_end_of_input_is_nothing) {
    byte_pipe in;
    in.write_all("[1;");
    in.close_writer();
    BOOST_TEST((qkv::decode_key('\x1b', qkv::key_set::stepper, in.reader()).a == qkv::action::none));
}

// --- the number after g on a terminal ---------------------------------------------------------------

BOOST_AUTO_TEST_CASE(the_digits_after_g_are_shown_as_typed_and_erased) {
    byte_pipe in;
    in.write_all("42\x7f" "7\r");  // 4, 2, Backspace, 7, Enter: stage 47
    std::vector<std::string> shown;
    qkv::command c;
    auto r = qkv::read_stage_number(in.reader(), qkv::key_set::stepper, c, [&](const std::string& d) {
        shown.push_back(d);
        return true;
    });
    BOOST_TEST((r == qkv::terminal::wait_result::byte));
    BOOST_TEST((c.a == qkv::action::go && c.stage == 47));
    // Drawn before each key: nothing yet, 4, 42, 4 (erased), 47.
    BOOST_TEST((shown == std::vector<std::string>{"", "4", "42", "4", "47"}));
}

BOOST_AUTO_TEST_CASE(esc_cancels_and_the_end_of_input_or_a_lost_screen_end_it) {
    byte_pipe esc;
    esc.write_all("3\x1b");
    qkv::command c;
    auto show = [](const std::string&) { return true; };
    BOOST_TEST((qkv::read_stage_number(esc.reader(), qkv::key_set::presenter, c, show) == qkv::terminal::wait_result::byte));
    BOOST_TEST((c.a == qkv::action::redraw));  // cancelled: the screen as it was

    byte_pipe ended;
    ended.write_all("3");
    ended.close_writer();
    qkv::command untouched{qkv::action::go, -1};
    BOOST_TEST((qkv::read_stage_number(ended.reader(), qkv::key_set::stepper, untouched, show) == qkv::terminal::wait_result::end));
    BOOST_TEST(untouched.stage == -1);

    byte_pipe gone;  // the screen cannot be drawn: no key is even read
    gone.write_all("3\r");
    BOOST_TEST((qkv::read_stage_number(gone.reader(), qkv::key_set::stepper, c, [](const std::string&) { return false; }) ==
                qkv::terminal::wait_result::end));
    BOOST_TEST(!gone.empty());
}

BOOST_AUTO_TEST_CASE(the_stage_entry_takes_digits_and_nothing_else) {
    using step = qkv::stage_entry::step;
    qkv::stage_entry e(qkv::key_set::presenter);
    BOOST_TEST((e.feed('a') == step::ignored));
    BOOST_TEST((e.feed('0') == step::added));
    BOOST_TEST((e.feed('9') == step::added));
    BOOST_TEST((e.feed('\x08') == step::erased));  // Ctrl-H erases as Backspace does
    BOOST_TEST(e.digits() == "0");
    BOOST_TEST((e.feed('\n') == step::done));
    BOOST_TEST((e.result().a == qkv::action::go && e.result().stage == 0));  // "0": a number, no stage
    BOOST_TEST((qkv::stage_entry(qkv::key_set::stepper).feed('\x03') == step::cancelled));  // Ctrl-C
}

// --- the cursor and the moves at the end ------------------------------------------------------------

BOOST_AUTO_TEST_CASE(the_cursor_crosses_lessons_both_ways_and_skips_an_empty_one) {
    // Lessons of 2, 0 and 3 stages: overall stages 0-1 (lesson 1), then 2-4 (lesson 3).
    std::vector<qkv::trace> traces{stages(1, 2), stages(2, 0), stages(3, 3)};
    qkv::stage_cursor at(traces, 1);
    BOOST_TEST(at.next());
    BOOST_TEST((at.lesson() == 2 && at.stage() == 0 && at.stages_here() == 3u));
    BOOST_TEST(at.back());
    BOOST_TEST((at.lesson() == 0 && at.stage() == 1 && at.stages_here() == 2u));
    BOOST_TEST(at.go(1));
    BOOST_TEST((at.lesson() == 0 && at.stage() == 0));
    qkv::stage_cursor last(traces, 4);  // the last overall stage: lesson 3, stage 3
    BOOST_TEST((last.lesson() == 2 && last.stage() == 2 && last.at_end()));
    qkv::stage_cursor past(traces, 5);  // one past the end: the first
    BOOST_TEST((past.lesson() == 0 && past.stage() == 0 && !past.at_end()));
}

BOOST_AUTO_TEST_CASE(next_at_the_end_is_announced_then_leaves_and_a_missing_stage_is_a_note) {
    using qkv::action;
    using qkv::stage_move;
    std::vector<qkv::trace> traces{stages(1, 2)};
    qkv::stage_cursor at(traces, 0);
    qkv::stage_moves moves{at};
    std::string note;
    BOOST_TEST(moves.end_status(qkv::lang::en) == "end of lesson");
    BOOST_TEST((moves.apply({action::next}, note, qkv::lang::en) == stage_move::moved));  // to stage 2 of 2
    BOOST_TEST((moves.apply({action::next}, note, qkv::lang::en) == stage_move::stayed));  // the end, announced
    BOOST_TEST(moves.end_status(qkv::lang::en) == "end · n or q leaves");
    BOOST_TEST(moves.end_status(qkv::lang::zh) == "结束 · n 或 q 退出");
    BOOST_TEST((moves.apply({action::back}, note, qkv::lang::en) == stage_move::moved));  // the announcement is forgotten
    BOOST_TEST((moves.apply({action::next}, note, qkv::lang::en) == stage_move::moved));
    BOOST_TEST((moves.apply({action::next}, note, qkv::lang::en) == stage_move::stayed));
    BOOST_TEST((moves.apply({action::next}, note, qkv::lang::en) == stage_move::leave));
    BOOST_TEST(note.empty());
    BOOST_TEST((moves.apply({action::go, 3}, note, qkv::lang::en) == stage_move::stayed));
    BOOST_TEST(note == "no such stage (1–2)");
    BOOST_TEST((moves.apply({action::go, 0}, note, qkv::lang::zh) == stage_move::stayed));
    BOOST_TEST(note == "没有这个阶段 (1–2)");
    BOOST_TEST((moves.apply({action::go, 1}, note, qkv::lang::en) == stage_move::moved));
    BOOST_TEST((moves.apply({action::redraw}, note, qkv::lang::en) == stage_move::stayed));
    BOOST_TEST((at.lesson() == 0 && at.stage() == 0));
}

// --- the key list (h) ------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(the_key_list_names_each_modes_own_keys) {
    auto keys_of = [](qkv::key_set k, bool scrolling) {
        std::vector<std::string> out;
        for (const auto& row : qkv::key_list(qkv::lang::en, k, scrolling)) out.push_back(row.keys);
        return out;
    };
    // The stepper on a screen: space and Enter read on; n, b, g; three scroll rows; r, h, q,
    // Ctrl-C, Ctrl-Z. Printed line by line it has nothing to scroll.
    BOOST_TEST((keys_of(qkv::key_set::stepper, true) ==
                std::vector<std::string>{"space  Enter", "n  →  l", "b  ←  Backspace", "g K Enter", "↑ ↓  k j", "PgUp PgDn",
                                         "Home End", "r  Ctrl-L  Esc", "h  ?", "q  Ctrl-D", "Ctrl-C", "Ctrl-Z"}));
    BOOST_TEST((keys_of(qkv::key_set::stepper, false) ==
                std::vector<std::string>{"space  Enter", "n  →  l", "b  ←  Backspace", "g K Enter", "r  Ctrl-L  Esc", "h  ?",
                                         "q  Ctrl-D", "Ctrl-C", "Ctrl-Z"}));
    // The presenter: the stepper's keys, then t and the pause of --auto, its own.
    BOOST_TEST((keys_of(qkv::key_set::presenter, true) ==
                std::vector<std::string>{"space  Enter", "n  →  l", "b  ←  Backspace", "g K Enter", "↑ ↓  k j", "PgUp PgDn",
                                         "Home End", "t", "p (with --auto)", "r  Ctrl-L  Esc", "h  ?", "q  Ctrl-D",
                                         "Ctrl-C", "Ctrl-Z"}));
    const auto presenting = qkv::key_list(qkv::lang::en, qkv::key_set::presenter, true);
    BOOST_TEST(presenting.front().what == "a page down; at the bottom, the next stage");
    const auto zh = qkv::key_list(qkv::lang::zh, qkv::key_set::presenter, true);
    BOOST_TEST(zh.front().keys == "空格  回车");
    BOOST_TEST(zh.front().what == "下翻一页；到底时进入下一阶段");
    BOOST_TEST(zh[8].keys == "p（--auto 时）");
    auto step = qkv::key_list(qkv::lang::zh, qkv::key_set::stepper, false);
    BOOST_TEST(step.front().keys == "空格  回车");
    BOOST_TEST(step.front().what == "下一阶段");
}

namespace {
volatile std::sig_atomic_t stops_seen = 0;
extern "C" void count_stop(int) { stops_seen = stops_seen + 1; }
}  // namespace

// A screen is drawn under hold_stop (screen_loop::draw): a Ctrl-Z that comes while it is drawn
// waits until the screen is whole, then is taken. Here SIGTSTP goes to a counting handler instead
// of stopping the test.
BOOST_AUTO_TEST_CASE(ctrl_z_waits_for_a_screen_under_hold_stop) {
    struct sigaction count {}, before {};
    count.sa_handler = count_stop;
    sigemptyset(&count.sa_mask);
    sigaction(SIGTSTP, &count, &before);
    stops_seen = 0;
    {
        const qkv::terminal::hold_stop whole;
        std::raise(SIGTSTP);
        BOOST_TEST(stops_seen == 0);  // held while the screen is drawn
    }
    BOOST_TEST(stops_seen == 1);  // taken as soon as it is whole
    sigaction(SIGTSTP, &before, nullptr);
}
