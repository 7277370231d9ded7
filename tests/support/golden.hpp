// Golden text compared as a reader would: words, labels and layout exactly, numbers as numbers.
// OpenBLAS picks its kernel per CPU (and from OPENBLAS_CORETYPE), and kernels round differently in
// the last bits, so a printed decimal may move by one unit of its last place from one machine to
// another; a printed rounding error (1.76e-07 against 1.68e-07) is itself made of those last bits,
// so it may move within its order of magnitude.
#pragma once

#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace qkv::test {

namespace golden_detail {

// A line cut into text and numbers: a number is an optional '-', digits, optionally '.' and
// digits, optionally an exponent. A digit run glued to a letter or '_' (d_k, W_Q, 2x) is text.
struct piece {
    std::string text;
    bool number = false;
};

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_word(char c) { return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

inline std::vector<piece> cut(std::string_view line) {
    std::vector<piece> out;
    auto add_text = [&](char c) {
        if (out.empty() || out.back().number) out.push_back({"", false});
        out.back().text += c;
    };
    std::size_t i = 0;
    while (i < line.size()) {
        const bool starts_number = is_digit(line[i]) || (line[i] == '-' && i + 1 < line.size() && is_digit(line[i + 1]));
        if (!starts_number || (i > 0 && is_word(line[i - 1]))) {
            add_text(line[i++]);
            continue;
        }
        std::size_t j = i + (line[i] == '-');
        while (j < line.size() && is_digit(line[j])) ++j;
        if (j + 1 < line.size() && line[j] == '.' && is_digit(line[j + 1])) {
            ++j;
            while (j < line.size() && is_digit(line[j])) ++j;
        }
        if (j + 1 < line.size() && (line[j] == 'e' || line[j] == 'E')) {
            std::size_t k = j + 1 + (line[j + 1] == '-' || line[j + 1] == '+');
            if (k < line.size() && is_digit(line[k])) {
                j = k;
                while (j < line.size() && is_digit(line[j])) ++j;
            }
        }
        if (j < line.size() && is_word(line[j])) {  // 3x, 2nd, 64d: a word, not a number
            while (i < j) add_text(line[i++]);
            continue;
        }
        out.push_back({std::string(line.substr(i, j - i)), true});
        i = j;
    }
    return out;
}

inline int decimals(const std::string& n) {
    const auto dot = n.find('.');
    if (dot == std::string::npos) return 0;
    int d = 0;
    for (std::size_t k = dot + 1; k < n.size() && is_digit(n[k]); ++k) ++d;
    return d;
}

inline bool scientific(const std::string& n) { return n.find_first_of("eE") != std::string::npos; }

// Equal as printed numbers: within one unit of the last printed decimal (of the finer of the two);
// in scientific notation, within one order of magnitude, or both at most 1e-5, which is rounding
// noise for float32 on values of order one (epsilon 1.19e-07, summed over a few hundred terms): a
// difference that is 5.96e-08 on one kernel is exactly 0 on another.
// An integer is a count (a shape, a stage number, an index) and must be exact.
inline bool same_number(const std::string& a, const std::string& b) {
    if (a == b) return true;
    const double x = std::strtod(a.c_str(), nullptr), y = std::strtod(b.c_str(), nullptr);
    if (scientific(a) || scientific(b)) {
        if (std::max(std::abs(x), std::abs(y)) <= 1e-5) return true;
        if (x == 0 || y == 0 || (x < 0) != (y < 0)) return false;
        return std::abs(std::log10(std::abs(x)) - std::log10(std::abs(y))) <= 1.0;
    }
    if (decimals(a) == 0 && decimals(b) == 0) return false;
    const double unit = std::pow(10.0, -std::max(decimals(a), decimals(b)));
    return std::abs(x - y) <= unit * (1 + 1e-9);
}

// A heatmap cell without colour is its weight printed as one of five shades (blank ░ ▒ ▓ █), a
// number with one digit in base 4: like a decimal, it may move by one step of its scale.
inline int shade_level(char32_t c) {
    switch (c) {
        case U' ': return 0;
        case U'░': return 1;
        case U'▒': return 2;
        case U'▓': return 3;
        case U'█': return 4;
        default: return -1;
    }
}

inline std::u32string code_points(const std::string& s) {
    std::u32string out;
    for (std::size_t i = 0; i < s.size();) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        const int len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        char32_t cp = len == 1 ? c : c & (0x7F >> len);
        for (int k = 1; k < len && i + k < s.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
        out += cp;
        i += static_cast<std::size_t>(len);
    }
    return out;
}

inline bool same_but_shades(const std::string& a, const std::string& b) {
    const auto x = code_points(a), y = code_points(b);
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (x[i] == y[i]) continue;
        const int p = shade_level(x[i]), q = shade_level(y[i]);
        if (p < 0 || q < 0 || std::abs(p - q) > 1) return false;
    }
    return true;
}

// Why two lines differ, or nothing when they agree. A number whose printed width changed
// (-0.0000 against 0.0000) may shift the spaces beside it by that much.
inline std::optional<std::string> line_difference(std::string_view got, std::string_view want) {
    if (got == want) return std::nullopt;
    const auto g = cut(got), w = cut(want);
    if (g.size() != w.size()) return "the text differs";
    long slack = 0;  // how far the printed widths of the line's numbers moved, in all
    for (std::size_t i = 0; i < g.size(); ++i) {
        if (g[i].number != w[i].number) return "the text differs";
        if (g[i].number) slack += std::labs(static_cast<long>(g[i].text.size()) - static_cast<long>(w[i].text.size()));
    }
    for (std::size_t i = 0; i < g.size(); ++i) {
        if (g[i].number) {
            if (!same_number(g[i].text, w[i].text)) return "the number " + g[i].text + " is not " + w[i].text;
        } else if (g[i].text != w[i].text && !same_but_shades(g[i].text, w[i].text)) {
            // the spaces that pad a number may differ, the words between them may not
            auto core = [](const std::string& t) {
                const auto a = t.find_first_not_of(' '), b = t.find_last_not_of(' ');
                return a == std::string::npos ? std::string() : t.substr(a, b - a + 1);
            };
            slack -= std::labs(static_cast<long>(g[i].text.size()) - static_cast<long>(w[i].text.size()));
            if (core(g[i].text) != core(w[i].text) || slack < 0) return "the text differs";
        }
    }
    return std::nullopt;
}

inline std::vector<std::string_view> lines(std::string_view s) {
    std::vector<std::string_view> out;
    while (!s.empty()) {
        const auto nl = s.find('\n');
        out.push_back(s.substr(0, nl));
        if (nl == std::string_view::npos) break;
        s.remove_prefix(nl + 1);
    }
    return out;
}

}  // namespace golden_detail

// Nothing when got reads as golden; otherwise the first line that differs, both versions, and why.
inline std::optional<std::string> golden_difference(std::string_view got, std::string_view golden) {
    const auto g = golden_detail::lines(got), w = golden_detail::lines(golden);
    for (std::size_t i = 0; i < std::max(g.size(), w.size()); ++i) {
        const std::string_view a = i < g.size() ? g[i] : "<end of output>";
        const std::string_view b = i < w.size() ? w[i] : "<end of golden>";
        auto why = i < g.size() && i < w.size() ? golden_detail::line_difference(a, b)
                                                : std::optional<std::string>("the line counts differ");
        if (why)
            return "line " + std::to_string(i + 1) + ": " + *why + "\n  got:    " + std::string(a) +
                   "\n  golden: " + std::string(b);
    }
    if (got.ends_with('\n') != golden.ends_with('\n')) return std::string("the final newline differs");
    return std::nullopt;
}

}  // namespace qkv::test
