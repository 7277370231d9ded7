// --present: the classroom view. Full screen, one stage per screen: a progress bar, a large
// title, the formula, then the values (tables, heatmaps) centred and packed side by side when the
// screen is wide. The keys of --step work; --auto advances by itself (space pauses).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "qkv/render.hpp"
#include "qkv/trace.hpp"

namespace qkv {

struct presenter_options {
    double auto_seconds = 0;  // > 0: advance by itself after this long on a stage
    int in_fd = 0;
    int out_fd = 1;
};

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

// Run the presenter on every stage of every trace, from stage `start` (from 0). On a terminal the
// screen is taken over and given back on every way out; with input from a pipe the same letters
// are read a line at a time. Returns the exit status: 0 on q or end of input, 130 on Ctrl-C.
int run_presenter(const std::vector<trace>& traces, const render_options& o, const presenter_options& p,
                  std::size_t start = 0);

}  // namespace qkv
