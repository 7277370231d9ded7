// Small attention maps side by side (heat_panels.hpp): the heatmap's own cells and legend, laid
// out in rows of panels under their titles.
#include "qkv/heat_panels.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "heatmap.hpp"
#include "qkv/display_width.hpp"
#include "qkv/i18n.hpp"
#include "qkv/styled_text.hpp"

namespace qkv {

namespace {

constexpr std::size_t panel_gap = 2;

// A panel of n > room cells a side cannot be drawn a character a cell (seq 1024 drew lines of 1030
// columns, 49 000 of them): each character then stands for a k × k block, its largest weight, so a
// head that looks one back is still a diagonal and one that looks at the first token still a column.
matrix pooled(const matrix& A, std::size_t k) {
    const std::size_t m = (A.rows + k - 1) / k;
    matrix out(m, m);
    for (std::size_t r = 0; r < A.rows; ++r)
        for (std::size_t c = 0; c < A.cols; ++c) {
            float& cell = out(r / k, c / k);
            const float x = A(r, c);
            if (std::isnan(x) || std::isnan(cell)) cell = NAN;
            else cell = std::max(cell, x);
        }
    return out;
}

}  // namespace

std::vector<std::string> heat_panel_lines(const std::vector<heat_panel>& given, const std::vector<std::string>& all_tokens,
                                          const render_options& o, std::size_t max_rows) {
    std::vector<std::string> out;
    if (given.empty()) return out;
    std::size_t label = 0;
    for (const auto& t : all_tokens) label = std::max(label, display_width(t));
    label = std::min<std::size_t>(label, 12);  // a token label cut to 12 columns: the panel is the point
    const std::size_t room = o.width > label + 1 ? o.width - label - 1 : 1;
    const std::size_t N = all_tokens.size();
    // The layout when a character stands for k × k weights: n cells a side, `cell` characters a
    // cell, `per_row` panels a row of panels, and the lines it all takes (each row of panels its
    // titles, n rows and a blank line; the legend; the note on k).
    struct layout {
        std::size_t n, cell, per_row, lines;
    };
    auto lay_out = [&](std::size_t k) {
        layout l;
        l.n = (N + k - 1) / k;
        auto fitting = [&](std::size_t cell) { return std::max<std::size_t>(1, (room + panel_gap) / (cell * l.n + panel_gap)); };
        // two characters a cell read best; one, when that puts every panel on one row and two do not
        l.cell = room < 2 * l.n || (fitting(2) < given.size() && fitting(1) >= given.size()) ? 1 : 2;
        l.per_row = fitting(l.cell);
        l.lines = (given.size() + l.per_row - 1) / l.per_row * (l.n + 2) + 1 + (k > 1);
        return l;
    };
    std::size_t k = 1;  // weights a character stands for, along each side
    if (N > room) k = (N + room - 1) / room;
    while (max_rows && lay_out(k).lines > max_rows && lay_out(k).n > 1) ++k;
    const layout at = lay_out(k);
    std::vector<heat_panel> panels = given;
    std::vector<std::string> tokens;
    for (std::size_t r = 0; r < N; r += k) tokens.push_back(clip(all_tokens[r], label));
    if (k > 1)
        for (heat_panel& p : panels) p.A = pooled(p.A, k);
    const std::size_t n = tokens.size(), cell = at.cell, per_row = at.per_row;
    for (std::size_t first = 0; first < panels.size(); first += per_row) {
        const std::size_t last = std::min(panels.size(), first + per_row);
        std::string titles(label + 1, ' ');
        for (std::size_t p = first; p < last; ++p) {
            if (p > first) titles.append(panel_gap, ' ');
            titles += pad(clip(panels[p].title, cell * n), cell * n);
        }
        out.push_back(titles);
        for (std::size_t r = 0; r < n; ++r) {
            std::string line = pad(tokens[r], label);
            line += ' ';
            for (std::size_t p = first; p < last; ++p) {
                if (p > first) line.append(panel_gap, ' ');
                for (std::size_t c = 0; c < n; ++c)
                    line += detail::heat_cell(detail::heat_level(panels[p].A, r, c, detail::heat_scale::fixed), cell, o);
            }
            out.push_back(std::move(line));
        }
        out.emplace_back();
    }
    bool non_finite = false;
    for (const auto& p : panels) non_finite = non_finite || detail::has_non_finite(p.A);
    std::string legend(label + 1, ' ');
    for (const auto& piece : detail::heat_legend(detail::heat_scale::fixed, non_finite, o)) legend += fmt::format("{}  ", piece);
    out.push_back(legend);
    if (k > 1)
        out.push_back(std::string(label + 1, ' ') +
                      fmt::format(fmt::runtime(tr(o.language, "each cell the largest of {0} × {0} weights; a row is labelled by its first token")), k));
    return out;
}

}  // namespace qkv
