// Splitting a lesson text into literal parts and {…} parts (quote_parts.hpp) in one pass: each '}'
// is looked for once, so a text of many unclosed '{' stays linear.
#include "quote_parts.hpp"

#include <cctype>

#include "qkv/trim.hpp"

namespace qkv::quote_detail {
namespace {

part classify(std::string_view inside, std::size_t offset) {
    std::string_view t = trim(inside);
    if (t.starts_with('=')) return {part::kind::constant, std::string(t.substr(1)), offset};
    if (t == "else") return {part::kind::else_, "", offset};
    if (t == "end") return {part::kind::end, "", offset};
    if (t.starts_with("if") && t.size() > 2 && (std::isspace(static_cast<unsigned char>(t[2])) || t[2] == '('))
        return {part::kind::if_, std::string(trim(t.substr(2))), offset};
    return {part::kind::quote, std::string(t), offset};
}

}  // namespace

std::vector<part> split_parts(std::string_view text, const reporter& report) {
    std::vector<part> out;
    std::string literal;
    std::size_t literal_start = 0;
    auto flush = [&](std::size_t next) {
        if (!literal.empty()) out.push_back({part::kind::literal, literal, literal_start});
        literal.clear();
        literal_start = next;
    };
    // The next '}' after i only moves forward as i does: found once per '}', not once per '{'
    // (10 000 unclosed '{' would each search the rest of the text).
    std::size_t next_close = 0;
    auto close_after = [&](std::size_t i) {
        if (next_close != std::string_view::npos && next_close <= i) next_close = text.find('}', i + 1);
        return next_close;
    };
    for (std::size_t i = 0; i < text.size();) {
        char c = text[i];
        bool doubled = i + 1 < text.size() && text[i + 1] == c;
        if (c == '{' && i > 0 && (text[i - 1] == '_' || text[i - 1] == '^')) {
            // h_{t−1}, e^{x}: a subscript or exponent in math, written as is up to its '}'
            std::size_t close = close_after(i);
            std::size_t end = close == std::string_view::npos ? text.size() : close + 1;
            if (literal.empty()) literal_start = i;
            literal += text.substr(i, end - i);
            i = end;
        } else if ((c == '{' || c == '}') && doubled) {
            literal += c;
            i += 2;
        } else if (c == '}') {
            report(i, "a lone '}': write }} for a brace");
            literal += c;
            ++i;
        } else if (c == '{') {
            std::size_t close = close_after(i);
            std::size_t open = close == std::string_view::npos ? close : text.substr(0, close).find('{', i + 1);
            if (close == std::string_view::npos || open != std::string_view::npos) {
                report(i, "a '{' that is never closed: a quote is {…} on one piece of text; write {{ for a brace");
                literal += c;
                ++i;
                continue;
            }
            flush(close + 1);
            std::string_view inside = text.substr(i + 1, close - i - 1);
            if (trim(inside).empty()) report(i, "an empty quote {}");
            else out.push_back(classify(inside, i));
            i = close + 1;
        } else {
            if (literal.empty()) literal_start = i;
            literal += c;
            ++i;
        }
    }
    flush(text.size());
    return out;
}

}  // namespace qkv::quote_detail
