// The keys of --step and --present, and the cursor they move. One table says which key does what
// for each of the two, so that the letters stay the same wherever they work.
#include "qkv/navigation.hpp"

#include <array>
#include <cctype>
#include <optional>

#include <fmt/format.h>

#include "qkv/terminal.hpp"
#include "ui_words.hpp"

namespace qkv {
namespace {

// "3", " 3" -> 3; nullopt when the rest is not a number (or has more than six digits).
std::optional<long> stage_number(std::string_view rest) {
    while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.front()))) rest.remove_prefix(1);
    if (rest.empty() || rest.size() > 6) return std::nullopt;
    long k = 0;
    for (char ch : rest) {
        if (!std::isdigit(static_cast<unsigned char>(ch))) return std::nullopt;
        k = k * 10 + (ch - '0');
    }
    return k;
}

// A key in raw mode, and what it does for the stepper and for the presenter.
struct binding {
    char key;
    action in_stepper, in_presenter;
};

// Space and Enter read on in both (a page down, at the bottom the next stage), as --help says of
// --step and of --present ("the keys of --step"); --present's space jumped to the next stage,
// past what a small screen had not shown yet. p pauses --present's --auto.
constexpr std::array<binding, 20> bindings{{
    {'\n', action::page_or_next, action::page_or_next}, {'\r', action::page_or_next, action::page_or_next},
    {' ', action::page_or_next, action::page_or_next},   {'p', action::unknown, action::pause},
    {'n', action::next, action::next},      {'l', action::next, action::next},
    {'b', action::back, action::back},      {127, action::back, action::back},
    {8, action::back, action::back},        {'r', action::redraw, action::redraw},
    {12, action::redraw, action::redraw},   {'h', action::help, action::help},
    {'?', action::help, action::help},      {'q', action::quit, action::quit},
    {4, action::quit, action::quit},        {3, action::interrupt, action::interrupt},  // Ctrl-C as a byte
    {'t', action::unknown, action::text},   {'j', action::down, action::down},
    {'k', action::up, action::up},          {'g', action::go, action::go},
}};

// A CSI sequence's last byte with its first number: A-D arrows, H/F and 1~ 4~ 7~ 8~ Home and End,
// 5~ 6~ the page keys. Any other sequence (F-keys, Insert, Delete, mouse) does nothing.
command csi_key(char final, int number) {
    switch (final) {
        case 'A': return {action::up};
        case 'B': return {action::down};
        case 'C': return {action::next};
        case 'D': return {action::back};
        case 'H': return {action::top};
        case 'F': return {action::bottom};
        case '~':
            if (number == 5) return {action::page_up};
            if (number == 6) return {action::page_down};
            if (number == 1 || number == 7) return {action::top};
            if (number == 4 || number == 8) return {action::bottom};
            return {action::none};
        default: return {action::none};
    }
}

// After Esc: ESC [ params final or ESC O x, read to the end so that no byte of it comes back as a
// key of its own; a lone Esc redraws, Alt and a key is nothing.
command escape_sequence(int fd) {
    char a = 0, b = 0;
    if (terminal::wait_byte(fd, 50, a) != terminal::wait_result::byte) return {action::redraw};
    if (a == 'O') {
        if (terminal::wait_byte(fd, 50, b) != terminal::wait_result::byte) return {action::none};
        return csi_key(b, 0);
    }
    if (a != '[') return {action::none};
    int number = 0;
    bool first = true;
    for (int i = 0; i < 32; ++i) {  // parameters and intermediates (0x20-0x3F), then the final byte
        if (terminal::wait_byte(fd, 50, b) != terminal::wait_result::byte) return {action::none};
        auto u = static_cast<unsigned char>(b);
        if (u >= 0x40 && u <= 0x7E) return csi_key(b, number);
        if (u < 0x20 || u > 0x3F) return {action::none};
        if (b == ';') first = false;
        else if (first && std::isdigit(u)) number = number * 10 + (b - '0');
    }
    return {action::none};
}

}  // namespace

command parse_line(std::string_view line) {
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.remove_suffix(1);
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.front()))) line.remove_prefix(1);
    if (line.empty() || line == "n") return {action::next};
    if (line == "b") return {action::back};
    if (line == "r") return {action::redraw};
    if (line == "h" || line == "?") return {action::help};
    if (line == "q") return {action::quit};
    if (line == "p") return {action::pause};
    if (line == "t") return {action::text};
    if (line == "j") return {action::down};
    if (line == "k") return {action::up};
    if (line.front() == 'g')
        if (auto k = stage_number(line.substr(1))) return {action::go, *k};
    return {action::unknown};
}

