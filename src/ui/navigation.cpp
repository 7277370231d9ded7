// The keys of --step and --present, and the cursor they move. One table says which key does what
// for each of the two, so that the letters stay the same wherever they work.
#include "qkv/navigation.hpp"

#include <array>
#include <cctype>
#include <optional>

#include "qkv/terminal.hpp"

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

constexpr std::array<binding, 19> bindings{{
    {'\n', action::next, action::next},     {'\r', action::next, action::next},
    {'n', action::next, action::next},      {'l', action::unknown, action::next},
    {' ', action::next, action::pause},     // the presenter's space is next too, unless --auto runs
    {'b', action::back, action::back},      {127, action::unknown, action::back},
    {8, action::unknown, action::back},     {'r', action::redraw, action::redraw},
    {12, action::unknown, action::redraw},  {'h', action::help, action::help},
    {'?', action::help, action::help},      {'q', action::quit, action::quit},
    {4, action::unknown, action::quit},     {3, action::interrupt, action::interrupt},  // Ctrl-C as a byte
    {'t', action::unknown, action::text},   {'j', action::unknown, action::down},
    {'k', action::unknown, action::up},     {'g', action::go, action::go},
}};

// After Esc: ESC [ x or ESC O x, and ESC [ 5 ~ / ESC [ 6 ~ for the page keys.
command escape_sequence(int fd) {
    char a = 0, b = 0;
    if (terminal::wait_byte(fd, 50, a) != terminal::wait_result::byte) return {action::redraw};  // a lone Esc
    if (a != '[' && a != 'O') return {action::unknown};
    if (terminal::wait_byte(fd, 50, b) != terminal::wait_result::byte) return {action::unknown};
    switch (b) {
        case 'A': return {action::up};
        case 'B': return {action::down};
        case 'C': return {action::next};
        case 'D': return {action::back};
        case '5': case '6': {
            char tilde = 0;
            terminal::wait_byte(fd, 50, tilde);
            return {b == '5' ? action::page_up : action::page_down};
        }
        default: return {action::unknown};
    }
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
    if (ch == 27 && keys == key_set::presenter) return escape_sequence(fd);
    for (const binding& b : bindings) {
        if (b.key != ch) continue;
        action a = keys == key_set::stepper ? b.in_stepper : b.in_presenter;
        return {a, a == action::go ? -1 : 0};
    }
    return {action::unknown};
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

}  // namespace qkv
