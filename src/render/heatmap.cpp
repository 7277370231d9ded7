// Heatmap cells and legend at the terminal's colour depth. Colours are viridis (colour_map.hpp, the
// same as the HTML page's): it reads on dark and light terminals alike and from the back of a classroom.
#include "heatmap.hpp"

#include "qkv/colour_map.hpp"
#include "qkv/display_width.hpp"
#include "render_cells.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include <fmt/color.h>
#include <fmt/format.h>

namespace qkv::detail {
namespace {

// The nearest colour of the xterm-256color cube (16 + 36·r + 6·g + b, levels 0, 95, 135, …, 255).
int palette_index(rgb8 c) {
    auto level = [](int v) { return v < 48 ? 0 : v < 115 ? 1 : (v - 35) / 40; };
    return 16 + 36 * level(c.r) + 6 * level(c.g) + level(c.b);
}

std::string background(rgb8 c, std::string_view text, color_depth d) {
    if (d == color_depth::truecolor)
        return fmt::format(fmt::bg(fmt::rgb(static_cast<std::uint8_t>(c.r), static_cast<std::uint8_t>(c.g),
                                            static_cast<std::uint8_t>(c.b))), "{}", text);
    return fmt::format("\x1b[48;5;{}m{}\x1b[0m", palette_index(c), text);
}

bool shades(const render_options& o) { return !o.color || o.depth == color_depth::basic16; }

}  // namespace

heat_scale choose_scale(const matrix& m) {
    if (m.cols > 8) return heat_scale::per_row;
    std::size_t faint_rows = 0, rows = 0;  // rows with a finite weight, and of those the faint ones
    for (std::size_t r = 0; r < m.rows; ++r) {
        float top = -1;
        for (std::size_t c = 0; c < m.cols; ++c)
            if (std::isfinite(m(r, c))) top = std::max(top, m(r, c));
        if (top >= 0) ++rows, faint_rows += top < 0.25f;
    }
    return 2 * faint_rows > rows ? heat_scale::per_row : heat_scale::fixed;
}

float heat_level(const matrix& m, std::size_t r, std::size_t c, heat_scale s) {
    float w = m(r, c);
    if (!std::isfinite(w)) return NAN;
    float full = 1;
    if (s == heat_scale::per_row) {
        full = 0;
        for (std::size_t k = 0; k < m.cols; ++k)
            if (std::isfinite(m(r, k))) full = std::max(full, m(r, k));
    }
    return full > 0 ? std::clamp(w / full, 0.0f, 1.0f) : 0.0f;
}

std::string_view shade_glyph(float level) {
    static constexpr std::array<std::string_view, 5> glyphs{" ", "░", "▒", "▓", "█"};
    if (std::isnan(level)) return "!";
    return glyphs[static_cast<std::size_t>(std::lround(std::clamp(level, 0.0f, 1.0f) * 4))];
}

std::string heat_cell(float level, std::size_t width, const render_options& o) {
    if (shades(o) || std::isnan(level)) {
        std::string out;
        for (std::size_t i = 0; i < width; ++i) out += shade_glyph(level);
        if (std::isnan(level) && o.color) return background({200, 30, 30}, out, o.depth);
        return out;
    }
    return background(viridis(level), std::string(width, ' '), o.depth);
}

std::string heat_cell(float level, std::size_t width, const render_options& o, bool marked) {
    if (!marked || width < 2 || std::isnan(level)) return heat_cell(level, width, o);
    if (shades(o)) {
        std::string out;
        for (std::size_t i = 0; i + 1 < width; ++i) out += shade_glyph(level);
        return out + "•";
    }
    // the dot black on the light end of the map, white on the dark end, so that it shows on either
    const std::string dot = level > 0.6f ? "\x1b[30m•" : "\x1b[97m•";
    return background(viridis(level), std::string(width - 1, ' ') + dot, o.depth);
}

std::string marked_legend(const render_options& o) { return "•  " + std::string(tr(o.language, "a cell the score counts")); }

std::vector<std::string> heat_legend(heat_scale s, bool non_finite, const render_options& o) {
    std::string ramp = "0 ";
    for (float w : {0.0f, 0.25f, 0.5f, 0.75f, 1.0f}) ramp += heat_cell(w, shades(o) ? 1 : 2, o);
    lang l = o.language;
    std::vector<std::string> out;
    if (s == heat_scale::fixed) {
        out.push_back(ramp + " 1");
    } else {
        out.push_back(ramp + " " + tr(l, "row max"));
        out.push_back(tr(l, "(each row scaled to its own largest weight)"));
    }
    if (non_finite) out.push_back(heat_cell(NAN, 1, o) + " " + tr(l, "not a number (nan, inf)"));
    return out;
}

bool has_non_finite(const matrix& m) {
    for (std::size_t r = 0; r < m.rows; ++r)
        for (std::size_t c = 0; c < m.cols; ++c)
            if (!std::isfinite(m(r, c))) return true;
    return false;
}

std::optional<std::vector<std::string>> compact_heatmap_lines(const matrix& m, const std::vector<std::string>& row_names,
                                                              const std::vector<std::string>& col_names, const matrix* sums,
                                                              const std::vector<std::size_t>& rows, const render_options& o,
                                                              const std::optional<matrix>& marks) {
    std::size_t label = 1, sums_width = 0;
    for (const auto& n : row_names) label = std::max(label, display_width(n));
    std::vector<std::string> sum_cells;
    if (sums)
        for (std::size_t r = 0; r < m.rows; ++r) sum_cells.push_back(format_number((*sums)(r, 0), o.precision));
    for (const auto& c : sum_cells) sums_width = std::max(sums_width, display_width(c));
    const std::size_t beside = label + 1 + (sums ? 2 + sums_width : 0);
    std::size_t cell = 2, space = 1;
    if (beside + m.cols * (cell + space) > o.width) cell = 1, space = 0;
    if (beside + m.cols * (cell + space) > o.width) return std::nullopt;
    std::size_t widest = 0;
    for (const auto& n : col_names) widest = std::max(widest, display_width(n));
    std::vector<std::string> out;
    if (widest <= cell) {
        std::string head(label + 1, ' ');
        for (const auto& n : col_names) head += pad(n, cell) + std::string(space, ' ');
        out.push_back(head);
    }
    const std::vector<std::size_t> all = m.rows <= 32 && (o.weights_here <= 1 || o.full) ? shown_indices(m.rows, false, 0, 0) : rows;
    const heat_scale scale = choose_scale(m);
    for (std::size_t r : all) {
        std::string line = pad(r == gap ? "…" : row_names[r], label) + " ";
        for (std::size_t c = 0; c < m.cols; ++c)
            line += (r == gap ? std::string(cell, ' ') : heat_cell(heat_level(m, r, c, scale), cell, o, is_marked(marks, r, c))) +
                    std::string(space, ' ');
        if (sums) line += " " + pad(r == gap ? "…" : sum_cells[r], sums_width, false);
        out.push_back(std::move(line));
    }
    return out;
}

}  // namespace qkv::detail
