// The terminal rendering of a trace: each value as a labelled table aligned at the decimal point,
// attention weights also as a heatmap with their row sums; a stack of heads or a list of sub-steps
// too tall for a screen summarised (summary.hpp). Reads the trace; computes no number.
#include "qkv/render_text.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include <fmt/color.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "heatmap.hpp"
#include "qkv/builtin_values.hpp"
#include "qkv/control_text.hpp"
#include "qkv/display_width.hpp"
#include "qkv/plot.hpp"
#include "qkv/styled_text.hpp"
#include "qkv/token_span.hpp"
#include "qkv/wrap.hpp"
#include "qkv/trim.hpp"
#include "render_cells.hpp"
#include "summary.hpp"

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

// The labels of the shown indices, each at most `room` columns: a 300-character token would
// otherwise make every row of the table as wide.
std::vector<std::string> names_at(const std::vector<std::string>& all, const std::vector<std::size_t>& shown,
                                  std::size_t room) {
    std::vector<std::string> out;
    for (std::size_t i : shown) out.push_back(i == gap ? "…" : elide(escape_controls(all[i]), room));
    return out;
}

// A row label takes at most a quarter of the screen, a column's name a sixth (not under 8 columns).
// `rows`, when given, are the rows to show (detail::plan_value); text_rows otherwise. `cols` are
// columns kept when the middle ones are elided (a number the text quotes).
grid make_grid(const matrix& m, const value& v, const render_options& o, std::size_t keep_cols,
               const std::vector<std::size_t>* rows, const std::vector<std::size_t>& cols) {
    grid g;
    g.rows = rows ? *rows : detail::text_rows(m.rows, o.full);
    g.cols = detail::shown_indices(m.cols, keep_cols > 0, keep_cols, keep_cols);
    if (keep_cols > 0 && g.cols.size() < m.cols) g.cols = detail::with_rows(g.cols, cols);
    g.row_names = names_at(detail::axis_names(v.rows, m.rows, o.language), g.rows, std::max<std::size_t>(8, o.width / 4));
    g.col_names = names_at(detail::axis_names(v.cols, m.cols, o.language), g.cols, std::max<std::size_t>(8, o.width / 6));
    for (const auto& name : g.row_names) g.label_width = std::max(g.label_width, display_width(name));
    for (const auto& name : g.col_names) g.col_width.push_back(display_width(name));
    for (std::size_t r : g.rows) {
        auto& line = g.cells.emplace_back();
        for (std::size_t j = 0; j < g.cols.size(); ++j) {
            std::size_t c = g.cols[j];
            line.push_back(r == gap || c == gap ? "…" : detail::format_number(m(r, c), o.precision));
            g.col_width[j] = std::max(g.col_width[j], display_width(line.back()));
        }
    }
    return g;
}

