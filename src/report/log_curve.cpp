// Curves over steps on a log y axis (log_curve.hpp): the steps squeezed into columns by their mean,
// each column's value placed by its logarithm, the guide drawn first so the curves lie on top.
#include "qkv/log_curve.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "qkv/display_width.hpp"
#include "qkv/i18n.hpp"

namespace qkv {

namespace {

bool plottable(double v) { return std::isfinite(v) && v > 0; }

// The mean of the usable values in steps [from, to), or NaN when there are none.
double mean_of(const std::vector<double>& y, std::size_t from, std::size_t to) {
    double sum = 0;
    std::size_t count = 0;
    for (std::size_t i = from; i < to && i < y.size(); ++i)
        if (plottable(y[i])) sum += y[i], ++count;
    return count ? sum / double(count) : NAN;
}

std::string level_text(double v) { return fmt::format("{:.3g}", v); }

}  // namespace

std::vector<std::string> log_curve_lines(const std::vector<curve_series>& series, const std::optional<curve_guide>& guide,
                                         const render_options& o, std::size_t height) {
    std::size_t steps = 0;
    double lo = INFINITY, hi = 0;
    for (const auto& s : series) {
        steps = std::max(steps, s.y.size());
        for (double v : s.y)
            if (plottable(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    }
    if (steps == 0 || !(hi > 0)) return {};
    if (guide && plottable(guide->y)) lo = std::min(lo, guide->y), hi = std::max(hi, guide->y);
    const double llo = std::log(lo), lhi = std::log(hi) > llo ? std::log(hi) : llo + 1;
    const std::string top = level_text(hi), base = level_text(lo);
    const std::size_t label = std::max({top.size(), base.size(), guide ? display_width(guide->name) : 0});
    const std::string unit(tr(o.language, "steps"));
    const std::size_t room = label + 3 + 1 + display_width(unit) + std::to_string(steps).size();
    const std::size_t cols = std::max<std::size_t>(2, std::min(steps, o.width > room ? o.width - room : 2));
    auto row_of = [&](double v) {
        return height - 1 - static_cast<std::size_t>(std::lround((std::log(v) - llo) / (lhi - llo) * double(height - 1)));
    };
    // one mark per cell: index 0 is blank, 1 the guide, 2 + i series i
    std::vector<std::vector<std::size_t>> grid(height, std::vector<std::size_t>(cols, 0));
    if (guide && plottable(guide->y))
        for (auto& cell : grid[row_of(guide->y)]) cell = 1;
    for (std::size_t i = 0; i < series.size(); ++i)
        for (std::size_t c = 0; c < cols; ++c) {
            const double v = mean_of(series[i].y, c * steps / cols, (c + 1) * steps / cols);
            if (plottable(v)) grid[row_of(v)][c] = 2 + i;
        }
    std::vector<std::string> out;
    for (std::size_t r = 0; r < height; ++r) {
        std::string_view tag = r == 0 ? std::string_view(top) : r + 1 == height ? std::string_view(base) : std::string_view();
        if (guide && plottable(guide->y) && r == row_of(guide->y) && tag.empty()) tag = guide->name;
        std::string line = fmt::format("{} │", pad(tag, label, false));
        for (std::size_t cell : grid[r]) line += cell == 0 ? std::string_view(" ") : cell == 1 ? std::string_view("-") : std::string_view(series[cell - 2].mark);
        out.push_back(std::move(line));
    }
    const std::string k = std::to_string(steps);
    std::string axis(label + 2, ' ');
    axis += '1';
    axis.append(label + 2 + cols > axis.size() + k.size() ? label + 2 + cols - axis.size() - k.size() : 1, ' ');
    out.push_back(fmt::format("{}{} {}", axis, k, unit));
    std::string legend(label + 2, ' ');
    for (const auto& s : series) legend += fmt::format("{} {}   ", s.mark, s.name);
    if (guide) legend += fmt::format("- {}", guide->name);
    out.push_back(legend);
    return out;
}

}  // namespace qkv
