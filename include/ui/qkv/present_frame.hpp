// One screen of --present: a progress bar, a large title, the formula, then the values (tables,
// heatmaps) centred and packed side by side when the screen is wide, and the explanation under
// them; the keys and the state on the bottom line. Pure layout: the loop is in presenter.hpp.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "qkv/render.hpp"
#include "qkv/trace.hpp"

namespace qkv {

// What the frame shows besides the stage: where the body is scrolled to, whether the text is
// on, and the status line at the bottom.
struct frame_state {
    std::size_t scroll = 0;   // body lines skipped at the top
    bool text = true;         // show the stage's explanation under the values
    bool help = false;        // show the keys instead of the body
    std::string status;       // right half of the bottom line ("auto 5s", "paused", ...)
    std::size_t body_lines = 0;  // out: how many body lines there are (for scrolling)
};

// One screen for stage `stage` of t, `cols` × `rows`: exactly `rows` lines, none wider than
// `cols` columns (ANSI styles do not count).
std::vector<std::string> present_frame(const trace& t, std::size_t stage, const render_options& o,
                                       std::size_t cols, std::size_t rows, frame_state& st);

}  // namespace qkv