// Rows beyond a dozen (detail::text_rows) and columns beyond the screen are elided numpy-style,
// unless --full: the first and last three columns, then two, then one, until the table fits.
grid fit_grid(const matrix& m, const value& v, const render_options& o, const std::vector<std::size_t>* rows,
              const std::vector<std::size_t>& cols) {
    grid g = make_grid(m, v, o, 0, rows, cols);
    for (std::size_t keep = 3; !o.full && keep > 0 && g.width() > o.width; --keep) g = make_grid(m, v, o, keep, rows, cols);
    if (!cols.empty() && g.width() > o.width) return fit_grid(m, v, o, rows, {});  // no room: a note says where
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

// The legend's pieces, two spaces apart, on as many lines as the screen needs.
void legend_lines(std::vector<std::string>& out, const grid& g, const matrix& m, const render_options& o, bool marked = false) {
    std::string lead(g.label_width + 2 <= o.width / 3 ? g.label_width + 2 : 0, ' ');
    std::string line = lead;
    std::vector<std::string> pieces = detail::heat_legend(detail::choose_scale(m), detail::has_non_finite(m), o);
    if (marked) pieces.push_back(detail::marked_legend(o));
    for (const auto& piece : pieces) {
        if (line.size() > lead.size() && visible_width(line) + 2 + visible_width(piece) > o.width)
            out.push_back(std::move(line)), line = lead;
        line += (line.size() > lead.size() ? "  " : "") + piece;
    }
    out.push_back(std::move(line));
}

// The heatmap under a weights table: same columns, one block per cell, the row sums beside it.
void heatmap_lines(std::vector<std::string>& out, const grid& g, const matrix& m, const matrix* sums,
                   const render_options& o, const std::optional<matrix>& marks) {
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
    detail::heat_scale scale = detail::choose_scale(m);
    for (std::size_t i = 0; i < g.rows.size(); ++i) {
        std::string line = styled(pad(g.row_names[i], g.label_width), faint, o.color);
        for (std::size_t j = 0; j < g.cols.size(); ++j) {
            std::size_t r = g.rows[i], c = g.cols[j];
            line += "  " + (r == gap || c == gap ? pad("…", g.col_width[j], false)
                                                 : detail::heat_cell(detail::heat_level(m, r, c, scale), g.col_width[j], o,
                                                                     detail::is_marked(marks, r, c)));
        }
        if (sums) line += "  " + pad(sum_cells[i], sums_width, false);
        out.push_back(std::move(line));
    }
    legend_lines(out, g, m, o, marks.has_value());
}

// One matrix (or one head of a stack): the table, and for weights the heatmap. Returns the table's
// grid: which rows and columns it shows.
grid matrix_lines(std::vector<std::string>& out, const matrix& m, const value& v, const matrix* sums,
                  const render_options& o, const std::vector<std::size_t>* rows = nullptr, bool heatmap = true,
                  const std::vector<std::size_t>& cols = {}) {
    grid g = fit_grid(m, v, o, rows, cols);
    table_lines(out, g, o);
    if (!v.weights || !heatmap) return g;
    out.emplace_back();
    // a table too wide for the screen elides the middle columns; the heatmap keeps them, narrower
    if (std::find(g.cols.begin(), g.cols.end(), gap) != g.cols.end()) {
        const std::vector<std::size_t> every = detail::shown_indices(m.cols, false, 0, 0);
        const std::vector<std::size_t> all_rows = detail::shown_indices(m.rows, false, 0, 0);
        if (auto lines = detail::compact_heatmap_lines(m, names_at(detail::axis_names(v.rows, m.rows, o.language), all_rows, g.label_width),
                                                       names_at(detail::axis_names(v.cols, m.cols, o.language, false), every, o.width), sums, g.rows, o,
                                                       v.marked)) {
            out.insert(out.end(), lines->begin(), lines->end());
            legend_lines(out, g, m, o, v.marked.has_value());
            return g;
        }
    }
    heatmap_lines(out, g, m, sums, o, v.marked);
    return g;
}

// A line cut to the screen; without colour not even the cut's style reset is written.
std::string fit(const std::string& line, const render_options& o) {
    std::string cut = clip(line, o.width);
    return o.color ? cut : plain(cut);
}

// `count` things a few lines each (lines_of(i)), at most eight things: the first four, "… k
// more", the last three.
template <class lines_of>
void at_most_eight(std::vector<std::string>& out, std::size_t count, lines_of lines, std::string_view more,
                   const render_options& o) {
    for (std::size_t i : detail::shown_indices(count, true, 4, 3)) {
        if (i == gap) out.push_back(styled(fmt::format(fmt::runtime(more), count - 7), faint, o.color));
        else for (auto& line : lines(i)) out.push_back(std::move(line));
    }
}

// The heads not shown in full, one line each: "head 3  [10, 10]  looks most at: 1→3 · …".
void other_heads_lines(std::vector<std::string>& out, const value& v, const std::vector<std::size_t>& heads,
                       const render_options& o) {
    at_most_eight(out, heads.size(), [&](std::size_t i) {
        const std::size_t h = heads[i];
        const matrix& m = v.mats[h];
        std::string line = styled(fmt::format("{} {}", tr(o.language, stack_item(v)), h + 1), bold, o.color) +
                           fmt::format("  [{}, {}]", m.rows, m.cols);
        std::size_t used = visible_width(line) + 2;
        if (std::string fact = detail::head_fact(v, h, o, o.width > used ? o.width - used : 0); !fact.empty())
            line += "  " + escape_controls(fact);
        return std::vector<std::string>{fit(line, o)};
    }, tr(o.language, "… {} more heads"), o);
    out.push_back(styled(detail::full_note_heads(o.language), faint, o.color));
}

// A summarised sub-step: "t = 2  q_t, k_t, v_t [1, 4] · …", going on under itself (indented past
// the label) at a " · " when the screen is too narrow for it.
std::vector<std::string> step_summary_lines(const sub_step& step, const render_options& o) {
    std::string label = escape_controls(step_heading(step.label, o.language));
    std::vector<std::string> out{styled(label, bold, o.color)};
    std::string indent(display_width(label) + 2, ' ');
    bool first = true;
    for (const auto& raw : detail::step_parts(step, o)) {
        std::string part = escape_controls(raw), sep = first ? "  " : " · ";
        if (!first && visible_width(out.back() + sep + part) > o.width) out.back() += " ·", out.push_back(indent), sep = "";
        out.back() += sep + part, first = false;
    }
    for (auto& line : out) line = fit(line, o);
    return out;
}

// A place of each quoted number in a head and row shown whose column the table left out (too
// wide), when no place of it is on the screen.
std::vector<quote_source> columns_cut(const std::string& name, const detail::value_plan& plan,
                                      const std::vector<grid>& shown, const render_options& o) {
    std::vector<quote_source> out;
    if (!o.quoted_here) return out;
    const auto& all = *o.quoted_here;
    auto on_screen = [&](const quote_source& q) {  // 1: shown; 2: its row shown, its column not
        for (std::size_t i = 0; i < plan.heads.size(); ++i) {
            if (plan.heads[i] != q.head) continue;
            const grid& g = shown[i];
            if (std::find(g.rows.begin(), g.rows.end(), q.row) == g.rows.end()) return 0;
            return std::find(g.cols.begin(), g.cols.end(), q.col) == g.cols.end() ? 2 : 1;
        }
        return 0;
    };
    for (std::size_t i = 0; i < all.size();) {
        std::size_t end = i;
        bool shown_somewhere = false;
        std::optional<quote_source> cut;
        for (; end < all.size() && all[end].quote == all[i].quote; ++end) {
            if (all[end].name != name) continue;
            int at = on_screen(all[end]);
            shown_somewhere = shown_somewhere || at == 1;
            if (at == 2 && !cut) cut = all[end];
        }
        if (!shown_somewhere && cut) out.push_back(*cut);
        i = end;
    }
    return out;
}

// "S  [3, 3]  rows: queries · columns: keys  (output)"; a scalar is just "d_k = 4.0000". The axes
// phrase may instead go on a line of its own under the name (the presenter's narrow blocks).
std::vector<std::string> value_lines(const std::string& raw_name, const value& v, std::optional<role> r,
                                     const std::optional<value>& sums, const render_options& o, axes_place place) {
    std::string role_part = r ? "  " + styled(fmt::format("({})", detail::role_word(o.language, *r)),
                                             faint, o.color)
                              : "";
    std::string axes = detail::axes_phrase(o.language, v);
    std::string name = escape_controls(raw_name);
    std::vector<std::string> out;
    if (v.is_scalar()) {
        out.push_back(fmt::format("{} = {}{}", styled(name, bold, o.color),
                                  detail::format_scalar(v.number, o.precision), role_part));
    } else {
        std::string head = styled(name, bold, o.color) + "  " + v.shape_str();
        // Beside the name when it fits the screen; under it otherwise.
        if (!axes.empty() && place == axes_place::beside_name && visible_width(head + "  " + axes + role_part) > o.width)
            place = axes_place::own_line;
        if (!axes.empty() && place == axes_place::beside_name) head += "  " + styled(axes, faint, o.color);
        out.push_back(head + role_part);
    }
    if (!axes.empty() && place == axes_place::own_line) out.push_back(styled(axes, faint, o.color));
    if (v.is_scalar()) return out;
    // the heads and rows the text's numbers are in stay on the screen; where one cannot, a note says
    // where it is
    detail::value_plan plan = detail::plan_value(raw_name, v, o);
    std::vector<grid> shown;
    for (std::size_t i = 0; i < plan.heads.size(); ++i) {
        const std::size_t h = plan.heads[i];
        const matrix* s = sums && h < sums->mats.size() ? &sums->mats[h] : nullptr;
        if (s && s->rows != v.mats[h].rows) s = nullptr;  // not this matrix's sums: show none
        if (v.is_stack()) out.push_back(styled(fmt::format("{} {}", tr(o.language, stack_item(v)), h + 1), bold, o.color));
        shown.push_back(matrix_lines(out, v.mats[h], v, s, o, &plan.rows[i], !plan.partial[i], plan.quoted_cols[i]));
        if (v.is_stack() && i + 1 < plan.heads.size()) out.emplace_back();
    }
    std::vector<std::size_t> others;
    for (std::size_t h = 0; h < v.mats.size(); ++h)
        if (std::find(plan.heads.begin(), plan.heads.end(), h) == plan.heads.end()) others.push_back(h);
    if (!others.empty()) other_heads_lines(out, v, others, o);
    for (const quote_source& q : columns_cut(raw_name, plan, shown, o)) plan.hidden.push_back(q);
    for (const quote_source& q : plan.hidden)
        for (const auto& line : wrap_paragraph(escape_controls(detail::hidden_note(v, q, o.language)), o.width))
            out.push_back(styled(line, faint, o.color));
    if (plotted(raw_name, v))  // a loss over steps: its chart under the table
        for (auto& line : plot_text(v, o)) out.push_back(std::move(line));
    return out;
}

std::string joined(const std::vector<std::string>& lines) {
    std::string out;
    for (const auto& l : lines) out += l + '\n';
    return out;
}

// A heading or note wrapped to the screen, each line in style st.
std::string wrapped(std::string_view s, fmt::text_style st, const render_options& o) {
    if (display_width(s) <= o.width) return styled(s, st, o.color) + '\n';  // as written: "3/7  title"
    std::string out;
    for (const auto& line : wrap_paragraph(s, o.width)) out += styled(line, st, o.color) + '\n';
    return out;
}

// A formula indented by four; a line too wide for the screen goes on under itself, indented more.
std::string formula_lines(std::string_view lines, const render_options& o) {
    std::string out;
    std::size_t start = 0;
    while (start <= lines.size()) {
        std::size_t end = lines.find('\n', start);
        if (end == std::string_view::npos) end = lines.size();
        std::string_view line = lines.substr(start, end - start);
        if (4 + display_width(line) <= o.width) out += "    " + std::string(line) + '\n';
        else
            for (const auto& part : wrap_paragraph(line, o.width > 4 ? o.width - 4 : 1, "    ")) out += "    " + part + '\n';
        start = end + 1;
    }
    return out;
}

}  // namespace

