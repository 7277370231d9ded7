// Where an input error happened and what it is, as the one line main prints.
#include "qkv/error.hpp"

#include "qkv/control_text.hpp"
#include "qkv/utf8.hpp"

#include <string_view>

#include <fmt/format.h>

namespace qkv {

std::string source_loc::str() const {
    if (file.empty()) return {};
    std::string out = file;
    if (line > 0) {
        out += ':' + std::to_string(line);
        if (column > 0) out += ':' + std::to_string(column);
    }
    return out;
}

namespace {

// What the user gave may be a megabyte (an identifier, a formula, a line of a binary file); one
// line on a terminal should stay readable. A word over 160 bytes keeps its first 120; a message
// over 2000 bytes keeps its start (the place) and its end (the problem).
std::string clipped(const std::string& s) {
    constexpr std::size_t long_word = 160, word_kept = 120, long_line = 2000, start_kept = 1200, end_kept = 600;
    std::string out;
    for (std::size_t i = 0; i < s.size();) {
        std::size_t end = s.find(' ', i);
        if (end == std::string::npos) end = s.size();
        std::string_view word(s.data() + i, end - i);
        const bool colon = word.ends_with(':');  // "PATH:" clipped stays a place followed by its problem
        if (word.size() > long_word) out += fmt::format("{}…({} bytes){}", utf8::head(word, word_kept), word.size(), colon ? ":" : "");
        else out += word;
        if (end < s.size()) out += ' ';
        i = end + 1;
    }
    if (out.size() <= long_line) return out;
    const std::size_t from = utf8::boundary_from(out, out.size() - end_kept);
    return fmt::format("{} … {}", utf8::head(out, start_kept), out.substr(from));
}

// Messages quote what the user gave, which may be binary: a control byte would cut what() short
// (NUL), break the one line (newline) or drive the terminal (ESC), and a bidi control would turn
// the line around, so each is written out (\x1b, \u202e) as the renderers write them.
std::string printable(const std::string& s) { return clipped(escape_controls(s)); }

// "LOC: message", or just the message when we do not know the file.
std::string with_location(const source_loc& where, const std::string& message) {
    std::string loc = where.str();
    return loc.empty() ? message : loc + ": " + message;
}

}  // namespace

input_error::input_error(const source_loc& where, const std::string& message)
    : std::runtime_error(printable(with_location(where, message))), where_(where), message_(printable(message)),
      said_(sentence::plain(message)) {}

input_error::input_error(const std::string& message)
    : std::runtime_error(printable(message)), message_(printable(message)), said_(sentence::plain(message)) {}

input_error::input_error(const source_loc& where, const sentence& message) : input_error(where, message.in(lang::en)) {
    said_ = message;
}

input_error::input_error(const sentence& message) : input_error(message.in(lang::en)) { said_ = message; }

std::string input_error::in(lang l) const { return l == lang::en ? what() : printable(with_location(where_, said_.in(l))); }

}  // namespace qkv
