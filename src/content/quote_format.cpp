// Prose formats for quoted values (quote_format.hpp).
#include "quote_format.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "qkv/number_text.hpp"
#include "qkv/trim.hpp"

namespace qkv::quote_detail {

bool integral(double x) { return std::isfinite(x) && std::fabs(x) < 1e9 && x == std::round(x); }

std::optional<number_format> parse_format(std::string_view f) {
    f = trim(f);
    if (f.empty()) return number_format{};
    if (f == "d") return number_format{number_format::style::integer, 0};
    if (f == "%") return number_format{number_format::style::percent, 0};
    if (!f.starts_with('.') || f.size() < 2) return std::nullopt;
    std::size_t i = 1;
    int digits = 0;
    while (i < f.size() && std::isdigit(static_cast<unsigned char>(f[i])) && digits < 100) digits = digits * 10 + (f[i++] - '0');
    if (i == 1 || digits > 9) return std::nullopt;
    std::string_view rest = f.substr(i);
    if (rest.empty() || rest == "f") return number_format{number_format::style::fixed, digits};
    if (rest == "e") return number_format{number_format::style::scientific, digits};
    if (rest == "%") return number_format{number_format::style::percent, digits};
    if (rest == "g" && digits >= 1) return number_format{number_format::style::significant, digits};
    return std::nullopt;
}

std::string format_number(double x, number_format f) {
    if (std::isnan(x)) return "NaN";
    if (std::isinf(x)) return x > 0 ? "∞" : "−∞";
    switch (f.s) {
    case number_format::style::automatic:
        // whole numbers as they are (n = 3, same = 0), tiny ones in scientific, others with 2 decimals
        if (integral(x)) return number_text(x, number_style::whole);
        if (std::fabs(x) < 0.005) return number_text(x, number_style::scientific, 1);
        return number_text(x, number_style::fixed, 2);
    case number_format::style::fixed: return number_text(x, number_style::fixed, f.digits);
    case number_format::style::scientific: return number_text(x, number_style::scientific, f.digits);
    case number_format::style::percent: return number_text(x, number_style::percent, f.digits);
    case number_format::style::integer: return number_text(x, number_style::whole);
    case number_format::style::significant: {
        // the decimals that leave N significant digits, at most 9 (a weight of 1e-10 shows as 0)
        const int magnitude = x == 0 ? 0 : static_cast<int>(std::floor(std::log10(std::fabs(x))));
        return number_text(x, number_style::fixed, std::clamp(f.digits - 1 - magnitude, 0, 9));
    }
    }
    return {};
}

namespace {

// Prose quotes a few numbers, not a wall of them: "[a, b, c, …, y, z]" keeps the first `head` and
// the last `tail` of more than `most` items (a 64-wide query on a real-sized scenario).
template <class Item>
std::string bracketed(std::size_t count, std::size_t most, std::size_t head, std::size_t tail, Item item) {
    std::string out = "[";
    for (std::size_t i = 0; i < count; ++i) {
        if (count > most && i == head) {
            out += ", …";
            i = count - tail - 1;
            continue;
        }
        out += (i ? ", " : "") + item(i);
    }
    return out + "]";
}

std::string format_row(const matrix& m, std::size_t r, number_format f) {
    return bracketed(m.cols, 8, 3, 2, [&](std::size_t c) { return format_number(m(r, c), f); });
}

std::string format_matrix(const matrix& m, number_format f) {
    if (f.s == number_format::style::automatic) {
        bool whole = true;
        for (float x : m.data) whole = whole && integral(x);
        f = whole ? number_format{number_format::style::integer, 0} : number_format{number_format::style::fixed, 2};
    }
    if (m.rows == 1) return format_row(m, 0, f);
    if (m.cols == 1) return format_row(matrix(1, m.rows, m.data), 0, f);  // a column reads as a row
    return bracketed(m.rows, 4, 2, 1, [&](std::size_t r) { return format_row(m, r, f); });
}

}  // namespace

quoted format_value(const value& v, number_format f) {
    if (v.is_scalar()) return {format_number(v.number, f), v.number};
    if (v.is_matrix() && v.mat().size() == 1) return {format_number(v.mat().data[0], f), v.mat().data[0]};
    if (v.is_matrix()) return {format_matrix(v.mat(), f), std::nullopt};
    std::string out;
    for (std::size_t h = 0; h < v.mats.size(); ++h)
        out += fmt::format("{}head {}: {}", h ? "; " : "", h + 1, format_matrix(v.mats[h], f));
    return {out, std::nullopt};
}
}  // namespace qkv::quote_detail
