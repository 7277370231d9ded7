// The terminal rendering of a trace: each value as a labelled table aligned at the decimal point,
// attention weights also as a heatmap with their row sums. Reads the trace; computes no number.
#include "qkv/render_text.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include <fmt/color.h>
#include <fmt/format.h>

#include "qkv/display_width.hpp"
#include "qkv/styled_text.hpp"
#include "render_cells.hpp"

namespace qkv {
namespace {

using detail::gap;

const fmt::text_style faint = fmt::emphasis::faint;
const fmt::text_style bold = fmt::emphasis::bold;

// One matrix as shown: the surviving rows and columns (gap where "…" stands), their labels and
// cells, and the widths that make the columns line up.
struct grid {
    std::vector<std::size_t> rows, cols;
    std::vector<std::string> row_names, col_names;
    std::vector<std::vector<std::string>> cells;  // [rows.size(), cols.size()]
    std::size_t label_width = 0;
    std::vector<std::size_t> col_width;

    std::size_t width() const {
        std::size_t w = label_width;
        for (std::size_t c : col_width) w += 2 + c;
        return w;
    }
};

std::vector<std::string> names_at(const std::vector<std::string>& all,
                                  const std::vector<std::size_t>& shown) {
    std::vector<std::string> out;
    for (std::size_t i : shown) out.push_back(i == gap ? "…" : all[i]);
    return out;
}

grid make_grid(const matrix& m, const value& v, int precision, bool elide_rows, bool elide_cols) {
    grid g;
    g.rows = detail::shown_indices(m.rows, elide_rows, 5, 5);
    g.cols = detail::shown_indices(m.cols, elide_cols, 3, 3);
    g.row_names = names_at(detail::axis_names(v.rows, m.rows), g.rows);
    g.col_names = names_at(detail::axis_names(v.cols, m.cols), g.cols);
    for (const auto& name : g.row_names) g.label_width = std::max(g.label_width, display_width(name));
    for (const auto& name : g.col_names) g.col_width.push_back(display_width(name));
    for (std::size_t r : g.rows) {
        auto& line = g.cells.emplace_back();
        for (std::size_t j = 0; j < g.cols.size(); ++j) {
            std::size_t c = g.cols[j];
            line.push_back(r == gap || c == gap ? "…" : detail::format_number(m(r, c), precision));
            g.col_width[j] = std::max(g.col_width[j], display_width(line.back()));
        }
    }
    return g;
}

// Rows beyond a dozen and columns beyond the screen are elided numpy-style, unless --full.
grid fit_grid(const matrix& m, const value& v, const render_options& o) {
    bool elide_rows = !o.full && m.rows > 12;
    grid g = make_grid(m, v, o.precision, elide_rows, false);
    if (!o.full && g.width() > o.width) g = make_grid(m, v, o.precision, elide_rows, true);
    return g;
}

std::string header_line(const grid& g, const render_options& o) {
    std::string out(g.label_width, ' ');
    for (std::size_t j = 0; j < g.cols.size(); ++j)
        out += "  " + styled(pad(g.col_names[j], g.col_width[j], false), faint, o.color);
    return out;
}

void table_lines(std::vector<std::string>& out, const grid& g, const render_options& o) {
    out.push_back(header_line(g, o));
    for (std::size_t i = 0; i < g.rows.size(); ++i) {
        std::string line = styled(pad(g.row_names[i], g.label_width), faint, o.color);
        for (std::size_t j = 0; j < g.cols.size(); ++j) line += "  " + pad(g.cells[i][j], g.col_width[j], false);
        out.push_back(std::move(line));
    }
}

// A weight in [0, 1] as a colour on viridis (dark purple → teal → yellow): it reads on dark and
// light terminals alike and from the back of a classroom.
fmt::rgb heat_colour(float w) {
    float t = std::isfinite(w) ? std::clamp(w, 0.0f, 1.0f) : 0.0f;
    constexpr std::array<std::array<float, 3>, 3> stops{{{68, 1, 84}, {33, 145, 140}, {253, 231, 37}}};
    std::size_t k = t < 0.5f ? 0 : 1;
    float u = t < 0.5f ? t * 2 : (t - 0.5f) * 2;
    auto mix = [&](int ch) {
        return static_cast<std::uint8_t>(std::lround(stops[k][ch] + u * (stops[k + 1][ch] - stops[k][ch])));
    };
    return fmt::rgb(mix(0), mix(1), mix(2));
}

// Without colour a weight becomes one of five shades, 0 → blank and 1 → full block.
std::string_view shade(float w) {
    static constexpr std::array<std::string_view, 5> glyphs{" ", "░", "▒", "▓", "█"};
    float t = std::isfinite(w) ? std::clamp(w, 0.0f, 1.0f) : 0.0f;
    return glyphs[static_cast<std::size_t>(std::lround(t * 4))];
}

std::string heat_block(float w, std::size_t width, bool color) {
    if (color) return fmt::format(fmt::bg(heat_colour(w)), "{}", std::string(width, ' '));
    std::string out;
    for (std::size_t i = 0; i < width; ++i) out += shade(w);
    return out;
}

std::string legend_line(const grid& g, const render_options& o) {
    std::string out = std::string(g.label_width, ' ') + "  0 ";
    for (float w : {0.0f, 0.25f, 0.5f, 0.75f, 1.0f}) out += heat_block(w, o.color ? 2 : 1, o.color);
    return out + " 1";
}

// The heatmap under a weights table: same columns, one block per cell, the row sums beside it.
void heatmap_lines(std::vector<std::string>& out, const grid& g, const matrix& m, const matrix* sums,
                   const render_options& o) {
    std::string sums_head(tr(o.language, "row sums"));
    std::vector<std::string> sum_cells;
    std::size_t sums_width = display_width(sums_head);
    if (sums) {
        for (std::size_t r : g.rows)
            sum_cells.push_back(r == gap ? "…" : detail::format_number((*sums)(r, 0), o.precision));
        for (const auto& s : sum_cells) sums_width = std::max(sums_width, display_width(s));
    }
    std::string head = header_line(g, o);
    if (sums) head += "  " + styled(pad(sums_head, sums_width, false), faint, o.color);
    out.push_back(std::move(head));
    for (std::size_t i = 0; i < g.rows.size(); ++i) {
        std::string line = styled(pad(g.row_names[i], g.label_width), faint, o.color);
        for (std::size_t j = 0; j < g.cols.size(); ++j) {
            std::size_t r = g.rows[i], c = g.cols[j];
            line += "  " + (r == gap || c == gap ? pad("…", g.col_width[j], false)
                                                 : heat_block(m(r, c), g.col_width[j], o.color));
        }
        if (sums) line += "  " + pad(sum_cells[i], sums_width, false);
        out.push_back(std::move(line));
    }
    out.push_back(legend_line(g, o));
}

// One matrix (or one head of a stack): the table, and for weights the heatmap.
void matrix_lines(std::vector<std::string>& out, const matrix& m, const value& v, const matrix* sums,
                  const render_options& o) {
    grid g = fit_grid(m, v, o);
    table_lines(out, g, o);
    if (!v.weights) return;
    out.emplace_back();
    heatmap_lines(out, g, m, sums, o);
}

// "S  [3, 3]  rows: queries · columns: keys  (output)"; a scalar is just "d_k = 4.0000". The axes
// phrase may instead go on a line of its own under the name (the presenter's narrow blocks).
std::vector<std::string> value_lines(const std::string& name, const value& v, std::optional<role> r,
                                     const std::optional<value>& sums, const render_options& o, axes_place place) {
    std::string role_part = r ? "  " + styled(fmt::format("({})", detail::role_word(o.language, *r)),
                                             faint, o.color)
                              : "";
    std::string axes = detail::axes_phrase(o.language, v);
    std::vector<std::string> out;
    if (v.is_scalar()) {
        out.push_back(fmt::format("{} = {}{}", styled(name, bold, o.color),
                                  detail::format_scalar(v.number, o.precision), role_part));
    } else {
        std::string head = styled(name, bold, o.color) + "  " + v.shape_str();
        if (!axes.empty() && place == axes_place::beside_name) head += "  " + styled(axes, faint, o.color);
        out.push_back(head + role_part);
    }
    if (!axes.empty() && place == axes_place::own_line) out.push_back(styled(axes, faint, o.color));
    if (v.is_scalar()) return out;
    for (std::size_t h = 0; h < v.mats.size(); ++h) {
        const matrix* s = sums && h < sums->mats.size() ? &sums->mats[h] : nullptr;
        if (s && s->rows != v.mats[h].rows) s = nullptr;  // not this matrix's sums: show none
        if (v.is_stack()) out.push_back(styled(fmt::format("{} {}", tr(o.language, "head"), h + 1), bold, o.color));
        matrix_lines(out, v.mats[h], v, s, o);
        if (v.is_stack() && h + 1 < v.mats.size()) out.emplace_back();
    }
    return out;
}

std::string joined(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& l : lines) out += l + '\n';
    return out;
}

std::string trimmed_end(std::string_view s) {
    std::size_t end = s.find_last_not_of(" \t\r\n");
    return end == std::string_view::npos ? std::string() : std::string(s.substr(0, end + 1));
}

std::string indented(std::string_view lines, std::string_view by) {
    std::string out;
    std::size_t start = 0;
    while (start <= lines.size()) {
        std::size_t end = lines.find('\n', start);
        if (end == std::string_view::npos) end = lines.size();
        out += std::string(by) + std::string(lines.substr(start, end - start)) + '\n';
        start = end + 1;
    }
    return out;
}

}  // namespace