std::vector<std::string> render_value_lines(const shown_value& sv, const render_options& o, axes_place place) {
    return value_lines(sv.name, sv.v, sv.r, sv.row_sums, o, place);
}

std::vector<std::string> render_step_lines(const sub_step& step, const render_options& given) {
    render_options o = given;
    o.quoted_here = nullptr;  // the text quotes the stage's values, not a step's of the same name
    std::vector<std::string> out{styled(escape_controls(step_heading(step.label, o.language)), bold, o.color)};
    for (std::size_t i = 0; i < step.values.size(); ++i) {
        if (i) out.emplace_back();
        auto lines = value_lines(step.values[i].first, step.values[i].second, std::nullopt, std::nullopt, o,
                                 axes_place::beside_name);
        out.insert(out.end(), lines.begin(), lines.end());
    }
    return out;
}

std::size_t steps_in_full(const std::vector<sub_step>& steps, const render_options& o) {
    constexpr std::size_t budget = 40;
    if (o.full || o.every_step || steps.size() <= 1) return steps.size();
    std::size_t total = 0, first = 0;
    for (const auto& step : steps) {
        total += render_step_lines(step, o).size() + 1;  // and the blank line before it
        if (!first) first = total;
        if (total > budget && first > budget) return 0;
        if (total > budget) return 1;
    }
    return steps.size();
}

