// Terminal width of UTF-8 text, so tables with 苹果, 🚀 and "apple" in them line up: the East Asian
// Wide and Fullwidth characters and those with emoji presentation take two columns (Unicode 15,
// EastAsianWidth.txt "W"/"F"), combining marks, joiners and variation selectors none. fmt's own
// measure missed 🚀 ⭐ ⚡ 🀄 and counted marks as one, which pushed a row a column out of line.
#include "qkv/display_width.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "qkv/utf8.hpp"

namespace qkv {
namespace {

using range = std::pair<char32_t, char32_t>;

constexpr std::array zero_width{
    range{0x0300, 0x036F}, range{0x0483, 0x0489}, range{0x0591, 0x05BD}, range{0x0610, 0x061A}, range{0x064B, 0x065F},
    range{0x1AB0, 0x1AFF}, range{0x1DC0, 0x1DFF}, range{0x200B, 0x200F}, range{0x20D0, 0x20FF}, range{0xFE00, 0xFE0F},
    range{0xFE20, 0xFE2F}, range{0xE0100, 0xE01EF},
};

constexpr std::array wide{
    range{0x1100, 0x115F},   range{0x231A, 0x231B},   range{0x2329, 0x232A},   range{0x23E9, 0x23EC},
    range{0x23F0, 0x23F0},   range{0x23F3, 0x23F3},   range{0x25FD, 0x25FE},   range{0x2614, 0x2615},
    range{0x2648, 0x2653},   range{0x267F, 0x267F},   range{0x2693, 0x2693},   range{0x26A1, 0x26A1},
    range{0x26AA, 0x26AB},   range{0x26BD, 0x26BE},   range{0x26C4, 0x26C5},   range{0x26CE, 0x26CE},
    range{0x26D4, 0x26D4},   range{0x26EA, 0x26EA},   range{0x26F2, 0x26F3},   range{0x26F5, 0x26F5},
    range{0x26FA, 0x26FA},   range{0x26FD, 0x26FD},   range{0x2705, 0x2705},   range{0x270A, 0x270B},
    range{0x2728, 0x2728},   range{0x274C, 0x274C},   range{0x274E, 0x274E},   range{0x2753, 0x2755},
    range{0x2757, 0x2757},   range{0x2795, 0x2797},   range{0x27B0, 0x27B0},   range{0x27BF, 0x27BF},
    range{0x2B1B, 0x2B1C},   range{0x2B50, 0x2B50},   range{0x2B55, 0x2B55},   range{0x2E80, 0x303E},
    range{0x3041, 0x33FF},   range{0x3400, 0x4DBF},   range{0x4E00, 0x9FFF},   range{0xA000, 0xA4CF},
    range{0xA960, 0xA97F},   range{0xAC00, 0xD7A3},   range{0xF900, 0xFAFF},   range{0xFE10, 0xFE19},
    range{0xFE30, 0xFE6F},   range{0xFF00, 0xFF60},   range{0xFFE0, 0xFFE6},   range{0x1F004, 0x1F004},
    range{0x1F0CF, 0x1F0CF}, range{0x1F18E, 0x1F18E}, range{0x1F191, 0x1F19A}, range{0x1F200, 0x1F202},
    range{0x1F210, 0x1F23B}, range{0x1F240, 0x1F248}, range{0x1F250, 0x1F251}, range{0x1F260, 0x1F265},
    range{0x1F300, 0x1F320}, range{0x1F32D, 0x1F335}, range{0x1F337, 0x1F37C}, range{0x1F37E, 0x1F393},
    range{0x1F3A0, 0x1F3CA}, range{0x1F3CF, 0x1F3D3}, range{0x1F3E0, 0x1F3F0}, range{0x1F3F4, 0x1F3F4},
    range{0x1F3F8, 0x1F43E}, range{0x1F440, 0x1F440}, range{0x1F442, 0x1F4FC}, range{0x1F4FF, 0x1F53D},
    range{0x1F54B, 0x1F54E}, range{0x1F550, 0x1F567}, range{0x1F57A, 0x1F57A}, range{0x1F595, 0x1F596},
    range{0x1F5A4, 0x1F5A4}, range{0x1F5FB, 0x1F64F}, range{0x1F680, 0x1F6C5}, range{0x1F6CC, 0x1F6CC},
    range{0x1F6D0, 0x1F6D2}, range{0x1F6D5, 0x1F6D7}, range{0x1F6DC, 0x1F6DF}, range{0x1F6EB, 0x1F6EC},
    range{0x1F6F4, 0x1F6FC}, range{0x1F7E0, 0x1F7EB}, range{0x1F7F0, 0x1F7F0}, range{0x1F90C, 0x1F93A},
    range{0x1F93C, 0x1F945}, range{0x1F947, 0x1F9FF}, range{0x1FA70, 0x1FAFF}, range{0x20000, 0x2FFFD},
    range{0x30000, 0x3FFFD},
};

template <std::size_t N>
bool in(const std::array<range, N>& table, char32_t c) {
    auto it = std::upper_bound(table.begin(), table.end(), c, [](char32_t x, const range& r) { return x < r.first; });
    return it != table.begin() && c <= std::prev(it)->second;
}

std::size_t width_of(char32_t c) {
    if (c < 0x0300) return 1;  // below both tables: ASCII, Latin, most of a matrix's text
    if (c == 0x200D || in(zero_width, c)) return 0;  // a joiner, a mark, a variation selector
    return in(wide, c) ? 2 : 1;
}

}  // namespace

std::size_t display_width(std::string_view s) {
    std::size_t w = 0;
    for (std::size_t i = 0; i < s.size();) {
        if (static_cast<unsigned char>(s[i]) < 0x80) {  // one byte, one column, no decoding
            ++w, ++i;
            continue;
        }
        const utf8::decoded d = utf8::decode(s, i);
        w += d.ok ? width_of(d.code) : 1;  // a stray byte shows as one replacement character
        i += d.length;
    }
    return w;
}

std::string pad(std::string_view s, std::size_t width, bool align_left) {
    std::size_t w = display_width(s);
    if (w >= width) return std::string(s);
    std::string fill(width - w, ' ');
    return align_left ? std::string(s) + fill : fill + std::string(s);
}

std::string elide(std::string_view s, std::size_t width) {
    if (display_width(s) <= width) return std::string(s);
    std::string out;
    std::size_t used = 0;
    for (std::size_t i = 0; i < s.size();) {
        const utf8::decoded d = utf8::decode(s, i);
        const std::size_t w = d.ok ? width_of(d.code) : 1;
        if (used + w + 1 > width) break;  // room for "…" kept
        out.append(s.substr(i, d.length)), used += w, i += d.length;
    }
    return width ? out + "…" : out;
}

}  // namespace qkv
