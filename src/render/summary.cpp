// Which heads are shown in full, and the one-line facts about the others and about summarised
// sub-steps. The facts pick entries of the trace (the largest weight of a row, the smallest and
// largest entry); they compute no new number.
#include "summary.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "qkv/display_width.hpp"

namespace qkv::detail {
namespace {

// Lines of text one head takes: its "head k" label, the table (header and rows), and for weights
// the heatmap (a blank line, header, rows, legend).
std::size_t head_lines(const matrix& m, bool weights, bool full) {
    std::size_t table = 1 + text_rows(m.rows, full).size();
    return 1 + table + (weights ? 2 + table : 0);
}

// "苹果→甜": row r and the column where its weight is largest (NaN never wins); "" for no column.
std::string most_weighed(const matrix& m, const value& v, std::size_t r) {
    std::size_t best = m.cols;
    for (std::size_t c = 0; c < m.cols; ++c)
        if (std::isfinite(m(r, c)) && (best == m.cols || m(r, c) > m(r, best))) best = c;
    if (best == m.cols) return "";
    return axis_names(v.rows, m.rows)[r] + "→" + axis_names(v.cols, m.cols)[best];
}

// The key each query weighs most, as many as fit in `room` columns, then "…" for the rest.
std::string weights_fact(const matrix& m, const value& v, const render_options& o, std::size_t room) {
    std::string out = tr(o.language, "looks most at: ");
    bool first = true;
    for (std::size_t r = 0; r < m.rows; ++r) {
        std::string item = most_weighed(m, v, r);
        if (item.empty()) continue;
        std::string next = out + (first ? "" : " · ") + item;
        if (display_width(next) + (r + 1 < m.rows ? 4 : 0) > room) return out + (first ? "…" : " · …");
        out = std::move(next), first = false;
    }
    return out;
}

std::string range_fact(const matrix& m, const render_options& o) {
    bool any = false;
    float lo = 0, hi = 0;
    for (float x : m.data)
        if (std::isfinite(x)) lo = any ? std::min(lo, x) : x, hi = any ? std::max(hi, x) : x, any = true;
    if (!any) return "";
    return fmt::format("{} {} · {} {}", tr(o.language, "min"), format_number(lo, o.precision),
                       tr(o.language, "max"), format_number(hi, o.precision));
}

}  // namespace

std::size_t stacks_in(const stage_trace& s) {
    return static_cast<std::size_t>(std::count_if(s.values.begin(), s.values.end(), [](const shown_value& sv) { return sv.v.is_stack(); }));
}

std::size_t heads_in_full(const value& v, bool full, std::size_t stacks_in_stage) {
    const std::size_t budget = std::min<std::size_t>(24, 48 / std::max<std::size_t>(stacks_in_stage, 1));
    if (!v.is_stack() || full) return v.mats.size();
    std::size_t total = v.mats.size() - 1;  // the blank lines between heads
    for (const matrix& m : v.mats) {
        if (text_rows(m.rows, false).size() < m.rows) return 1;  // a tall head: a wall already
        total += head_lines(m, v.weights, false);
    }
    return total <= budget ? v.mats.size() : 1;
}

std::string head_fact(const value& v, std::size_t h, const render_options& o, std::size_t room) {
    const matrix& m = v.mats.at(h);
    if (m.rows == 0 || m.cols == 0) return "";
    return v.weights ? weights_fact(m, v, o, room) : range_fact(m, o);
}

std::vector<std::string> step_parts(const sub_step& s, const render_options& o) {
    std::vector<std::string> out, names;
    std::string shape;
    auto flush = [&] {
        if (names.empty()) return;
        std::string joined = names.front();
        for (std::size_t i = 1; i < names.size(); ++i) joined += ", " + names[i];
        out.push_back(joined + " " + shape);
        names.clear();
    };
    for (const auto& [name, v] : s.values) {
        if (v.is_scalar()) {
            flush();
            out.push_back(name + " = " + format_scalar(v.number, o.precision));
        } else if (v.is_matrix() && v.mat().data.size() <= 3) {  // as short as its shape: the numbers
            flush();
            std::string numbers;
            for (float x : v.mat().data) numbers += (numbers.empty() ? "" : ", ") + format_number(x, o.precision);
            out.push_back(name + " = [" + numbers + "]");
        } else if (v.weights && v.is_matrix() && v.mat().rows == 1) {
            flush();
            out.push_back(name + " " + v.shape_str() + " " + most_weighed(v.mat(), v, 0));
        } else {
            if (v.shape_str() != shape) flush(), shape = v.shape_str();
            names.push_back(name);
        }
    }
    flush();
    return out;
}

std::string full_note_heads(lang l) {
    return tr(l, "(--full shows every head in full)");
}

std::string full_note_steps(lang l) {
    return tr(l, "(--full shows every step in full)");
}

}  // namespace qkv::detail
