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

namespace {

// One pass over a text: literal characters gather until a quote {…} ends them.
class splitter {
public:
    splitter(std::string_view text, const reporter& report) : text_(text), report_(report) {}

    std::vector<part> run() {
        for (std::size_t i = 0; i < text_.size();) i = step(i);
        flush(text_.size());
        return std::move(out_);
    }

private:
    // Reads what starts at i; returns where the next piece starts.
    std::size_t step(std::size_t i) {
        const char c = text_[i];
        const bool doubled = i + 1 < text_.size() && text_[i + 1] == c;
        if (c == '{' && i > 0 && (text_[i - 1] == '_' || text_[i - 1] == '^')) {
            // h_{t−1}, e^{x}: a subscript or exponent in math, written as is up to its '}'
            const std::size_t close = close_after(i);
            const std::size_t end = close == std::string_view::npos ? text_.size() : close + 1;
            return literal(i, end);
        }
        if ((c == '{' || c == '}') && doubled) {
            literal_ += c;
            return i + 2;
        }
        if (c == '}') report_(i, "a lone '}': write }} for a brace");
        if (c == '{') return quote(i);
        return literal(i, i + 1);
    }

    std::size_t literal(std::size_t from, std::size_t to) {
        if (literal_.empty()) literal_start_ = from;
        literal_ += text_.substr(from, to - from);
        return to;
    }

    // A quote {…} at i, or a '{' never closed (kept as a literal character, and said).
    std::size_t quote(std::size_t i) {
        const std::size_t close = close_after(i);
        const std::size_t open = close == std::string_view::npos ? close : text_.substr(0, close).find('{', i + 1);
        if (close == std::string_view::npos || open != std::string_view::npos) {
            report_(i, "a '{' that is never closed: a quote is {…} on one piece of text; write {{ for a brace");
            literal_ += '{';
            return i + 1;
        }
        flush(close + 1);
        const std::string_view inside = text_.substr(i + 1, close - i - 1);
        if (trim(inside).empty()) report_(i, "an empty quote {}");
        else out_.push_back(classify(inside, i));
        return close + 1;
    }

    void flush(std::size_t next) {
        if (!literal_.empty()) out_.push_back({part::kind::literal, literal_, literal_start_});
        literal_.clear();
        literal_start_ = next;
    }

    // The next '}' after i only moves forward as i does: found once per '}', not once per '{'
    // (10 000 unclosed '{' would each search the rest of the text).
    std::size_t close_after(std::size_t i) {
        if (next_close_ != std::string_view::npos && next_close_ <= i) next_close_ = text_.find('}', i + 1);
        return next_close_;
    }

    std::string_view text_;
    const reporter& report_;
    std::vector<part> out_;
    std::string literal_;
    std::size_t literal_start_ = 0;
    std::size_t next_close_ = 0;
};

}  // namespace

std::vector<part> split_parts(std::string_view text, const reporter& report) {
    return splitter(text, report).run();
}

}  // namespace qkv::quote_detail
