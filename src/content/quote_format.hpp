// How prose quotes a value (quote.cpp): a number in a format (".2", ".4e", "%", "d" or the
// automatic one), a row or a small matrix in brackets, the ends of a long one around "…".
// Private to src/content.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "qkv/value.hpp"

namespace qkv::quote_detail {

struct number_format {
    enum class style { automatic, fixed, scientific, percent, integer, significant };
    style s = style::automatic;
    int digits = 2;
};

// "" (automatic), ".N" or ".Nf" (N decimals), ".Ne" (scientific), "%" or ".N%" (percent), "d",
// ".Ng" (N significant digits, without an exponent: 0.00512, 12.2; parts a ratio is redone from);
// nothing for anything else.
std::optional<number_format> parse_format(std::string_view f);

// A finite whole number of at most 9 digits: printed without decimals, usable as an index.
bool integral(double x);

// Automatic: a whole number as it is (n = 3, same = 0), one under 0.005 in scientific, others
// with 2 decimals. Never "-0.00".
std::string format_number(double x, number_format f);

// A quote's text, and its number when it is one (comparisons in {if} use it); a token of the
// sentence also has its position in its sentence, from 1, and whether its name comes again there.
struct quoted {
    std::string text;
    std::optional<double> number;
    std::optional<std::size_t> token_at;
    bool token_repeated = false;

    quoted() = default;
    quoted(std::string t, std::optional<double> n) : text(std::move(t)), number(n) {}
};

quoted format_value(const value& v, number_format f);

}  // namespace qkv::quote_detail
