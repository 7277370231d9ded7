// The chart of a loss over training steps: eighth blocks in a few terminal rows (each column a
// step, or the mean of a few when there are more steps than columns), an SVG polyline in html.
#include "qkv/plot.hpp"

#include "qkv/display_width.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "qkv/i18n.hpp"
#include "render_cells.hpp"

namespace qkv {
namespace {

constexpr std::size_t chart_rows = 4;  // 4 rows of 8 levels: 32 heights, enough to see a curve

// What the chart is drawn between: the top is the largest value, the bottom 0 (a loss never goes
// below it, so bars from 0 show how much of it is left) or the smallest when that is below 0.
struct range {
    float base, top;
    float height(float x) const { return top > base ? (x - base) / (top - base) : 0.0f; }  // 0 … 1
};

range range_of(const matrix& m) {
    const auto [lo, hi] = std::minmax_element(m.data.begin(), m.data.end());
    return {std::min(0.0f, *lo), *hi};
}

// The column squeezed to at most `width` entries, each the mean of the steps it stands for.
std::vector<float> columns(const matrix& m, std::size_t width) {
    const std::size_t k = m.rows, w = std::max<std::size_t>(1, std::min(k, width));
    std::vector<float> out(w);
    for (std::size_t c = 0; c < w; ++c) {
        const std::size_t from = c * k / w, to = (c + 1) * k / w;
        double sum = 0;
        for (std::size_t i = from; i < to; ++i) sum += m(i, 0);
        out[c] = static_cast<float>(sum / double(to - from));
    }
    return out;
}

}  // namespace

bool plotted(std::string_view name, const value& v) {
    return name == "loss" && v.is_matrix() && v.mat().cols == 1 && v.mat().rows >= 2 && v.all_finite();
}

std::vector<std::string> plot_text(const value& v, const render_options& o) {
    static constexpr std::array<std::string_view, 9> eighths{" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
    const matrix& m = v.mat();
    const range r = range_of(m);
    const std::string top = detail::format_number(r.top, o.precision), base = detail::format_number(r.base, o.precision);
    const std::size_t label = std::max(top.size(), base.size());
    // the axis line ends with " steps" after the last step's number, under the last bar and past it
    const std::string unit(tr(o.language, "steps"));
    const std::size_t room = label + 3 + 1 + display_width(unit);
    const std::vector<float> cols = columns(m, o.width > room ? o.width - room : 1);
    std::vector<std::string> out{""};  // a blank line between the table and the chart
    for (std::size_t row = 0; row < chart_rows; ++row) {
        const std::string& tag = row == 0 ? top : row + 1 == chart_rows ? base : std::string();
        std::string line = std::string(label - tag.size(), ' ') + tag + " │";
        const int below = static_cast<int>((chart_rows - 1 - row) * 8);  // eighths under this row
        for (float x : cols) {
            const int h = static_cast<int>(std::lround(r.height(x) * chart_rows * 8));
            line += eighths[static_cast<std::size_t>(std::clamp(h - below, 0, 8))];
        }
        out.push_back(std::move(line));
    }
    // under the chart: the first step under the first bar, the last under the last bar
    const std::string k = std::to_string(m.rows);
    const std::size_t last_bar = label + 2 + cols.size() - 1;
    std::string axis = std::string(label + 2, ' ') + "1";
    axis += last_bar + 1 >= axis.size() + 1 + k.size() ? std::string(last_bar + 1 - k.size() - axis.size(), ' ') : " ";
    out.push_back(axis + k + " " + unit);
    return out;
}

std::string plot_svg(const value& v, const render_options& o) {
    constexpr double w = 360, h = 90, left = 56, pad = 6;  // the drawing's own units
    const matrix& m = v.mat();
    const range r = range_of(m);
    std::string points;
    for (std::size_t i = 0; i < m.rows; ++i) {
        const double x = left + (w - left - pad) * double(i) / double(m.rows - 1);
        const double y = pad + (h - 2 * pad) * (1.0 - r.height(m(i, 0)));
        points += fmt::format("{}{:.1f},{:.1f}", i ? " " : "", x, y);
    }
    return fmt::format(
        "<svg class=\"plot\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" role=\"img\" aria-label=\"{2}\">\n"
        "<line x1=\"{3}\" y1=\"{4}\" x2=\"{3}\" y2=\"{5}\" stroke=\"#d2d2d7\"/>"
        "<line x1=\"{3}\" y1=\"{5}\" x2=\"{6}\" y2=\"{5}\" stroke=\"#d2d2d7\"/>\n"
        "<text x=\"{7}\" y=\"{8}\" text-anchor=\"end\" font-size=\"11\" fill=\"#6e6e73\">{9}</text>"
        "<text x=\"{7}\" y=\"{5}\" text-anchor=\"end\" font-size=\"11\" fill=\"#6e6e73\">{10}</text>\n"
        "<text x=\"{3}\" y=\"{12}\" font-size=\"11\" fill=\"#6e6e73\">1</text>"
        "<text x=\"{6}\" y=\"{12}\" text-anchor=\"end\" font-size=\"11\" fill=\"#6e6e73\">{13}</text>\n"
        "<polyline fill=\"none\" stroke=\"#21918c\" stroke-width=\"2\" points=\"{11}\"/>\n</svg>\n",
        w, h + 14, fmt::format("{} 1 … {}", tr(o.language, "steps"), m.rows), left - 2, pad, h - pad, w - pad,
        left - 6, pad + 8, detail::format_number(r.top, o.precision), detail::format_number(r.base, o.precision), points,
        h + 8, fmt::format("{} {}", m.rows, tr(o.language, "steps")));
}

}  // namespace qkv
