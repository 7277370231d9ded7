// The stepper moves a cursor through the stages of one or more traces and redraws; it computes
// nothing. Keys come one at a time from a terminal, or a line at a time from a pipe or file.
#include "qkv/stepper.hpp"

#include <cctype>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "qkv/render_text.hpp"
#include "qkv/terminal.hpp"

namespace qkv {
namespace {

enum class action { next, back, go, redraw, help, quit, interrupt, unknown };

struct command {
    action a = action::unknown;
    long stage = 0;  // for go: the stage number the user typed (from 1)
};

// "g 3", "g3" -> 3; nullopt when the rest is not a number.
std::optional<long> number_after_g(std::string_view rest) {
    while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.front()))) rest.remove_prefix(1);
    if (rest.empty() || rest.size() > 6) return std::nullopt;
    long k = 0;
    for (char c : rest) {
        if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
        k = k * 10 + (c - '0');
    }
    return k;
}

command parse_line(std::string line) {
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
    std::size_t i = 0;
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    std::string_view s = std::string_view(line).substr(i);
    if (s.empty() || s == "n") return {action::next};
    if (s == "b") return {action::back};
    if (s == "r") return {action::redraw};
    if (s == "h" || s == "?") return {action::help};
    if (s == "q") return {action::quit};
    if (s.front() == 'g') {
        if (auto k = number_after_g(s.substr(1))) return {action::go, *k};
    }
    return {action::unknown};
}

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

// On a terminal in raw mode: one key, except g, which reads a stage number up to Enter.
std::optional<command> read_key_command(int fd, std::FILE* out, lang l) {
    auto c = terminal::read_byte(fd);
    if (!c) return std::nullopt;
    switch (*c) {
        case '\n': case '\r': case 'n': case ' ': return command{action::next};
        case 'b': return command{action::back};
        case 'r': return command{action::redraw};
        case 'h': case '?': return command{action::help};
        case 'q': return command{action::quit};
        case 3: return command{action::interrupt};  // Ctrl-C arriving as a byte
        case 'g': break;
        default: return command{action::unknown};
    }
    fmt::print(out, "{}", tr(l, "go to stage: "));
    std::fflush(out);
    std::string digits;
    for (;;) {
        auto d = terminal::read_byte(fd);
        if (!d) return std::nullopt;
        if (*d == '\n' || *d == '\r') break;
        if ((*d == 127 || *d == 8) && !digits.empty()) {
            digits.pop_back();
            fmt::print(out, "\b \b");
        } else if (std::isdigit(static_cast<unsigned char>(*d)) && digits.size() < 6) {
            digits += *d;
            fmt::print(out, "{}", *d);
        } else if (*d == 27 || *d == 3) {
            fmt::print(out, "\n");
            return command{action::redraw};
        }
        std::fflush(out);
    }
    fmt::print(out, "\n");
    if (auto k = number_after_g(digits)) return command{action::go, *k};
    return command{action::unknown};
}

struct position {
    std::size_t lesson = 0;  // index into traces
    std::size_t stage = 0;   // index into that trace's stages
};

}  // namespace

int run_stepper(const std::vector<trace>& traces, const render_options& o, const stepper_io& io, std::size_t start) {
    std::vector<position> all;
    for (std::size_t t = 0; t < traces.size(); ++t)
        for (std::size_t s = 0; s < traces[t].stages.size(); ++s) all.push_back({t, s});
    if (all.empty()) return 0;
    std::size_t i = start < all.size() ? start : 0;

    terminal::raw_mode raw(io.in_fd);
    const std::string keys(tr(o.language, "Enter/n next · b back · g K go to stage K · r redraw · h help · q quit"));
    auto draw = [&] {
        const trace& t = traces[all[i].lesson];
        if (io.clear_screen) fmt::print(io.out, "\x1b[2J\x1b[H");
        fmt::print(io.out, "{}", render_text_stage(t, all[i].stage, o));
        fmt::print(io.out, "\n[{}/{}] {}\n", all[i].stage + 1, t.stages.size(), keys);
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
                if (i + 1 >= all.size()) {
                    fmt::print(io.out, "{}\n", tr(o.language, "end of lesson"));
                    return 0;
                }
                ++i;
                draw();
                break;
            case action::back:
                if (i > 0) --i;
                draw();
                break;
            case action::go: {
                const trace& t = traces[all[i].lesson];
                if (c->stage < 1 || static_cast<std::size_t>(c->stage) > t.stages.size()) {
                    fmt::print(io.out, "{} ({} 1–{})\n", tr(o.language, "no such stage"), tr(o.language, "stage"), t.stages.size());
                    break;
                }
                i = i - all[i].stage + static_cast<std::size_t>(c->stage - 1);
                draw();
                break;
            }
            case action::redraw: draw(); break;
            case action::help: fmt::print(io.out, "{}\n", keys); break;
            default: fmt::print(io.out, "{}\n", tr(o.language, "unknown key; h for help")); break;
        }
        std::fflush(io.out);
    }
}

}  // namespace qkv
