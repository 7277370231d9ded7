// The columns a line takes on a terminal, counted here without qkv's text layer (display_width),
// so that tests of width hold it to something independent: two for East Asian wide characters (the
// CJK blocks, Hangul, fullwidth forms and punctuation such as “，” and “。”) and for the emoji of the
// pictographic planes and ⭐ ⚡ (emoji presentation), one for any other code point.
#pragma once

#include <cstddef>
#include <string>

namespace qkv::test {

inline std::size_t columns(const std::string& line) {
    std::size_t w = 0;
    for (std::size_t i = 0; i < line.size();) {
        const unsigned char b = static_cast<unsigned char>(line[i]);
        const std::size_t len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
        char32_t c = len == 1 ? b : b & (0xFF >> (len + 1));
        for (std::size_t k = 1; k < len && i + k < line.size(); ++k) c = (c << 6) | (static_cast<unsigned char>(line[i + k]) & 0x3F);
        const bool wide = (c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0xA4CF) || (c >= 0xAC00 && c <= 0xD7A3) ||
                          (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFF60) ||
                          (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x1F000 && c <= 0x1FAFF) || c == 0x2B50 || c == 0x26A1;
        w += wide ? 2 : 1;
        i += len;
    }
    return w;
}

}  // namespace qkv::test
