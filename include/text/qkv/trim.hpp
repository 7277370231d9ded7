// White space off the ends of a piece of text: what a reader of typed or written input ignores
// around a value, a quote or a line.
#pragma once

#include <string_view>

namespace qkv {

// The ASCII white space (space, tab, line feed, vertical tab, form feed, carriage return): what
// std::isspace says in the "C" locale, without asking the locale.
inline constexpr std::string_view white_space = " \t\n\v\f\r";

inline std::string_view trim_end(std::string_view s) {
    const std::size_t end = s.find_last_not_of(white_space);
    return end == std::string_view::npos ? std::string_view() : s.substr(0, end + 1);
}

inline std::string_view trim(std::string_view s) {
    const std::size_t start = s.find_first_not_of(white_space);
    return start == std::string_view::npos ? std::string_view() : trim_end(s.substr(start));
}

}  // namespace qkv
