// Lesson text as paragraphs: authors break lines at ~100 columns and separate paragraphs by a
// blank line; a page or a wrapped screen wants each paragraph as one line again.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "qkv/display_width.hpp"

namespace qkv::detail {

inline std::size_t utf8_length(unsigned char lead) {
    if (lead < 0x80) return 1;
    if ((lead >> 5) == 0x6) return 2;
    if ((lead >> 4) == 0xE) return 3;
    if ((lead >> 3) == 0x1E) return 4;
    return 1;
}

// Chinese punctuation carries its own space: "乘 V。FlashAttention" has none after the "。".
inline bool full_width_mark(std::string_view ch) {
    for (std::string_view m : {"，", "。", "、", "；", "：", "！", "？", "（", "）", "“", "”", "「", "」"})
        if (ch == m) return true;
    return false;
}

// Joined again, a line break between two CJK characters is no space at all (Chinese has none),
// nor one next to Chinese punctuation.
inline std::string join_lines(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& l : lines) {
        if (!out.empty() && !l.empty()) {
            std::size_t last = out.size() - 1;
            while (last > 0 && (static_cast<unsigned char>(out[last]) & 0xC0) == 0x80) --last;
            bool wide_end = display_width(std::string_view(out).substr(last)) == 2;
            std::string_view first = std::string_view(l).substr(0, utf8_length(static_cast<unsigned char>(l[0])));
            bool wide_start = display_width(first) == 2;
            if (!(wide_end && wide_start) && !full_width_mark(std::string_view(out).substr(last)) && !full_width_mark(first))
                out += ' ';
        }
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
        std::string_view l = text.substr(start, end - start);
        std::size_t a = l.find_first_not_of(" \t\r");
        if (a == std::string_view::npos) flush();
        else lines.emplace_back(l.substr(a, l.find_last_not_of(" \t\r") + 1 - a));
        start = end + 1;
    }
    flush();
    return out;
}

}  // namespace qkv::detail
