// A token of the sentence quoted in prose ({token(2)}, {top(A, 1)}) is set off as a token, so that
// "its weight on the went up" cannot happen: text shows it in quotes, “the”, markdown as code and
// html in the page's token style. A token that occurs more than once in its sentence carries its
// position ("the" at 1 and at 5 are different rows): “the”₅.
//
// The span travels inside the filled text, between private-use characters no renderer shows
// (U+E000, the name, its position as U+E010 + digit each, U+E001); a name can hold none of them.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace qkv {

// U+E000 and U+E001 in UTF-8: what opens and closes a span.
inline constexpr std::string_view token_span_open = "\xEE\x80\x80", token_span_close = "\xEE\x80\x81";

// A token of the sentence as a span of prose; position 0: the only one of its name.
std::string token_span(std::string_view name, std::size_t position = 0);

struct token_piece {
    std::string_view name;
    std::size_t position = 0;
};

// The text with every span replaced by token(span) and every stretch between spans by plain(it).
std::string map_tokens(std::string_view text, const std::function<std::string(std::string_view)>& plain,
                       const std::function<std::string(const token_piece&)>& token);

// As text shows it: every token in quotes, with its position as a subscript when it has one.
std::string plain_tokens(std::string_view text);

// "₁₂": a position as subscript digits.
std::string subscript(std::size_t n);

// The code point U+E000 … U+E01F of a span's marks, which show nothing: what joining lines and
// measuring look through.
constexpr bool token_mark(char32_t c) { return c >= 0xE000 && c <= 0xE01F; }

}  // namespace qkv
