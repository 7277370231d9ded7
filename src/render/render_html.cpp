// The HTML handout: a page per run, every stage a section, every value a table; weights coloured
// on viridis with the number in each cell and a legend. Everything that came from a file or the
// user goes through html_escape. Reads the trace; computes no number.
#include "qkv/render_html.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "qkv/colour_map.hpp"
#include "qkv/control_text.hpp"
#include "qkv/plot.hpp"
#include "qkv/prose.hpp"
#include "qkv/render_text.hpp"
#include "qkv/token_span.hpp"
#include "qkv/trim.hpp"
#include "heatmap.hpp"
#include "render_cells.hpp"
#include "summary.hpp"

namespace qkv {
namespace {

using detail::gap;

constexpr std::string_view page_style = R"css(
:root { color-scheme: light; --ink: #1d1d1f; --faint: #6e6e73; --rule: #d2d2d7; --accent: #21918c; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 68rem; padding: 2rem 1.5rem 4rem; color: var(--ink); background: #fff;
       font: 16px/1.6 system-ui, -apple-system, "Segoe UI", "Noto Sans CJK SC", "Source Han Sans SC",
       "PingFang SC", "Microsoft YaHei", sans-serif; }
h1 { font-size: 1.9rem; margin: 0 0 .25rem; }
h2 { font-size: 1.35rem; margin: 2.5rem 0 .5rem; padding-top: 1rem; border-top: 1px solid var(--rule); }
h2 .index { color: var(--accent); font-variant-numeric: tabular-nums; margin-right: .5rem; }
h3 { font-size: 1.05rem; margin: 1.5rem 0 .25rem; }
h4 { font-size: .95rem; margin: .75rem 0 .25rem; color: var(--faint); }
.scenario, .axes, .role { color: var(--faint); }
.note { border-left: 3px solid var(--accent); padding: .25rem .75rem; background: #f5f5f7; }
nav ol { columns: 2; color: var(--faint); }
nav a { color: inherit; }
pre.formula { background: #f5f5f7; border-radius: 6px; padding: .6rem 1rem; font-size: 1.05rem;
              font-family: ui-monospace, "DejaVu Sans Mono", "Noto Sans Mono CJK SC", monospace; overflow-x: auto; }
figure { margin: 1.25rem 0; }
figcaption { margin-bottom: .35rem; }
figcaption .name, .scalar .name { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-weight: 700; }
code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
.token { font-family: ui-monospace, "DejaVu Sans Mono", "Noto Sans Mono CJK SC", monospace; background: #eef6f5;
         border-radius: 3px; padding: 0 .2em; }
.table-wrap { overflow-x: auto; }
table.matrix { border-collapse: collapse; font-variant-numeric: tabular-nums;
               font-family: ui-monospace, "DejaVu Sans Mono", "Noto Sans Mono CJK SC", monospace; font-size: .92rem; }
table.matrix th { font-weight: 400; color: var(--faint); padding: .2rem .6rem; }
table.matrix thead th { text-align: right; border-bottom: 1px solid var(--rule); }
table.matrix tbody th { text-align: left; border-right: 1px solid var(--rule); }
table.matrix td { text-align: right; padding: .2rem .6rem; }
table.weights td.heat { min-width: 4.5rem; }
table.weights td.heat.marked { outline: 2px solid currentColor; outline-offset: -3px; }
table.weights td.heat.marked::after { content: " •"; }
table.weights td.sum, table.weights th.sum { border-left: 1px solid var(--rule); }
.legend { display: flex; align-items: center; gap: .35rem; margin-top: .4rem; font-size: .85rem; color: var(--faint); }
details.more > summary { cursor: pointer; color: var(--accent); margin: .75rem 0; }
.legend .swatch { display: inline-block; width: 2.2rem; height: 1.1rem; border: 1px solid var(--rule); }
@media print { body { max-width: none; padding: 0; } h2 { break-after: avoid; } figure { break-inside: avoid; }
               * { -webkit-print-color-adjust: exact; print-color-adjust: exact; } }
)css";

// The say-it-once words of the page that i18n does not have.

std::string heat_style(float w) {
    const auto [r, g, b] = viridis(w);
    bool light = std::isfinite(w) && w >= 0.55f;  // yellow and green cells take dark text
    return fmt::format("background:#{:02x}{:02x}{:02x};color:{}", r, g, b, light ? "#000" : "#fff");
}

std::string legend(lang l) {
    std::string out = fmt::format("<div class=\"legend\"><span class=\"legend-label\">{}</span><span>0</span>",
                                  html_escape(tr(l, "legend: weight")));
    for (float w : {0.0f, 0.25f, 0.5f, 0.75f, 1.0f}) {
        const auto [r, g, b] = viridis(w);
        out += fmt::format("<span class=\"swatch\" style=\"background:#{:02x}{:02x}{:02x}\" title=\"{:.2f}\"></span>", r, g, b, w);
    }
    return out + "<span>1</span></div>\n";
}

// `kept`: rows the stage's text quotes a number from, shown among the elided ones.
// Every number's cell carries its place (data-i, data-j from 1; the table data-head), so that a
// page served by qkv can ask the engine how that number was made.
std::string table(const matrix& m, const value& v, const matrix* sums, const render_options& o, std::size_t head,
                  const std::vector<std::size_t>& kept = {}) {
    auto rows = detail::with_rows(detail::shown_indices(m.rows, !o.full && m.rows > 12, 5, 5), kept);
    auto cols = detail::shown_indices(m.cols, !o.full && m.cols > 12, 3, 3);
    auto row_names = detail::axis_names(v.rows, m.rows);
    auto col_names = detail::axis_names(v.cols, m.cols);
    std::string out = fmt::format("<div class=\"table-wrap\"><table class=\"matrix{}\" data-head=\"{}\">\n<thead><tr><th></th>",
                                  v.weights ? " weights" : "", head + 1);
    for (std::size_t c : cols) out += fmt::format("<th scope=\"col\">{}</th>", c == gap ? "…" : html_escape(col_names[c]));
    if (sums) out += fmt::format("<th scope=\"col\" class=\"sum\">{}</th>", html_escape(tr(o.language, "row sums")));
    out += "</tr></thead>\n<tbody>\n";
    for (std::size_t r : rows) {
        out += fmt::format("<tr><th scope=\"row\">{}</th>", r == gap ? "…" : html_escape(row_names[r]));
        for (std::size_t c : cols) {
            if (r == gap || c == gap) out += "<td>…</td>";
            else if (v.weights)
                out += fmt::format("<td class=\"heat{}\" style=\"{}\" data-i=\"{}\" data-j=\"{}\">{}</td>",
                                   detail::is_marked(v.marked, r, c) ? " marked" : "", heat_style(m(r, c)), r + 1, c + 1,
                                   detail::format_number(m(r, c), o.precision));
            else out += fmt::format("<td data-i=\"{}\" data-j=\"{}\">{}</td>", r + 1, c + 1, detail::format_number(m(r, c), o.precision));
        }
        if (sums) out += fmt::format("<td class=\"sum\">{}</td>", r == gap ? "…" : detail::format_number((*sums)(r, 0), o.precision));
        out += "</tr>\n";
    }
    return out + "</tbody></table></div>\n";
}

// "2–8", or "2" alone.
std::string span(const std::string& first, const std::string& last, std::string_view dash) {
    return first == last ? first : first + std::string(dash) + last;
}

// The opening of a fold: "<details …><summary>heads 2–8 (open to see them)</summary>".
std::string folded(std::string_view what, const std::string& which, const render_options& o) {
    return fmt::format("<details class=\"more\"><summary>{} {}{}</summary>\n", html_escape(what), html_escape(which),
                       html_escape(tr(o.language, " (open to see them)")));
}

std::string value_block(const std::string& name, const value& v, std::optional<role> r,
                        const std::optional<value>& sums, const render_options& o) {
    std::string role_part = r ? fmt::format(" <span class=\"role\">({})</span>", html_escape(detail::role_word(o.language, *r))) : "";
    if (v.is_scalar())
        return fmt::format("<p class=\"scalar\"><span class=\"name\">{}</span> = {}{}</p>\n", html_escape(name),
                           html_escape(detail::format_scalar(v.number, o.precision)), role_part);
    std::string out = fmt::format("<figure class=\"value\" data-name=\"{}\">\n<figcaption><span class=\"name\">{}</span> <code class=\"shape\">{}</code>",
                                  html_escape(name), html_escape(name), html_escape(v.shape_str()));
    if (std::string axes = detail::axes_phrase(o.language, v); !axes.empty())
        out += fmt::format(" <span class=\"axes\">{}</span>", html_escape(axes));
    out += role_part + "</figcaption>\n";
    // Heads past those text shows in full are folded away, not left out: the page keeps them all.
    // Each run of them is a fold of its own: a head the text quotes stays open between them.
    const detail::value_plan plan = detail::plan_value(name, v, o);
    auto open_at = [&](std::size_t h) {
        auto at = std::find(plan.heads.begin(), plan.heads.end(), h);
        return at == plan.heads.end() ? plan.heads.size() : static_cast<std::size_t>(at - plan.heads.begin());
    };
    for (std::size_t h = 0; h < v.mats.size(); ++h) {
        const matrix* s = sums && h < sums->mats.size() ? &sums->mats[h] : nullptr;
        if (s && s->rows != v.mats[h].rows) s = nullptr;  // not this matrix's sums: show none
        const std::size_t i = open_at(h);
        const bool folded_here = i == plan.heads.size();
        if (folded_here && (h == 0 || open_at(h - 1) < plan.heads.size())) {
            std::size_t last = h;
            while (last + 1 < v.mats.size() && open_at(last + 1) == plan.heads.size()) ++last;
            out += folded(tr(o.language, v.stack_axis), span(std::to_string(h + 1), std::to_string(last + 1), "–"), o);
        }
        if (v.is_stack()) out += fmt::format("<h4 class=\"head\">{} {}</h4>\n", html_escape(tr(o.language, stack_item(v))), h + 1);
        out += table(v.mats[h], v, s, o, h, folded_here ? std::vector<std::size_t>{} : plan.quoted_rows[i]);
        if (folded_here && (h + 1 == v.mats.size() || open_at(h + 1) < plan.heads.size())) out += "</details>\n";
    }
    if (v.weights) out += legend(o.language);
    if (v.marked) out += fmt::format("<p class=\"legend\"><span class=\"marked-key\">•</span> {}</p>\n",
                                     html_escape(tr(o.language, "a cell the score counts")));
    if (plotted(name, v)) out += plot_svg(v, o);  // a loss over steps: its chart under the table
    return out + "</figure>\n";
}

// Prose filled from the run: the learner's tokens escaped like all of it, each set off as a token.
std::string html_prose(std::string_view text) {
    return map_tokens(text, [](std::string_view p) { return html_escape(p); }, [](const token_piece& t) {
        return fmt::format("<span class=\"token\">{}</span>{}", html_escape(t.name),
                           t.position ? fmt::format("<sub>{}</sub>", t.position) : "");
    });
}

std::string anchor(const trace& t, const stage_trace& s) { return fmt::format("l{}-s{}", t.lesson, s.index); }

}  // namespace

std::string html_stage(const trace& t, const stage_trace& s, const render_options& o) {
    std::string out = fmt::format("<section class=\"stage\" id=\"{}\">\n<h2><span class=\"index\">{}/{}</span>{}</h2>\n",
                                  anchor(t, s), s.index, detail::stage_total(t), html_prose(s.title));
    if (std::string f = std::string(trim_end(s.formula)); !f.empty())
        out += fmt::format("<pre class=\"formula\"><code>{}</code></pre>\n", html_escape(f));
    for (const auto& p : detail::paragraphs(s.text)) out += fmt::format("<p class=\"text\">{}</p>\n", html_prose(p));
    render_options here = o;
    here.stacks_here = detail::stacks_in(s);
    here.quoted_here = &s.text_sources;
    for (const auto& sv : s.values) out += value_block(sv.name, sv.v, sv.r, sv.row_sums, here);
    const std::size_t in_full = steps_in_full(s.steps, o);  // the others folded away, as heads are
    for (std::size_t i = 0; i < s.steps.size(); ++i) {
        if (i == in_full) out += folded(tr(o.language, "steps"), span(s.steps[i].label, s.steps.back().label, " … "), o);
        out += fmt::format("<h3 class=\"step\">{}</h3>\n", html_escape(s.steps[i].label));
        out += fmt::format("<div class=\"steps\" data-step=\"{}\">\n", i + 1);
        for (const auto& [name, v] : s.steps[i].values) out += value_block(name, v, std::nullopt, std::nullopt, o);
        out += "</div>\n";
    }
    if (in_full < s.steps.size()) out += "</details>\n";
    return out + "</section>\n";
}

std::string_view html_style() { return page_style; }

namespace {

std::string lesson_heading(const trace& t, const render_options& o) {
    return fmt::format(fmt::runtime(tr(o.language, "Lesson {}")), t.lesson) + " · " + t.title;
}

std::string article(const trace& t, const render_options& o) {
    std::string out = fmt::format("<article class=\"lesson\" id=\"lesson-{}\">\n<header>\n<h1>{}</h1>\n", t.lesson,
                                  html_escape(lesson_heading(t, o)));
    out += fmt::format("<p class=\"scenario\">{}</p>\n", html_escape(scenario_words(t, o.language)));
    if (t.stages.size() > 1) {
        out += "<nav><ol>\n";
        for (const auto& s : t.stages)
            out += fmt::format("<li value=\"{}\"><a href=\"#{}\">{}</a></li>\n", s.index, anchor(t, s), html_prose(s.title));
        out += "</ol></nav>\n";
    }
    out += "</header>\n";
    for (const auto& s : t.stages) out += html_stage(t, s, o);
    for (const std::string& line : closing_lines(t, o.language)) out += fmt::format("<p class=\"next\">{}</p>\n", html_escape(line));
    return out + "</article>\n";
}

}  // namespace

std::string html_escape(std::string_view raw) {
    // A control character (ESC, CR, U+202E…) would drive a terminal that shows the page's source,
    // or reorder its text: it is written out (\x1b) like everywhere else.
    std::string s = escape_controls(raw, true);
    std::string out;
    out.reserve(s.size());
    for (char ch : s) {
        switch (ch) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += ch;
        }
    }
    return out;
}

std::string render_html(const std::vector<trace>& traces, const render_options& o) {
    std::string title = traces.size() == 1 ? lesson_heading(traces.front(), o)
                                           : fmt::format("qkv · {} {}", traces.size(), tr(o.language, "lessons"));
    std::string out = fmt::format("<!DOCTYPE html>\n<html lang=\"{}\">\n<head>\n<meta charset=\"utf-8\">\n"
                                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                                  "<meta name=\"generator\" content=\"qkv\">\n<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n",
                                  o.language == lang::zh ? "zh-Hans" : "en", html_escape(title), page_style);
    if (!o.preface.empty()) out += fmt::format("<pre class=\"preface\">{}</pre>\n", html_escape(o.preface));
    for (const trace& t : traces) out += article(t, o);
    return out + "</body>\n</html>\n";
}

}  // namespace qkv
