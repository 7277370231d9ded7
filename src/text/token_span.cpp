// Tokens set off in prose (token_span.hpp): their marks, and the text with them replaced.
#include "qkv/token_span.hpp"

#include "qkv/utf8.hpp"

namespace qkv {
namespace {

// U+E010 + d is the digit d of a span's position (UTF-8).
constexpr std::string_view open_mark = token_span_open, close_mark = token_span_close;

std::string mark_digit(int d) { return {'\xEE', '\x80', static_cast<char>(0x90 + d)}; }

// U+E000 … U+E01F as UTF-8 is EE 80 80 … EE 80 9F.
bool mark_at(std::string_view s, std::size_t i) {
    return i + 2 < s.size() && s[i] == '\xEE' && s[i + 1] == '\x80' && static_cast<unsigned char>(s[i + 2]) <= 0x9F;
}

}  // namespace

std::string token_span(std::string_view name, std::size_t position) {
    std::string out(open_mark);
    for (std::size_t i = 0; i < name.size();) {
        std::size_t end = utf8::next(name, i);
        out += mark_at(name, i) ? std::string_view("\xEF\xBF\xBD") : name.substr(i, end - i);  // U+FFFD for a forged mark
        i = end;
    }
    std::string digits = position ? std::to_string(position) : "";
    for (char d : digits) out += mark_digit(d - '0');
    return out + std::string(close_mark);
}

std::string map_tokens(std::string_view text, const std::function<std::string(std::string_view)>& plain,
                       const std::function<std::string(const token_piece&)>& token) {
    std::string out;
    std::size_t from = 0;
    while (from < text.size()) {
        std::size_t open = text.find(open_mark, from);
        std::size_t close = open == std::string_view::npos ? open : text.find(close_mark, open);
        if (close == std::string_view::npos) break;
        out += plain(text.substr(from, open - from));
        std::size_t name_end = open + open_mark.size(), position = 0;
        while (name_end < close && !mark_at(text, name_end)) name_end = utf8::next(text, name_end);
        for (std::size_t i = name_end; i < close; i += 3)  // the digits, between the name and the close
            position = position * 10 + static_cast<std::size_t>(static_cast<unsigned char>(text[i + 2]) - 0x90);
        out += token({text.substr(open + open_mark.size(), name_end - open - open_mark.size()), position});
        from = close + close_mark.size();
    }
    return out + plain(text.substr(from));
}

std::string subscript(std::size_t n) {
    static const char* const digits[] = {"₀", "₁", "₂", "₃", "₄", "₅", "₆", "₇", "₈", "₉"};
    std::string out;
    for (char d : std::to_string(n)) out += digits[d - '0'];
    return out;
}

std::string plain_tokens(std::string_view text) {
    return map_tokens(
        text, [](std::string_view s) { return std::string(s); },
        [](const token_piece& t) { return "“" + std::string(t.name) + "”" + (t.position ? subscript(t.position) : ""); });
}

}  // namespace qkv
