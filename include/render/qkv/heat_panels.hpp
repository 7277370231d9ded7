// Attention maps small and side by side, a cell of one or two characters per weight, so that a
// whole layer's heads fit one screen and the stripes of a trained head show at a glance (the
// tables of render_text elide the middle columns of a wide matrix, and the stripe with them).
// Used by `qkv train` for its checkpoints and its live view; computes nothing but where to draw.
#pragma once

#include <string>
#include <vector>

#include "qkv/matrix.hpp"
#include "qkv/render.hpp"

namespace qkv {

struct heat_panel {
    std::string title;  // one line over the panel ("1.2  previous 0.72"), cut to its width
    matrix A;           // [n, n] weights on 0–1: 0 is empty, 1 full
};

// The panels in rows, as many as fit o.width, each n cells wide: two characters a cell, or one
// when that puts every panel on one row (or when not even one panel fits with two); `tokens` down
// the left of each row of panels, then the legend. Every panel must be [n, n], n = tokens.size().
// Where n cells would be wider than o.width, or the lines more than `max_rows` (0: no limit), a
// character stands for a k × k block of weights, its largest, with the smallest k that fits.
std::vector<std::string> heat_panel_lines(const std::vector<heat_panel>& panels, const std::vector<std::string>& tokens,
                                          const render_options& o, std::size_t max_rows = 0);

}  // namespace qkv