std::vector<std::string> render_steps_summary(const std::vector<sub_step>& steps, std::size_t from,
                                              const render_options& o) {
    std::vector<std::string> out;
    if (from >= steps.size()) return out;
    at_most_eight(out, steps.size() - from, [&](std::size_t i) {
        return step_summary_lines(steps[from + i], o);
    }, tr(o.language, "… {} more steps"), o);
    out.push_back(styled(detail::full_note_steps(o.language), faint, o.color));
    return out;
}

std::vector<std::vector<std::string>> render_stage_blocks(const stage_trace& s, const render_options& given, axes_place axes) {
    std::vector<std::vector<std::string>> out;
    render_options o = given;
    o.stacks_here = detail::stacks_in(s);
    o.weights_here = static_cast<std::size_t>(std::count_if(s.values.begin(), s.values.end(), [](const shown_value& sv) { return sv.v.weights; }));
    o.quoted_here = &s.text_sources;
    for (const auto& sv : s.values) out.push_back(render_value_lines(sv, o, axes));
    const std::size_t in_full = steps_in_full(s.steps, o);
    for (std::size_t i = 0; i < in_full; ++i) out.push_back(render_step_lines(s.steps[i], o));
    if (in_full < s.steps.size()) out.push_back(render_steps_summary(s.steps, in_full, o));
    return out;
}

