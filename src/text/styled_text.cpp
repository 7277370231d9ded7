// Text that may carry ANSI styles, measured and cut by what shows on the screen. Only CSI
// sequences (ESC [ … final byte) are written by fmt's styles; a lone ESC x is taken as two bytes.
#include "qkv/styled_text.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "qkv/display_width.hpp"
#include "qkv/utf8.hpp"

namespace qkv {
namespace {

// Length of the escape sequence at s[i] (s[i] == ESC): CSI runs up to its final byte.
std::size_t escape_length(std::string_view s, std::size_t i) {
    if (i + 1 >= s.size() || s[i + 1] != '[') return std::min<std::size_t>(2, s.size() - i);
    std::size_t j = i + 2;
    while (j < s.size() && !(s[j] >= 0x40 && s[j] <= 0x7E)) ++j;
    return std::min(j + 1, s.size()) - i;
}

}  // namespace

std::string styled(std::string_view s, fmt::text_style st, bool color) {
    return color ? fmt::format(st, "{}", s) : std::string(s);
}

std::string plain(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size();) {
        if (s[i] == '\x1b') i += escape_length(s, i);
        else out += s[i++];
    }
    return out;
}

std::string style_on(fmt::text_style st) {
    const std::string marked = styled("\x01", st, true);
    return marked.substr(0, marked.find('\x01'));
}

std::string without_style(std::string_view s, fmt::text_style st) {
    const std::string on = style_on(st);
    std::string out(s);
    if (on.empty()) return out;
    for (std::size_t at = out.find(on); at != std::string::npos; at = out.find(on, at)) out.erase(at, on.size());
    return out;
}

std::size_t visible_width(std::string_view s) { return display_width(plain(s)); }

std::string clip(std::string_view s, std::size_t w) {
    if (visible_width(s) <= w) return std::string(s);
    std::string out;
    std::size_t used = 0;
    for (std::size_t i = 0; i < s.size();) {
        if (s[i] == '\x1b') {
            std::size_t n = escape_length(s, i);
            out += s.substr(i, n), i += n;
            continue;
        }
        const std::size_t n = utf8::next(s, i) - i;
        std::size_t cw = display_width(s.substr(i, n));
        if (used + cw + 1 > w) break;
        out += s.substr(i, n), used += cw, i += n;
    }
    // the reset ends a style the cut left open; plain text (no colour, a pipe) gets none
    return out + (s.find('\x1b') == std::string_view::npos ? "…" : "…\x1b[0m");
}

std::string pad_to(std::string_view s, std::size_t w) {
    std::size_t v = visible_width(s);
    return std::string(s) + std::string(w > v ? w - v : 0, ' ');
}

std::string centred(std::string_view s, std::size_t cols) {
    std::size_t v = visible_width(s);
    return std::string(cols > v ? (cols - v) / 2 : 0, ' ') + clip(s, cols);
}

std::vector<std::string> split_lines(std::string_view s) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start < s.size()) {
        std::size_t end = s.find('\n', start);
        if (end == std::string_view::npos) end = s.size();
        out.emplace_back(s.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

}  // namespace qkv
