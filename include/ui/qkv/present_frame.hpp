// One screen of --present: a progress bar, a large title, the formula, then the values (tables,
// heatmaps) centred and packed side by side when the screen is wide, and the explanation under
// them, in the frame of screen_frame.hpp. Pure layout: the loop is in presenter.hpp.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "qkv/render.hpp"
#include "qkv/screen_frame.hpp"
#include "qkv/trace.hpp"

namespace qkv {

// One screen for stage `stage` of t, `cols` × `rows`: exactly `rows` lines, none wider than
// `cols` columns (ANSI styles do not count).
std::vector<std::string> present_frame(const trace& t, std::size_t stage, const render_options& o,
                                       std::size_t cols, std::size_t rows, frame_state& st);

}  // namespace qkv
