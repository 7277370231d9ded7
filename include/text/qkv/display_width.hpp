// How many terminal columns a string takes: CJK characters and emoji take two, combining marks
// and joiners none. The one measure every renderer pads and wraps with, so that 苹果 and 🚀 line
// up under "apple".
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace qkv {

std::size_t display_width(std::string_view utf8);

// s padded with spaces to `width` columns, on the right (align_left) or on the left.
std::string pad(std::string_view s, std::size_t width, bool align_left = true);

// s cut to at most `width` columns, ending in "…" when cut (never inside a character): a
// 300-character token as a table's label, which would push every row off the screen.
std::string elide(std::string_view s, std::size_t width);

}  // namespace qkv
