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

value_plan plan_value(const std::string& name, const value& v, const render_options& o) {
    value_plan out;
    const std::size_t first = heads_in_full(v, o.full, o.stacks_here);
    for (std::size_t h = 0; h < first; ++h) out.heads.push_back(h);
    std::vector<std::vector<std::size_t>> extra(v.mats.size());  // quoted rows to show beside text_rows
    std::vector<std::vector<std::size_t>> cols(v.mats.size());   // and their columns
    auto in_full = [&](std::size_t h) { return std::find(out.heads.begin(), out.heads.end(), h) != out.heads.end(); };
    auto row_shown = [&](std::size_t h, std::size_t r) {  // a head brought in for a quote shows its quoted rows alone
        const auto base = h < first ? text_rows(v.mats[h].rows, o.full) : std::vector<std::size_t>{};
        return std::find(base.begin(), base.end(), r) != base.end() ||
               std::find(extra[h].begin(), extra[h].end(), r) != extra[h].end();
    };
    std::vector<quote_source> places;  // this value's, grouped by quote (quote.cpp records them in order)
    if (o.quoted_here)
        for (const quote_source& q : *o.quoted_here)
            if (q.name == name && q.head < v.mats.size() && q.row < v.mats[q.head].rows) places.push_back(q);
    std::size_t added = 0;
    bool tall = false;
    for (const matrix& m : v.mats) tall = tall || text_rows(m.rows, o.full).size() < m.rows;
    for (std::size_t i = 0; i < places.size();) {
        std::size_t end = i;
        bool shown = false;
        for (; end < places.size() && places[end].quote == places[i].quote; ++end)
            if (!shown && in_full(places[end].head) && row_shown(places[end].head, places[end].row)) {
                shown = true;
                extra[places[end].head].push_back(places[end].row);  // kept when the ends give way
                cols[places[end].head].push_back(places[end].col);
            }
        if (!shown) {
            // a head already in full that has the number gets its row; else the first place's head
            std::size_t pick = i;
            for (std::size_t k = i; k < end; ++k)
                if (in_full(places[k].head)) {
                    pick = k;
                    break;
                }
            const quote_source& p = places[pick];
            if (!in_full(p.head) && added < 2 && !tall) out.heads.push_back(p.head), ++added;
            if (in_full(p.head)) extra[p.head].push_back(p.row), cols[p.head].push_back(p.col);
            else out.hidden.push_back(p);
        }
        i = end;
    }
    std::sort(out.heads.begin(), out.heads.end());
    for (std::size_t h : out.heads) {
        const bool partial = h >= first;  // a head brought in for a quote: its quoted rows alone
        std::vector<std::size_t> rows = partial ? with_rows({}, extra[h]) : text_rows_keeping(v.mats[h].rows, o.full, extra[h]);
        if (partial && !rows.empty() && rows.front() != 0) rows.insert(rows.begin(), gap);
        if (partial && !rows.empty() && rows.back() + 1 != v.mats[h].rows) rows.push_back(gap);
        out.rows.push_back(std::move(rows));
        out.partial.push_back(partial);
        out.quoted_rows.push_back(extra[h]);
        out.quoted_cols.push_back(cols[h]);
    }
    return out;
}

std::vector<std::size_t> text_rows_keeping(std::size_t n, bool full, const std::vector<std::size_t>& kept) {
    const std::vector<std::size_t> base = text_rows(n, full);
    std::vector<std::size_t> out = with_rows(base, kept);
    if (base.size() == n) return out;  // nothing elided
    // fewer rows at the ends, down to one each, until the table is no taller than before
    std::size_t head = n > 32 ? 4 : 5, tail = head;
    while (out.size() > base.size() && (head > 1 || tail > 1)) {
        if (tail >= head && tail > 1) --tail;
        else --head;
        out = with_rows(shown_indices(n, true, head, tail), kept);
    }
    return out;
}

std::vector<std::size_t> with_rows(const std::vector<std::size_t>& shown, const std::vector<std::size_t>& kept) {
    std::vector<std::size_t> all;
    for (std::size_t r : shown)
        if (r != gap) all.push_back(r);
    all.insert(all.end(), kept.begin(), kept.end());
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    std::vector<std::size_t> out;
    for (std::size_t k = 0; k < all.size(); ++k) {
        if (k && all[k] > all[k - 1] + 1) out.push_back(gap);
        out.push_back(all[k]);
    }
    return out;
}

std::string hidden_note(const value& v, const quote_source& at, lang l) {
    const matrix& m = v.mats.at(at.head);
    const std::string row = axis_names(v.rows, m.rows)[at.row], col = axis_names(v.cols, m.cols)[at.col];
    std::string where;
    if (v.is_stack()) where = fmt::format(fmt::runtime(tr(l, "{} {}, ")), tr(l, stack_item(v)), at.head + 1);
    where += fmt::format(fmt::runtime(tr(l, "row {} “{}”, column {} “{}”")), at.row + 1, row,
                         at.col + 1, col);
    return fmt::format(fmt::runtime(tr(l, "(--full shows a number the text quotes: {})")), where);
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