stage_trace outputs_first(stage_trace s) {
    std::stable_partition(s.values.begin(), s.values.end(), [](const shown_value& sv) { return sv.r == role::output; });
    return s;
}

std::string render_values_text(const std::vector<shown_value>& values, const render_options& o) {
    std::string out;
    for (const auto& sv : values) out += '\n' + joined(render_value_lines(sv, o));
    return out;
}

std::string render_text_stage(const trace& t, std::size_t stage, const render_options& o) {
    const stage_trace& s = t.stages.at(stage);
    std::string out = wrapped(fmt::format("{}/{}  {}", s.index, detail::stage_total(t), escape_controls(plain_tokens(s.title))),
                              bold, o);
    if (std::string f = std::string(trim_end(s.formula)); !f.empty()) out += formula_lines(escape_controls(f, true), o);
    if (std::string text = std::string(trim_end(s.text)); !text.empty()) {
        out += '\n';
        for (const auto& line : reflow(escape_controls(text, true), o.width)) out += line + '\n';
    }
    for (const auto& block : render_stage_blocks(s, o)) out += '\n' + joined(block);
    return out;
}

std::string lesson_line(const trace& t, lang l) {
    // The number sits inside the phrase in Chinese (第 3 课), so the key carries a placeholder.
    return fmt::format(fmt::runtime(tr(l, "Lesson {}")), t.lesson) + " · " + escape_controls(t.title);
}

std::string scenario_words(const trace& t, lang l) {
    return fmt::format("{} {}", tr(l, "scenario"), t.scenario.empty() ? tr(l, "none: the lesson makes its own data") : t.scenario);
}

std::string render_text(const trace& t, const render_options& o) {
    const std::string heading = lesson_line(t, o.language) + " · " + escape_controls(scenario_words(t, o.language));
    std::string rule;
    for (std::size_t i = 0; i < std::min<std::size_t>(o.width, 72); ++i) rule += "─";
    std::string out = wrapped(heading, bold, o);
    for (std::size_t i = 0; i < t.stages.size(); ++i)
        out += styled(rule, faint, o.color) + "\n\n" + render_text_stage(t, i, o) + '\n';
    std::vector<std::string> closing = closing_lines(t, o.language);
    if (!closing.empty()) out += styled(rule, faint, o.color) + "\n\n";
    for (const std::string& line : closing) out += wrapped(line, bold, o);
    return out;
}

std::vector<std::string> closing_lines(const trace& t, lang l) {
    std::vector<std::string> out;
    const what_next& a = t.after;
    if (!a.known || t.stages.size() != t.stage_count) return out;  // a file of its own, or one stage of it
    if (!a.exercises.empty())
        out.push_back(fmt::format(fmt::runtime(tr(l, "Practise: qkv exercise {} ({} exercises: {})")),
                                  a.exercises.front(), a.exercises.size(), fmt::join(a.exercises, ", ")));
    if (a.lesson >= 0)
        out.push_back(fmt::format(fmt::runtime(tr(l, "Next: qkv lesson {} · {}")), a.lesson,
                                  escape_controls(a.lesson_title)));
    else
        out.push_back(tr(l, "This is the last lesson. qkv next says what is left to do."));
    return out;
}

}  // namespace qkv
