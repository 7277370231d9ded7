// UTF-8 as the text of lessons, formulas, arguments and messages is: where a character starts and
// ends, how many there are, what one is, and whether bytes are well-formed at all. A byte that
// starts no well-formed character counts as a character of its own, so text cut or counted here
// never splits one that is.
#pragma once

#include <cstddef>
#include <string_view>

namespace qkv::utf8 {

// A byte that continues a character (10xxxxxx) rather than starting one.
constexpr bool continues(char byte) { return (static_cast<unsigned char>(byte) & 0xC0) == 0x80; }

// The end of the character that starts at s[i] (i < s.size()): past its continuation bytes.
std::size_t next(std::string_view s, std::size_t i);
// The start of the character that holds s[i], i itself when it starts one (i <= s.size()).
std::size_t start_of(std::string_view s, std::size_t i);
// The first character boundary at or after i (i <= s.size()).
std::size_t boundary_from(std::string_view s, std::size_t i);
// At most `bytes` bytes of s, fewer so as not to end inside a character.
std::string_view head(std::string_view s, std::size_t bytes);
// How many characters s holds.
std::size_t count(std::string_view s);

// The character at s[i]: its code point and length; a byte that starts no well-formed character
// (stray, cut short, overlong, a surrogate, past U+10FFFF) is {that byte, 1, false}.
struct decoded {
    char32_t code = 0;
    std::size_t length = 1;
    bool ok = true;
};
decoded decode(std::string_view s, std::size_t i);

// Well-formed UTF-8 and nothing else: what TOML and JSON allow.
bool valid(std::string_view s);

}  // namespace qkv::utf8
