// What the text and Markdown renderers share: how one number is written, the labels of an axis,
// which indices survive eliding, and the "rows: queries · columns: keys" phrase. Private to src/.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "qkv/i18n.hpp"
#include "qkv/number_text.hpp"
#include "qkv/token_span.hpp"
#include "qkv/trace.hpp"
#include "qkv/value.hpp"

namespace qkv::detail {

// Marks the place of "…" in a list of shown indices.
inline constexpr std::size_t gap = static_cast<std::size_t>(-1);

// Fixed decimals, so equal-width right-aligned cells line up at the point (and a value that
// rounds to zero has no sign: number_text.hpp). From a million up, scientific with as many
// decimals: near 3e38 fixed decimals take 45 columns a cell ("1.8844e+38" takes 10).
inline std::string format_number(float x, int precision) {
    if (std::isnan(x)) return "nan";
    if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
    if (std::fabs(x) >= 1e6f) return number_text(x, number_style::scientific, precision);
    return number_text(x, number_style::fixed, precision);
}

// A scalar on its own line: whole numbers without decimals ("d_k = 4"), and numbers too small for
// the chosen decimals in scientific form ("1.19e-07", not "0.0000": a difference must stay visible).
inline std::string format_scalar(float x, int precision) {
    if (std::isfinite(x) && x == std::nearbyint(x) && std::fabs(x) < 1e15f) return number_text(x, number_style::whole);
    if (std::isfinite(x) && x != 0.0f && std::fabs(x) < std::pow(10.0f, -precision))
        return number_text(x, number_style::scientific, 2);
    return format_number(x, precision);
}

// The names of an axis of length n: its labels, or 1..n counted as the lessons count (s_23). A
// label that comes twice carries its position as a subscript, as the prose writes that token
// (token_span.hpp): the rows “the”₁ and “the”₅, not "the" twice. Without `mark_repeats`, the
// labels as they are (a compact heatmap's two-column header, where the order says the place).
inline std::vector<std::string> axis_names(const labels& l, std::size_t n, lang language = lang::en, bool mark_repeats = true) {
    if (l.names.size() == n) {
        std::vector<std::string> out = l.names;
        if (l.words)
            for (std::string& name : out) name = tr(language, name);
        for (std::size_t i = 0; i < n && mark_repeats; ++i)
            if (!l.names[i].empty() && std::count(l.names.begin(), l.names.end(), l.names[i]) > 1) out[i] += subscript(i + 1);
        return out;
    }
    std::vector<std::string> out;
    for (std::size_t i = 0; i < n; ++i) out.push_back(std::to_string(i + 1));
    return out;
}

// All of 0..n-1, or the first `head` and the last `tail` with a gap between them.
inline std::vector<std::size_t> shown_indices(std::size_t n, bool elide, std::size_t head,
                                              std::size_t tail) {
    std::vector<std::size_t> out;
    if (!elide || n <= head + tail + 1) {
        for (std::size_t i = 0; i < n; ++i) out.push_back(i);
        return out;
    }
    for (std::size_t i = 0; i < head; ++i) out.push_back(i);
    out.push_back(gap);
    for (std::size_t i = n - tail; i < n; ++i) out.push_back(i);
    return out;
}

// "rows: queries · columns: keys", either half left out when its axis has no tag.
inline std::string axes_phrase(lang l, const value& v) {
    std::string out;
    if (!v.rows.axis.empty()) out = fmt::format("{}: {}", tr(l, "rows"), tr(l, v.rows.axis));
    if (!v.cols.axis.empty()) {
        if (!out.empty()) out += " · ";
        out += fmt::format("{}: {}", tr(l, "columns"), tr(l, v.cols.axis));
    }
    return out;
}

// The "7" of "3/7": the lesson's stage count, which --stage K keeps when it drops the others.
inline std::size_t stage_total(const trace& t) {
    return t.stage_count ? t.stage_count : t.stages.size();
}

inline std::string role_word(lang l, role r) {
    return tr(l, r == role::input ? "input" : "output");
}

}  // namespace qkv::detail
