// Curves over training steps on a logarithmic y axis, in the terminal: a loss that falls from 3
// to 0.3 shows its plateau and its drop at the same scale. Used by `qkv train` (the loss of the
// whole sequence and of the repeated copy, with ln(vocab) as a guide); computes nothing but where
// to draw.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "qkv/render.hpp"

namespace qkv {

struct curve_series {
    std::string name;
    std::string mark;        // one character: "·", "*"
    std::vector<double> y;   // one value per step, from step 1
};

struct curve_guide {
    std::string name;  // "ln 24"
    double y;          // a level drawn across as "-"
};

// The chart at most o.width wide and `height` rows tall: each column the mean of the steps it
// stands for, the y range labelled at the left (and the guide's level), the steps under it, and a
// legend. Values that are not positive and finite are left out; nothing to draw gives no lines.
std::vector<std::string> log_curve_lines(const std::vector<curve_series>& series, const std::optional<curve_guide>& guide,
                                         const render_options& o, std::size_t height = 12);

}  // namespace qkv
