// Text that may carry ANSI styles, measured and cut by what shows on the screen: the text renderer
// styles its lines, and the presenter packs, pads and centres them without counting an escape code
// as a column.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/color.h>

namespace qkv {

// s in style st when colour is on; with colour off not one escape code may reach the output.
std::string styled(std::string_view s, fmt::text_style st, bool color);

// s without its escape codes.
std::string plain(std::string_view s);

// The escape code styled() writes to turn style st on ("\x1b[2m" for faint).
std::string style_on(fmt::text_style st);

// s with style st taken off wherever styled() turned it on (the resets after it stay, and do
// nothing more): the presenter's token labels at full weight where the text renderer dims them.
std::string without_style(std::string_view s, fmt::text_style st);

// The columns s takes on a terminal: CJK characters two, escape codes none.
std::size_t visible_width(std::string_view s);

// s cut to at most w visible columns, styles kept; a cut line ends with "…" and a style reset.
std::string clip(std::string_view s, std::size_t w);

// s with spaces after it up to w visible columns.
std::string pad_to(std::string_view s, std::size_t w);

// s in the middle of `cols` columns (spaces before it only), cut to fit.
std::string centred(std::string_view s, std::size_t cols);

// The lines of s without their line ends; a last line end starts no empty line.
std::vector<std::string> split_lines(std::string_view s);

}  // namespace qkv
