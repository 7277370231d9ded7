// Log–log charts for `qkv bench` (loglog.hpp): a grid of characters, each point placed by the
// logarithm of x and y, the segments between a series' points filled in, a slope-2 guide.
#include "qkv/loglog.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "qkv/display_width.hpp"

namespace qkv {
namespace {

struct axis {
    double lo, hi;  // log10 of the smallest and largest value
    // The cell (0 … cells - 1) of a value on this axis.
    long cell(double v, std::size_t cells) const {
        double t = hi > lo ? (std::log10(v) - lo) / (hi - lo) : 0.5;
        return std::lround(t * double(cells - 1));
    }
};

bool usable(double v) { return std::isfinite(v) && v > 0; }

// "12.3 ms", "1.2 s", "450 µs": a time in seconds as a person reads it.
std::string seconds_text(double s) {
    if (s >= 1) return fmt::format("{:.3g} s", s);
    if (s >= 1e-3) return fmt::format("{:.3g} ms", s * 1e3);
    return fmt::format("{:.3g} µs", s * 1e6);
}

// "u without cache (slope 1.98)   c with cache (slope 1.02)   . slope 2": each series' mark and slope.
std::string legend(const std::vector<loglog_series>& series, lang l) {
    std::string out;
    for (const auto& s : series)
        out += fmt::format("{}{} {}{}", out.empty() ? "" : "   ", s.mark, s.name,
                           s.slope ? fmt::format(fmt::runtime(tr(l, " (slope {:.2f})")), *s.slope) : "");
    return out + tr(l, "   . slope 2");
}

}  // namespace

std::vector<std::string> loglog_lines(const std::vector<loglog_series>& series, const std::string& x_label,
                                      const std::string& y_label, lang l, std::size_t width, std::size_t height) {
    double x_lo = INFINITY, x_hi = 0, y_lo = INFINITY, y_hi = 0;
    for (const auto& s : series)
        for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
            if (usable(s.x[i]) && usable(s.y[i]))
                x_lo = std::min(x_lo, s.x[i]), x_hi = std::max(x_hi, s.x[i]), y_lo = std::min(y_lo, s.y[i]), y_hi = std::max(y_hi, s.y[i]);
    if (!(x_hi > x_lo)) return {};
    const std::string top = seconds_text(y_hi), bottom = seconds_text(y_lo);
    const std::size_t label = std::max(display_width(top), display_width(bottom));  // "µs": 2 bytes, 1 column
    const std::string log_word = tr(l, "log scale");
    // the x axis's line is the widest: "  64 … 128  n (log scale)" after the labels' column
    const std::size_t x_tail = 2 + display_width(x_label) + 2 + display_width(log_word) + 1, used = label + 2 + x_tail;
    const std::size_t cols = std::max<std::size_t>(10, std::min<std::size_t>(width > used + 10 ? width - used : 10, 60));
    height = std::max<std::size_t>(height, 4);
    axis ax{std::log10(x_lo), std::log10(x_hi)}, ay{std::log10(y_lo), std::log10(y_hi)};
    std::vector<std::string> grid(height, std::string(cols, ' '));
    auto put = [&](double x, double y, char c, bool over) {
        if (!usable(x) || !usable(y) || y < y_lo * 0.999 || y > y_hi * 1.001) return;
        long cx = ax.cell(x, cols), cy = static_cast<long>(height - 1) - ay.cell(y, height);
        if (cx < 0 || cy < 0 || cx >= long(cols) || cy >= long(height)) return;
        char& cell = grid[std::size_t(cy)][std::size_t(cx)];
        if (over || cell == ' ') cell = c;
    };
    // the guide: slope 2 through the first point, then the series' segments, then their points
    if (!series.empty() && !series.front().x.empty())
        for (std::size_t c = 0; c < cols; ++c) {
            double x = std::pow(10.0, ax.lo + (ax.hi - ax.lo) * double(c) / double(cols - 1));
            put(x, series.front().y.front() * std::pow(x / series.front().x.front(), 2.0), '.', false);
        }
    for (const auto& s : series)
        for (std::size_t i = 0; i + 1 < s.x.size() && i + 1 < s.y.size(); ++i)
            for (std::size_t k = 1; k < 2 * cols; ++k) {  // geometric steps between two points: straight on log axes
                double t = double(k) / double(2 * cols);
                put(s.x[i] * std::pow(s.x[i + 1] / s.x[i], t), s.y[i] * std::pow(s.y[i + 1] / s.y[i], t), '-', false);
            }
    for (const auto& s : series)
        for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) put(s.x[i], s.y[i], s.mark, true);
    std::vector<std::string> out{fmt::format("{}  ({})", y_label, log_word)};
    for (std::size_t r = 0; r < height; ++r) {
        const std::string& tag = r == 0 ? top : r + 1 == height ? bottom : std::string();
        out.push_back(std::string(label - display_width(tag), ' ') + tag + " │" + grid[r]);
    }
    out.push_back(std::string(label + 1, ' ') + "└" + std::string(cols, '-'));
    std::string lo = fmt::format("{:g}", x_lo), hi = fmt::format("{:g}", x_hi);
    std::size_t gap = cols > lo.size() + hi.size() ? cols - lo.size() - hi.size() : 1;
    out.push_back(std::string(label + 2, ' ') + lo + std::string(gap, ' ') + hi + "  " + x_label + " (" + log_word + ")");
    out.push_back(std::string(label + 2, ' ') + legend(series, l));
    return out;
}

}  // namespace qkv
