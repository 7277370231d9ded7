// Time against size on log–log axes, in the terminal: a straight line of slope k is growth like
// n^k, so the quadratic cost of attention shows as a slope of 2 (drawn beside the measured
// series for comparison). Used by `qkv bench` (time per forward pass against n, time per token
// against position); computes nothing but where to draw.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "qkv/i18n.hpp"

namespace qkv {

struct loglog_series {
    std::string name;
    char mark = '*';
    std::vector<double> x, y;  // positive, the same length
    std::optional<double> slope;  // the fitted exponent, shown in the legend
};

// The chart, at most `width` columns wide and `height` rows tall, with the y range labelled at
// the left, the x range under it, and a legend; a dotted line of slope 2 through the first
// series' first point. Points that are not positive and finite are left out; fewer than two
// distinct x give no chart (an empty list).
std::vector<std::string> loglog_lines(const std::vector<loglog_series>& series, const std::string& x_label,
                                      const std::string& y_label, lang l, std::size_t width, std::size_t height = 12);

}  // namespace qkv
