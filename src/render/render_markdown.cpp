// A Markdown handout of a trace: a section per stage, the formula as code, each value as a GitHub
// table (weights with their row sums). Reads the trace; computes no number.
#include "qkv/render_markdown.hpp"

#include <algorithm>
#include <cctype>
#include <optional>

#include <fmt/format.h>

#include "heatmap.hpp"
#include "qkv/builtin_values.hpp"
#include "qkv/control_text.hpp"
#include "qkv/render_text.hpp"
#include "qkv/token_span.hpp"
#include "qkv/trim.hpp"
#include "render_cells.hpp"

namespace qkv {
namespace {

using detail::gap;

// No tag reaches a Git host that renders the handout: & < > as entities (<script> shows as text).
// Quotes need nothing outside a tag, so "Self" stays readable in the Markdown source too.
std::string no_html(std::string_view s) {
    std::string out;
    for (char ch : s) {
        if (ch == '&') out += "&amp;";
        else if (ch == '<') out += "&lt;";
        else if (ch == '>') out += "&gt;";
        else out += ch;
    }
    return out;
}

// Prose from a file: no control character reaches a terminal that shows the handout, no tag a
// page. The author's own Markdown stays.
std::string prose(std::string_view s) { return no_html(escape_controls(s, true)); }

// A name or label inline (a cell, a heading, bold): as prose, and every Markdown mark escaped, so
// a '|' cannot end a table cell and "*a*" or "[x](y)" stay as typed.
// A '_' inside a word (d_k, W_Q) emphasises nothing on a Git host, so it stays as typed.
std::string cell(std::string_view raw) {
    std::string s = escape_controls(raw), out;
    auto word = [&](std::size_t k) { return k < s.size() && std::isalnum(static_cast<unsigned char>(s[k])); };
    for (std::size_t i = 0; i < s.size(); ++i) {
        bool inner_underscore = s[i] == '_' && i > 0 && word(i - 1) && word(i + 1);
        if (std::string_view("\\`*_[]|#~!").find(s[i]) != std::string_view::npos && !inner_underscore) out += '\\';
        out += s[i];
    }
    return no_html(out);
}

// A token of the sentence as inline code: nothing in it is Markdown or HTML ("*a*", "<b>", "[x](y)"
// show as typed), and a run of backticks in it is fenced by a longer one. A '|' is written \|: a Git
// host splits a table row at every '|' before it reads a code span, so a lesson's prose table quoting
// the token "<script>alert(1)</script>|a" ended its cell inside the span and let the tag through as
// raw HTML (in a table the \ goes; elsewhere it shows, for a token no sentence is made of).
std::string code_span(std::string_view raw) {
    std::string s;
    for (char c : escape_controls(raw)) {
        if (c == '|') s += '\\';
        s += c;
    }
    std::size_t longest = 0, run = 0;
    for (char c : s) longest = std::max(longest, run = c == '`' ? run + 1 : 0);
    std::string fence(longest + 1, '`');
    bool pad = s.starts_with('`') || s.ends_with('`');
    return fence + (pad ? " " : "") + s + (pad ? " " : "") + fence;
}

// Filled text with its tokens as code spans (and a subscript position), the rest through `plain`.
std::string with_tokens(std::string_view text, std::string (*plain)(std::string_view)) {
    return map_tokens(text, [plain](std::string_view p) { return plain(p); },
                      [](const token_piece& t) { return code_span(t.name) + (t.position ? subscript(t.position) : ""); });
}

// A stage's text: the author's Markdown stays, but what the run filled in ("[click](javascript:…)"
// from a scenario's name) is a cell, every mark escaped, so it cannot become a link; tokens are code.
std::string prose_with_quotes(std::string_view text, const filled_spans& quotes) {
    std::string out;
    std::size_t at = 0;
    for (const auto& [from, size] : quotes) {
        if (from < at || from + size > text.size()) continue;  // past the trimmed end
        out += with_tokens(text.substr(at, from - at), prose) + cell(text.substr(from, size));
        at = from + size;
    }
    return out + with_tokens(text.substr(at), prose);
}

}  // namespace

std::string markdown_cell(std::string_view raw) { return cell(raw); }

std::string markdown_code(std::string_view body, std::string_view info) {
    std::size_t longest = 0;
    for (std::size_t i = 0, run = 0; i < body.size(); ++i) longest = std::max(longest, run = body[i] == '`' ? run + 1 : 0);
    const std::string fence(std::max<std::size_t>(3, longest + 1), '`');
    return fence + std::string(info) + "\n" + std::string(body) + fence + "\n";
}

namespace {

// Handouts have no screen width: more than a dozen rows or columns is elided unless --full.
// The heatmap of a weights table: a shade character per cell (a plain table renders anywhere),
// on the scale the text heatmap uses, and its legend.
std::string heat_table(const matrix& m, const std::vector<std::size_t>& rows, const std::vector<std::size_t>& cols,
                       const std::vector<std::string>& row_names, const std::vector<std::string>& col_names,
                       const render_options& o, const std::optional<matrix>& marks) {
    detail::heat_scale scale = detail::choose_scale(m);
    std::string out = "|  |";
    for (std::size_t c : cols) out += fmt::format(" {} |", c == gap ? "…" : cell(col_names[c]));
    out += "\n| --- |";
    for (std::size_t k = 0; k < cols.size(); ++k) out += " :-: |";
    out += '\n';
    for (std::size_t r : rows) {
        out += fmt::format("| {} |", r == gap ? "…" : cell(row_names[r]));
        for (std::size_t c : cols)
            out += fmt::format(" {}{} |", r == gap || c == gap ? "…" : detail::shade_glyph(detail::heat_level(m, r, c, scale)),
                               r != gap && c != gap && detail::is_marked(marks, r, c) ? "•" : "");
        out += '\n';
    }
    render_options plain = o;
    plain.color = false;
    out += '\n';
    std::vector<std::string> pieces = detail::heat_legend(scale, detail::has_non_finite(m), plain);
    if (marks) pieces.push_back(detail::marked_legend(plain));
    for (const auto& piece : pieces) out += "`" + piece + "` ";
    out.back() = '\n';
    return out;
}

std::string table(const matrix& m, const value& v, const matrix* sums, const render_options& o) {
    auto rows = detail::shown_indices(m.rows, !o.full && m.rows > 12, 5, 5);
    auto cols = detail::shown_indices(m.cols, !o.full && m.cols > 12, 3, 3);
    auto row_names = detail::axis_names(v.rows, m.rows, o.language);
    auto col_names = detail::axis_names(v.cols, m.cols, o.language);
    std::string head = "|  |", rule = "| --- |";
    for (std::size_t c : cols) {
        head += fmt::format(" {} |", c == gap ? "…" : cell(col_names[c]));
        rule += " ---: |";
    }
    if (sums) {
        head += fmt::format(" {} |", cell(tr(o.language, "row sums")));
        rule += " ---: |";
    }
    std::string out = head + '\n' + rule + '\n';
    for (std::size_t r : rows) {
        out += fmt::format("| {} |", r == gap ? "…" : cell(row_names[r]));
        for (std::size_t c : cols)
            out += fmt::format(" {} |", r == gap || c == gap ? "…" : detail::format_number(m(r, c), o.precision));
        if (sums) out += fmt::format(" {} |", r == gap ? "…" : detail::format_number((*sums)(r, 0), o.precision));
        out += '\n';
    }
    if (v.weights) out += '\n' + heat_table(m, rows, cols, row_names, col_names, o, v.marked);
    return out;
}

// "**S** `[3, 3]` — rows: queries · columns: keys *(output)*", then the table(s).
std::string markdown_value_block(const std::string& name, const value& v, std::optional<role> r,
                        const std::optional<value>& sums, const render_options& o) {
    std::string role_part = r ? fmt::format(" *({})*", detail::role_word(o.language, *r)) : "";
    if (v.is_scalar())
        return fmt::format("**{}** = {}{}\n", cell(name), detail::format_scalar(v.number, o.precision), role_part);
    std::string out = fmt::format("**{}** `{}`", cell(name), v.shape_str());
    if (std::string axes = detail::axes_phrase(o.language, v); !axes.empty()) out += " — " + axes;
    out += role_part + '\n';
    for (std::size_t h = 0; h < v.mats.size(); ++h) {
        const matrix* s = sums && h < sums->mats.size() ? &sums->mats[h] : nullptr;
        if (s && s->rows != v.mats[h].rows) s = nullptr;  // not this matrix's sums: show none
        if (v.is_stack()) out += fmt::format("\n*{} {}*\n", tr(o.language, stack_item(v)), h + 1);
        out += '\n' + table(v.mats[h], v, s, o);
    }
    return out;
}

std::string stage_section(const trace& t, const stage_trace& s, const render_options& o) {
    std::string out = fmt::format("## {}/{} · {}\n", s.index, detail::stage_total(t), with_tokens(s.title, cell));
    if (std::string f = std::string(trim_end(s.formula)); !f.empty()) out += "\n" + markdown_code(escape_controls(f, true) + "\n");
    if (std::string text = std::string(trim_end(s.text)); !text.empty()) out += '\n' + prose_with_quotes(text, s.text_quotes) + '\n';
    for (const auto& sv : s.values) out += '\n' + markdown_value_block(sv.name, sv.v, sv.r, sv.row_sums, o);
    for (const auto& step : s.steps) {
        out += fmt::format("\n**{}**\n", cell(step_heading(step.label, o.language)));
        for (const auto& [name, v] : step.values) out += '\n' + markdown_value_block(name, v, std::nullopt, std::nullopt, o);
    }
    return out;
}

}  // namespace

std::string render_markdown(const trace& t, const render_options& o) {
    std::string out =
        "# " + fmt::format(fmt::runtime(tr(o.language, "Lesson {}")), t.lesson) + " · " + cell(t.title);
    out += " · " + cell(scenario_words(t, o.language));
    out += '\n';
    for (const auto& s : t.stages) out += '\n' + stage_section(t, s, o);
    for (const std::string& line : closing_lines(t, o.language)) out += fmt::format("\n{}\n", cell(line));
    return out;
}

}  // namespace qkv
