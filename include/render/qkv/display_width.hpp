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

}  // namespace qkv