std::vector<std::string> render_value_lines(const shown_value& sv, const render_options& o, axes_place place) {
    return value_lines(sv.name, sv.v, sv.r, sv.row_sums, o, place);
}

std::vector<std::string> render_step_lines(const sub_step& step, const render_options& o) {
    std::vector<std::string> out{styled(step.label, bold, o.color)};
    for (std::size_t i = 0; i < step.values.size(); ++i) {
        if (i) out.emplace_back();
        auto lines = value_lines(step.values[i].first, step.values[i].second, std::nullopt, std::nullopt, o,
                                 axes_place::beside_name);
        out.insert(out.end(), lines.begin(), lines.end());
    }
    return out;
}

std::string render_values_text(const std::vector<shown_value>& values, const render_options& o) {
    std::string out;
    for (const auto& sv : values) out += '\n' + joined(render_value_lines(sv, o));
    return out;
}

std::string render_text_stage(const trace& t, std::size_t stage, const render_options& o) {
    const stage_trace& s = t.stages.at(stage);
    std::string out =
        styled(fmt::format("{}/{}  {}", s.index, detail::stage_total(t), s.title), bold, o.color) + '\n';
    if (std::string f = trimmed_end(s.formula); !f.empty()) out += indented(f, "    ");
    if (std::string text = trimmed_end(s.text); !text.empty()) out += '\n' + text + '\n';
    out += render_values_text(s.values, o);
    for (const auto& step : s.steps) out += '\n' + joined(render_step_lines(step, o));
    return out;
}

std::string render_text(const trace& t, const render_options& o) {
    // The number sits inside the phrase in Chinese (第 3 课), so the key carries a placeholder.
    std::string heading =
        fmt::format(fmt::runtime(tr(o.language, "Lesson {}")), t.lesson) + " · " + t.title;
    if (!t.scenario.empty()) heading += fmt::format(" · {} {}", tr(o.language, "scenario"), t.scenario);
    std::string rule;
    for (std::size_t i = 0; i < std::min<std::size_t>(o.width, 72); ++i) rule += "─";
    std::string out = styled(heading, bold, o.color) + '\n';
    if (t.other_scenario) out += styled(std::string(tr(o.language, "The explanations were written for the lesson's own scenario; the numbers below come from this one.")), faint, o.color) + '\n';
    for (std::size_t i = 0; i < t.stages.size(); ++i)
        out += styled(rule, faint, o.color) + "\n\n" + render_text_stage(t, i, o) + '\n';
    return out;
}

}  // namespace qkv
