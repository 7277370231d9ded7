// Small attention maps side by side (heat_panels.hpp): the heatmap's own cells and legend, laid
// out in rows of panels under their titles.
#include "qkv/heat_panels.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "heatmap.hpp"
#include "qkv/display_width.hpp"
#include "qkv/styled_text.hpp"

namespace qkv {

namespace {

constexpr std::size_t panel_gap = 2;

}  // namespace

std::vector<std::string> heat_panel_lines(const std::vector<heat_panel>& panels, const std::vector<std::string>& tokens,
                                          const render_options& o) {
    std::vector<std::string> out;
    if (panels.empty()) return out;
    const std::size_t n = tokens.size();
    std::size_t label = 0;
    for (const auto& t : tokens) label = std::max(label, display_width(t));
    const std::size_t room = o.width > label + 1 ? o.width - label - 1 : 1;
    auto fitting = [&](std::size_t cell) { return std::max<std::size_t>(1, (room + panel_gap) / (cell * n + panel_gap)); };
    // two characters a cell read best; one, when that puts every panel on one row and two do not
    const std::size_t cell = room < 2 * n || (fitting(2) < panels.size() && fitting(1) >= panels.size()) ? 1 : 2;
    const std::size_t per_row = fitting(cell);
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
    return out;
}

}  // namespace qkv