command decode_key(char ch, key_set keys, int fd) {
    if (ch == 27) return escape_sequence(fd);
    for (const binding& b : bindings) {
        if (b.key != ch) continue;
        action a = keys == key_set::stepper ? b.in_stepper : b.in_presenter;
        return {a, a == action::go ? -1 : 0};
    }
    return {action::unknown};
}

std::vector<key_help> key_list(lang l, key_set keys, bool scrolling) {
    using namespace ui;
    const bool step = keys == key_set::stepper;
    std::vector<key_help> out;
    out.push_back({say(l, key_space_enter), say(l, scrolling ? does_page_or_next : does_next)});
    out.push_back({"n  →  l", say(l, does_next)});
    out.push_back({say(l, key_back), say(l, does_back)});
    out.push_back({say(l, key_go), say(l, does_go)});
    if (scrolling) {
        out.push_back({"↑ ↓  k j", say(l, does_scroll_line)});
        out.push_back({"PgUp PgDn", say(l, does_scroll_page)});
        out.push_back({"Home End", say(l, does_top_bottom)});
    }
    if (!step) {
        out.push_back({"t", say(l, does_text)});
        out.push_back({say(l, key_pause_auto), say(l, does_pause)});
    }
    out.push_back({"r  Ctrl-L  Esc", say(l, does_redraw)});
    out.push_back({"h  ?", say(l, does_help)});
    out.push_back({"q  Ctrl-D", say(l, does_quit)});
    out.push_back({"Ctrl-C", say(l, does_interrupt)});
    out.push_back({"Ctrl-Z", say(l, does_suspend)});
    return out;
}

terminal::wait_result read_stage_number(int fd, key_set keys, command& c,
                                        const std::function<bool(const std::string&)>& show) {
    stage_entry entry(keys);
    for (;;) {
        if (!show(entry.digits())) return terminal::wait_result::end;
        char ch = 0;
        auto r = terminal::wait_byte(fd, -1, ch);
        if (r == terminal::wait_result::interrupted) {
            terminal::resized();
            continue;
        }
        if (r != terminal::wait_result::byte) return r;
        auto step = entry.feed(ch);
        if (step == stage_entry::step::done || step == stage_entry::step::cancelled) {
            c = step == stage_entry::step::done ? entry.result() : command{action::redraw};
            return terminal::wait_result::byte;
        }
    }
}

stage_entry::step stage_entry::feed(char ch) {
    if (ch == '\n' || ch == '\r') return step::done;
    if (ch == 127 || ch == 8) {
        if (digits_.empty()) return step::ignored;
        digits_.pop_back();
        return step::erased;
    }
    if (std::isdigit(static_cast<unsigned char>(ch))) {
        if (digits_.size() >= 6) return step::ignored;
        digits_ += ch;
        return step::added;
    }
    if (ch == 27 || ch == 3 || (ch == 'q' && keys_ == key_set::presenter)) return step::cancelled;
    return step::ignored;
}

command stage_entry::result() const {
    if (auto k = stage_number(digits_)) return {action::go, *k};
    return {action::unknown};
}

stage_cursor::stage_cursor(const std::vector<trace>& traces, std::size_t start) {
    for (std::size_t t = 0; t < traces.size(); ++t) {
        counts_.push_back(traces[t].stages.size());
        for (std::size_t s = 0; s < traces[t].stages.size(); ++s) all_.push_back({t, s});
    }
    i_ = start < all_.size() ? start : 0;
}

bool stage_cursor::next() {
    if (at_end()) return false;
    ++i_;
    return true;
}

bool stage_cursor::back() {
    if (i_ == 0) return false;
    --i_;
    return true;
}

bool stage_cursor::go(long k) {
    if (k < 1 || static_cast<std::size_t>(k) > stages_here()) return false;
    i_ = i_ - stage() + static_cast<std::size_t>(k - 1);
    return true;
}

stage_move stage_moves::apply(const command& c, std::string& note, lang l) {
    bool moved = false;
    switch (c.a) {
        case action::next:
            if (at.at_end()) {
                if (end_shown) return stage_move::leave;  // a second "next" at the end leaves
                end_shown = true;
                return stage_move::stayed;
            }
            moved = at.next();
            break;
        case action::back: moved = at.back(); break;
        case action::go:
            moved = at.go(c.stage);
            if (!moved) note = fmt::format("{} (1–{})", ui::say(l, ui::no_such_stage), at.stages_here());
            break;
        default: break;
    }
    if (moved) end_shown = false;
    return moved ? stage_move::moved : stage_move::stayed;
}

std::string stage_moves::end_status(lang l) const {
    return ui::say(l, end_shown ? ui::end_leaves : ui::end_of_lesson);
}

}  // namespace qkv
