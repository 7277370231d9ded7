// Lesson text as paragraphs: authors break lines at ~100 columns and separate paragraphs by a
// blank line; a page or a wrapped screen wants each paragraph as one line again.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "qkv/display_width.hpp"
#include "qkv/token_span.hpp"
#include "qkv/trim.hpp"
#include "qkv/utf8.hpp"

namespace qkv::detail {

// Chinese punctuation carries its own space: "乘 V。FlashAttention" has none after the "。".
inline bool full_width_mark(std::string_view ch) {
    for (std::string_view m : {"，", "。", "、", "；", "：", "！", "？", "（", "）", "“", "”", "「", "」"})
        if (ch == m) return true;
    return false;
}

// A token set off in the text (token_span.hpp) joins as its own first and last characters do.
inline std::string_view last_shown(std::string_view s) {
    std::size_t i = s.size();
    while (i > 0) {
        i = utf8::start_of(s, i - 1);
        if (!token_mark(utf8::decode(s, i).code)) return s.substr(i, utf8::next(s, i) - i);
    }
    return {};
}
inline std::string_view first_shown(std::string_view s) {
    for (std::size_t i = 0; i < s.size(); i = utf8::next(s, i))
        if (!token_mark(utf8::decode(s, i).code)) return s.substr(i, utf8::next(s, i) - i);
    return {};
}

// Whether two lines join with a space between `last` (the first one's last character) and `first`.
// Curly quotes serve both languages: against Chinese they carry their own space ("爱“北京”"), against
// latin text they do not ("attends most to “苹果”"); nothing follows an opening one or precedes a
// closing one.
inline bool space_between(std::string_view last, std::string_view first) {
    const bool wide_end = display_width(last) == 2, wide_start = display_width(first) == 2;
    if (last == "“" || first == "”") return false;
    if (last == "”") return !(wide_start || full_width_mark(first));
    if (first == "“") return !(wide_end || full_width_mark(last));
    return !(wide_end && wide_start) && !full_width_mark(last) && !full_width_mark(first);
}

inline std::string join_lines(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& l : lines) {
        if (!out.empty() && !l.empty() && space_between(last_shown(out), first_shown(l))) out += ' ';
        out += l;
    }
    return out;
}

// The paragraphs of a text, each on one line, trimmed.
inline std::vector<std::string> paragraphs(std::string_view text) {
    std::vector<std::string> out;
    std::vector<std::string> lines;
    auto flush = [&] {
        if (!lines.empty()) out.push_back(join_lines(lines));
        lines.clear();
    };
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        std::string_view l = trim(text.substr(start, end - start));
        if (l.empty()) flush();
        else lines.emplace_back(l);
        start = end + 1;
    }
    flush();
    return out;
}

}  // namespace qkv::detail
