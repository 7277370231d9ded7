// The key, cursor and status loop of the full-screen modes (screen_loop.hpp). It redraws the whole
// screen every time, so a resize or a return from Ctrl-Z leaves nothing behind.
#include "screen_loop.hpp"

#include "ui_words.hpp"

namespace qkv::ui {

screen_loop::screen_loop(const std::vector<trace>& traces, const render_options& o, key_set keys, int in_fd,
                         int out_fd, bool escapes, std::size_t start)
    : traces_(traces), o_(o), at_(traces, start), keys_(keys), in_(in_fd), out_(out_fd), escapes_(escapes),
      raw_(in_fd, escapes ? terminal::screen::full : terminal::screen::keep, out_fd) {}

int screen_loop::run() {
    constexpr int output_gone = 141;  // what a shell shows for SIGPIPE
    if (at_.empty()) return 0;
    if (!draw()) return output_gone;
    for (;;) {
        command c;
        const auto got = next_command(c);
        if (got == terminal::wait_result::end) return 0;
        if (got == terminal::wait_result::interrupted) {  // a resize, or back from Ctrl-Z
            if (terminal::resized() && !draw()) return output_gone;
            continue;
        }
        const bool by_clock = got == terminal::wait_result::timeout;
        if (by_clock) c = {action::next};
        if (c.a == action::quit) return 0;
        if (c.a == action::interrupt) return 130;
        if (!handle(c, by_clock)) return 0;
        if (!draw()) return output_gone;
    }
}

// A key from the terminal, or a line from a pipe; timeout when the mode's clock ran out.
terminal::wait_result screen_loop::next_command(command& c) {
    for (;;) {
        char ch = 0;
        const auto r = terminal::wait_byte(in_, timeout_ms(), ch);
        if (r != terminal::wait_result::byte) return r;
        if (raw_.active()) {
            c = decode_key(ch, keys_, in_);
            if (c.a == action::go && c.stage < 0) return read_number(c);
            return r;
        }
        if (ch != '\n') {
            line_ += ch;
            continue;
        }
        c = parse_line(line_);
        line_.clear();
        return r;
    }
}

// After g on a terminal: the digits up to Enter, echoed in the status line; Esc cancels.
terminal::wait_result screen_loop::read_number(command& c) {
    const auto r = read_stage_number(in_, keys_, c, [&](const std::string& digits) {
        prompt_ = say(o_.language, go_to_stage) + digits + "▏";
        return draw();
    });
    prompt_.clear();
    return r;
}

// What a key does; false when the stepping is over. by_clock: the mode's clock said next.
bool screen_loop::handle(const command& c, bool by_clock) {
    note_.clear();
    if (st_.help && !by_clock) {  // any key closes the key list
        st_.help = false;
        return true;
    }
    if (auto goes_on = own_key(c, by_clock)) return *goes_on;
    switch (c.a) {
        case action::next: case action::back: case action::go:
            return move(c);
        case action::page_or_next:  // space and Enter: a page down, and at the bottom the next stage
            if (!at_bottom(st_)) return scroll_body(st_, action::page_down);
            return move(command{action::next});
        case action::help: st_.help = true; return true;
        case action::redraw: case action::none: return true;
        default:
            if (!scroll_body(st_, c.a)) note_ = say(o_.language, unknown_key);
            return true;
    }
}

bool screen_loop::move(const command& c) {
    const stage_move m = moves_.apply(c, note_, o_.language);
    if (m == stage_move::moved) {
        st_.scroll = 0, st_.help = false;
        moved();
    }
    return m != stage_move::leave;
}

std::string screen_loop::status() const {
    if (!prompt_.empty()) return prompt_;
    if (!note_.empty()) return note_;
    return idle_status();
}

// The whole screen in one write, so it never shows half drawn; without escapes (TERM=dumb) a page
// printed under the last, a line shorter so that the cursor's line keeps it all in sight. False
// when the output is gone.
bool screen_loop::draw() {
    const terminal::hold_stop whole;  // a Ctrl-Z now stops the job after this screen, not inside it
    if (terminal::given_back()) return true;  // in the background: drawn when fg takes the terminal again
    const std::size_t cols = terminal::width(out_, 80), rows = terminal::height(out_, 24);
    return draw_frame(out_, frame(cols, escapes_ ? rows : rows - 1), escapes_);
}

}  // namespace qkv::ui
