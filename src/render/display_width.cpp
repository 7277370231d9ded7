// Terminal width of UTF-8 text, so tables with 苹果 and "apple" in them line up. fmt already
// knows the East Asian Wide and Fullwidth ranges (it pads "{:<8}" by them), so we ask it.
#include "qkv/display_width.hpp"

#include <fmt/format.h>

namespace qkv {

std::size_t display_width(std::string_view utf8) {
    // fmt 9 exposes its measure only in detail; it counts wide code points as 2, others as 1.
    return fmt::detail::compute_width(fmt::string_view(utf8.data(), utf8.size()));
}

std::string pad(std::string_view s, std::size_t width, bool align_left) {
    std::size_t w = display_width(s);
    if (w >= width) return std::string(s);
    std::string fill(width - w, ' ');
    return align_left ? std::string(s) + fill : fill + std::string(s);
}

}  // namespace qkv
