// The layout of one --present screen; it computes nothing. Tables and heatmaps come from the text
// renderer, one value at a time (render_value_lines), so the slide shows the same numbers as
// `qkv lesson`; here they are only packed and centred.
#include "qkv/present_frame.hpp"
#include "qkv/control_text.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/color.h>
#include <fmt/format.h>

#include "qkv/display_width.hpp"
#include "qkv/render_text.hpp"
#include "qkv/styled_text.hpp"
#include "qkv/token_span.hpp"
#include "qkv/wrap.hpp"
#include "ui_words.hpp"

namespace qkv {
namespace {

// --- the body: each value as a block, packed side by side -----------------------------------------

struct block {
    std::vector<std::string> lines;
    std::size_t width = 0;
};

block block_of(std::vector<std::string> lines) {
    block b;
    b.lines = std::move(lines);
    while (!b.lines.empty() && plain(b.lines.front()).empty()) b.lines.erase(b.lines.begin());
    while (!b.lines.empty() && plain(b.lines.back()).empty()) b.lines.pop_back();
    for (const auto& l : b.lines) b.width = std::max(b.width, visible_width(l));
    return b;
}

// The text renderer dims the token labels of a table, and dim text does not read on a projector
// (issue 40): on a slide they have the numbers' weight. Faint stays where it is a caption: a line
// that is one faint span from its first column (the axes under a name, "… 5 more heads") and the
// line of a name in bold ("S  [3, 3]  (output)"). Every other line of a value is its table: the
// column labels, each row's label before its numbers.
std::vector<std::string> labels_at_full_weight(std::vector<std::string> lines) {
    const std::string faint = style_on(fmt::emphasis::faint), bold = style_on(fmt::emphasis::bold);
    for (auto& line : lines) {
        const std::size_t end_of_span = line.find('\x1b', faint.size());  // the reset after the first span
        const bool caption = line.starts_with(faint) && end_of_span == line.rfind('\x1b') &&
                             plain(line.substr(end_of_span)).empty();
        if (!caption && !line.starts_with(bold)) line = without_style(line, fmt::emphasis::faint);
    }
    return lines;
}

// Each shown value (what the stage computes first: outputs_first) and each recorded sub-step as a
// block of its own. The axes go on a line of
// their own under the name, so a block is as narrow as its table and two of them fit side by
// side on 80 columns. Sub-steps past those `qkv lesson` shows in full share one block of a line each.
std::vector<block> value_blocks(const stage_trace& s, const render_options& o) {
    std::vector<block> out;
    for (auto& lines : render_stage_blocks(outputs_first(s), o, axes_place::own_line)) out.push_back(block_of(labels_at_full_weight(std::move(lines))));
    return out;
}

// Blocks left to right while they fit, then the next row; every row centred.
std::vector<std::string> pack(const std::vector<block>& blocks, std::size_t cols) {
    constexpr std::size_t gap = 4;
    std::vector<std::string> out;
    for (std::size_t i = 0; i < blocks.size();) {
        std::size_t j = i, w = 0;
        while (j < blocks.size() && (j == i || w + gap + blocks[j].width <= cols)) w += (j == i ? 0 : gap) + blocks[j].width, ++j;
        std::size_t h = 0;
        for (std::size_t k = i; k < j; ++k) h = std::max(h, blocks[k].lines.size());
        std::string margin(cols > w ? (cols - w) / 2 : 0, ' ');
        if (!out.empty()) out.emplace_back();
        for (std::size_t r = 0; r < h; ++r) {
            std::string line = margin;
            for (std::size_t k = i; k < j; ++k) {
                if (k > i) line += std::string(gap, ' ');
                line += pad_to(r < blocks[k].lines.size() ? blocks[k].lines[r] : "", blocks[k].width);
            }
            while (!line.empty() && line.back() == ' ') line.pop_back();
            out.push_back(clip(line, cols));
        }
        i = j;
    }
    return out;
}

std::string progress_bar(std::size_t k, std::size_t n, std::size_t cols, bool color) {
    std::string count = fmt::format(" {}/{}", k, n);
    std::size_t bar = cols > count.size() + 2 ? cols - count.size() - 2 : 0;
    std::size_t filled = n ? static_cast<std::size_t>(std::lround(static_cast<double>(bar) * k / n)) : 0;
    std::string done, todo;
    for (std::size_t i = 0; i < bar; ++i) (i < filled ? done : todo) += i < filled ? "━" : "─";
    return " " + styled(done, fmt::fg(fmt::terminal_color::cyan), color) + styled(todo, fmt::emphasis::faint, color) +
           styled(count, fmt::emphasis::bold, color);
}

// --- the frame: head, body, bottom line ----------------------------------------------------------

// Where we are (lesson, scenario, progress), the title with a rule under it, the formula.
std::vector<std::string> head_lines(const trace& t, const stage_trace& s, const render_options& o,
                                    std::size_t cols, bool roomy) {
    const bool c = o.color;
    std::vector<std::string> head;
    std::string where = lesson_line(t, o.language);
    std::string right = t.scenario.empty() ? "" : escape_controls(t.scenario) + " ";
    std::size_t room = cols > visible_width(right) + 2 ? cols - visible_width(right) - 2 : 0;
    head.push_back(pad_to(styled(clip(" " + where, room), fmt::emphasis::faint, c), room) + "  " + right);
    head.push_back(progress_bar(static_cast<std::size_t>(s.index), t.stage_count ? t.stage_count : t.stages.size(), cols, c));
    head.emplace_back();
    if (roomy) head.emplace_back();
    // The title stands out by weight, colour and a rule under it: a terminal has one font size.
    std::string title = clip(escape_controls(plain_tokens(s.title)), cols - 2);
    head.push_back(centred(styled(title, fmt::emphasis::bold | fmt::fg(fmt::terminal_color::bright_white), c), cols));
    std::string rule;
    for (std::size_t i = 0; i < visible_width(title); ++i) rule += "━";
    head.push_back(centred(styled(rule, fmt::fg(fmt::terminal_color::cyan), c), cols));
    head.emplace_back();
    std::vector<std::string> formula = split_lines(s.formula);
    for (auto& f : formula) f = escape_controls(f);
    while (!formula.empty() && formula.back().find_first_not_of(" \t") == std::string::npos) formula.pop_back();
    std::size_t fw = 0;
    for (auto& f : formula) fw = std::max(fw, visible_width(f));
    for (auto& f : formula)
        head.push_back(std::string(cols > fw ? (cols - fw) / 2 : 0, ' ') +
                       styled(clip(pad_to(f, fw), cols), fmt::emphasis::bold | fmt::fg(fmt::terminal_color::yellow), c));
    if (!formula.empty()) head.emplace_back();
    return head;
}

// The values, then the explanation (or the keys, when help is on).
std::vector<std::string> body_lines(const stage_trace& s, const render_options& o, std::size_t cols,
                                    const frame_state& st) {
    std::vector<std::string> body;
    if (st.help) return help_panel(o.language, key_set::presenter, cols, true);
    render_options vo = o;
    vo.width = cols > 4 ? cols - 4 : cols;
    body = pack(value_blocks(s, vo), cols);
    if (st.text && s.text.find_first_not_of(" \t\r\n") != std::string::npos) {
        std::size_t tw = std::min<std::size_t>(cols > 4 ? cols - 4 : cols, 78);
        auto lines = reflow(s.text, tw);
        std::size_t lw = 0;
        for (auto& l : lines) lw = std::max(lw, display_width(l));
        if (!body.empty()) body.emplace_back();
        for (auto& l : lines) body.push_back(std::string((cols - lw) / 2, ' ') + styled(escape_controls(l), fmt::emphasis::faint, o.color));
    }
    return body;
}

}  // namespace

std::vector<std::string> present_frame(const trace& t, std::size_t stage, const render_options& o,
                                       std::size_t cols, std::size_t rows, frame_state& st) {
    cols = std::max<std::size_t>(cols, 20), rows = std::max<std::size_t>(rows, 8);
    const stage_trace& s = t.stages.at(stage);
    frame_parts p;
    p.head = head_lines(t, s, o, cols, rows >= 30);
    if (st.help) p.head.resize(3);  // where we are; the key list takes the rest of the screen
    p.body = body_lines(s, o, cols, st);
    p.keys = ui::say(o.language, ui::present_keys);
    p.short_keys = ui::say(o.language, ui::present_keys_short);
    p.centre_body = true;
    p.color = o.color;
    return lay_out_frame(p, cols, rows, st);
}

}  // namespace qkv
