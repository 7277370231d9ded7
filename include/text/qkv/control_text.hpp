// Characters from files and arguments that would drive a terminal instead of showing: C0 and C1
// controls (ESC, BEL, CR, BS, NUL…), DEL, and the bidi controls that reorder a line (U+202E…).
// The renderers show them escaped (\x1b, \u202e); `qkv validate` warns about them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "qkv/utf8.hpp"

namespace qkv {

// The control character at s[i], if there is one: its length in bytes and its code point; {0, 0}
// when s[i] starts an ordinary character (text here is UTF-8: the readers reject anything else).
struct control_at {
    std::size_t length = 0;
    std::uint32_t code = 0;
};

inline control_at find_control_at(std::string_view s, std::size_t i) {
    auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    unsigned char c = b(i);
    if (c < 0x20 || c == 0x7F) return {1, c};
    if (c < 0x80) return {};
    // C1 controls U+0080–U+009F are C2 80 … C2 9F.
    if (c == 0xC2 && i + 1 < s.size() && b(i + 1) >= 0x80 && b(i + 1) <= 0x9F) return {2, b(i + 1)};
    // U+061C (D8 9C), U+200E/F (E2 80 8E/8F), U+202A–E (E2 80 AA–AE), U+2066–9 (E2 81 A6–A9).
    if (c == 0xD8 && i + 1 < s.size() && b(i + 1) == 0x9C) return {2, 0x061C};
    if (c == 0xE2 && i + 2 < s.size()) {
        unsigned char m = b(i + 1), l = b(i + 2);
        if (m == 0x80 && (l == 0x8E || l == 0x8F || (l >= 0xAA && l <= 0xAE))) return {3, 0x2000u + (l - 0x80u)};
        if (m == 0x81 && l >= 0xA6 && l <= 0xA9) return {3, 0x2040u + (l - 0x80u)};
    }
    return {};
}

// How a control is written out: \x1b for one below 0x80 (and for a byte that is no character at
// all, as_byte), \u202e for any other.
inline std::string escaped_control(control_at k, bool as_byte = false) {
    constexpr char hex[] = "0123456789abcdef";
    if (k.code < 0x80 || as_byte) return {'\\', 'x', hex[(k.code >> 4) & 0xF], hex[k.code & 0xF]};
    return {'\\', 'u', hex[(k.code >> 12) & 0xF], hex[(k.code >> 8) & 0xF], hex[(k.code >> 4) & 0xF], hex[k.code & 0xF]};
}

// s with every control written out: bytes below 0x80 as \xNN, other code points as \uNNNN; and a
// byte that starts no well-formed UTF-8 character (a file name in Latin-1) as \xNN, so that what
// is shown is text every format (JSON too) can hold. A line end stays one when keep_newlines
// (lesson prose has several lines); a tab always stays. The one escaping function for whatever
// leaves qkv for a reader.
inline std::string escape_controls(std::string_view s, bool keep_newlines = false) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        const utf8::decoded d = static_cast<unsigned char>(s[i]) < 0x80 ? utf8::decoded{} : utf8::decode(s, i);
        if (!d.ok) {
            out += escaped_control({1, static_cast<unsigned char>(s[i])}, true);
            ++i;
            continue;
        }
        control_at k = find_control_at(s, i);
        if (k.length == 0 || s[i] == '\t' || (keep_newlines && s[i] == '\n')) {
            out.append(s.substr(i, d.length));  // the whole character
            i += d.length;
            continue;
        }
        out += escaped_control(k);
        i += k.length;
    }
    return out;
}

// The first control in s other than tab and line end (what escape_controls writes out even in
// prose), or {0, 0}.
inline control_at first_control(std::string_view s) {
    for (std::size_t i = 0; i < s.size(); ++i)
        if (control_at k = find_control_at(s, i); k.length && s[i] != '\t' && s[i] != '\n') return k;
    return {};
}

}  // namespace qkv
