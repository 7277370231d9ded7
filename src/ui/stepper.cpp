// The stepper moves a cursor through the stages of one or more traces and redraws; it computes
// nothing. On a full terminal it takes the screen (stepper_screen.cpp); otherwise it prints each
// stage, and keys come one at a time from a terminal or a line at a time from a pipe or file.
#include "qkv/stepper.hpp"

#include <optional>
#include <string>

#include <fmt/format.h>

#include "qkv/navigation.hpp"
#include "qkv/render_text.hpp"
#include "qkv/stepper_screen.hpp"
#include "qkv/styled_text.hpp"
#include "qkv/terminal.hpp"
#include "ui_words.hpp"

namespace qkv {
namespace {

// A line from fd (without the newline); nullopt at end of input with nothing read.
std::optional<std::string> read_line(int fd) {
    std::string line;
    for (;;) {
        auto c = terminal::read_byte(fd);
        if (!c) return line.empty() ? std::nullopt : std::optional<std::string>(line);
        if (*c == '\n') return line;
        line += *c;
    }
}

// On a terminal in raw mode: one key, except g, which reads a stage number up to Enter, echoed.
std::optional<command> read_key_command(int fd, std::FILE* out, lang l) {
    auto c = terminal::read_byte(fd);
    if (!c) return std::nullopt;
    command k = decode_key(*c, key_set::stepper, fd);
    if (k.a != action::go) return k;
    fmt::print(out, "{}", ui::say(l, ui::go_to_stage));
    std::fflush(out);
    stage_entry entry(key_set::stepper);
    for (;;) {
        auto d = terminal::read_byte(fd);
        if (!d) return std::nullopt;
        switch (entry.feed(*d)) {
            case stage_entry::step::added: fmt::print(out, "{}", *d); break;
            case stage_entry::step::erased: fmt::print(out, "\b \b"); break;
            case stage_entry::step::ignored: break;
            case stage_entry::step::cancelled: fmt::print(out, "\n"); return command{action::redraw};
            case stage_entry::step::done: fmt::print(out, "\n"); return entry.result();
        }
        std::fflush(out);
    }
}

// Every key, one a line: what h shows when keys come one at a time but the screen is not ours.
std::string key_table(lang l) {
    std::string out;
    auto list = key_list(l, key_set::stepper, false);
    std::size_t kw = 0;
    for (const auto& k : list) kw = std::max(kw, visible_width(k.keys));
    for (const auto& k : list) out += "  " + pad_to(k.keys, kw) + "   " + k.what + "\n";
    return out;
}

// Stages printed one after another, no escapes: a pipe or file gives lines, a dumb terminal keys.
int run_stepper_lines(const std::vector<trace>& traces, const render_options& o, const stepper_io& io, std::size_t start) {
    stage_cursor at(traces, start);
    if (at.empty()) return 0;
    terminal::raw_mode raw(io.in_fd);
    const std::string keys = ui::say(o.language, ui::line_keys);
    auto draw = [&] {
        fmt::print(io.out, "{}", render_text_stage(traces[at.lesson()], at.stage(), o));
        fmt::print(io.out, "\n[{}/{}] {}\n", at.stage() + 1, at.stages_here(), keys);
        std::fflush(io.out);
    };
    // Output that can no longer be written (the reader of a pipe has gone) ends the stepping
    // quietly with the status a shell shows for SIGPIPE, instead of waiting for keys forever.
    auto output_gone = [&] { return std::fflush(io.out) != 0 || std::ferror(io.out); };
    draw();
    for (;;) {
        if (output_gone()) return 141;
        std::optional<command> c;
        if (raw.active()) c = read_key_command(io.in_fd, io.out, o.language);
        else if (auto line = read_line(io.in_fd)) c = parse_line(*line);
        if (!c || c->a == action::quit) return 0;
        switch (c->a) {
            case action::interrupt: return 130;
            case action::next:
            case action::page_or_next:
                if (!at.next()) {
                    fmt::print(io.out, "{}\n", ui::say(o.language, ui::end_of_lesson));
                    for (const std::string& line : closing_lines(traces[at.lesson()], o.language)) fmt::print(io.out, "{}\n", line);
                    return 0;
                }
                draw();
                break;
            case action::back:
                at.back();
                draw();
                break;
            case action::go:
                if (at.go(c->stage)) draw();
                else fmt::print(io.out, "{} ({} 1–{})\n", ui::say(o.language, ui::no_such_stage), ui::say(o.language, ui::stage), at.stages_here());
                break;
            case action::redraw: draw(); break;
            case action::help: fmt::print(io.out, "{}\n", raw.active() ? key_table(o.language) : keys); break;
            case action::none: case action::up: case action::down: case action::page_up: case action::page_down:
            case action::top: case action::bottom: break;  // the whole stage is printed: nothing to scroll
            default: fmt::print(io.out, "{}\n", ui::say(o.language, ui::unknown_key)); break;  // p, t, j, k too
        }
        std::fflush(io.out);
    }
}

}  // namespace

int run_stepper(const std::vector<trace>& traces, const render_options& o, const stepper_io& io, std::size_t start) {
    int out_fd = fileno(io.out);
    if (terminal::is_tty(io.in_fd) && terminal::is_tty(out_fd) && terminal::escapes_ok()) {
        std::fflush(io.out);
        return run_stepper_screen(traces, o, io.in_fd, out_fd, start);
    }
    return run_stepper_lines(traces, o, io, start);
}

}  // namespace qkv
