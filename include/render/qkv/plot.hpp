// A column of numbers over steps (a training run's loss, one entry per step) drawn as a small
// chart: block characters in the terminal, an SVG polyline in html. Reads the value; computes
// nothing but where to draw.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "qkv/render.hpp"
#include "qkv/value.hpp"

namespace qkv {

// Whether a value is drawn as a chart under its table: a column [k, 1] of k >= 2 finite numbers
// named `loss` (what train_head returns, by the name the lessons give it).
bool plotted(std::string_view name, const value& v);

// The chart in lines of block characters, at most o.width wide: the largest value labelled at
// the top, the baseline (0, or the smallest when below 0) at the bottom, the steps under it.
std::vector<std::string> plot_text(const value& v, const render_options& o);

// The same chart as an inline <svg> polyline with the same labels.
std::string plot_svg(const value& v, const render_options& o);

}  // namespace qkv
