// UTF-8 boundaries, counts and decoding: the one place that knows how the bytes of a character go.
#include "qkv/utf8.hpp"

namespace qkv::utf8 {

std::size_t next(std::string_view s, std::size_t i) {
    ++i;
    while (i < s.size() && continues(s[i])) ++i;
    return i;
}

std::size_t start_of(std::string_view s, std::size_t i) {
    while (i > 0 && i < s.size() && continues(s[i])) --i;
    return i;
}

std::size_t boundary_from(std::string_view s, std::size_t i) {
    while (i < s.size() && continues(s[i])) ++i;
    return i;
}

std::string_view head(std::string_view s, std::size_t bytes) {
    return bytes >= s.size() ? s : s.substr(0, start_of(s, bytes));
}

std::size_t count(std::string_view s) {
    std::size_t n = 0;
    for (char c : s) n += !continues(c);
    return n;
}

decoded decode(std::string_view s, std::size_t i) {
    const auto b = static_cast<unsigned char>(s[i]);
    const std::size_t n = b < 0x80 ? 1 : (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 0;
    const decoded stray{b, 1, false};
    if (n == 0 || i + n > s.size()) return stray;
    char32_t cp = n == 1 ? b : b & (0xFF >> (n + 1));
    for (std::size_t k = 1; k < n; ++k) {
        if (!continues(s[i + k])) return stray;
        cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    }
    constexpr char32_t least[] = {0, 0, 0x80, 0x800, 0x10000};  // below: an overlong form
    if (cp < least[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return stray;
    return {cp, n, true};
}

bool valid(std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
        const decoded d = decode(s, i);
        if (!d.ok) return false;
        i += d.length;
    }
    return true;
}

}  // namespace qkv::utf8
