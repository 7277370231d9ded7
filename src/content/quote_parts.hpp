// A lesson text as parts (quote.cpp): literal text and {…} quotes, constants and {if}/{else}/{end},
// each with its offset, and where an offset is as a line and column. Private to src/content.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "qkv/error.hpp"
#include "qkv/utf8.hpp"

namespace qkv::quote_detail {

struct part {
    enum class kind { literal, quote, constant, if_, else_, end };
    kind k = kind::literal;
    std::string text;         // the literal text, the quote's inside, the constant, the condition
    std::size_t offset = 0;   // where it starts in the text (the '{' of a quote)
};

using reporter = std::function<void(std::size_t offset, std::string message)>;

// Where the byte at `offset` is, for a text whose first character is at `at`: lines counted,
// columns in characters (UTF-8 continuation bytes do not start one). Asked in rising order as the
// text is read, each answer goes on from the last one: a text of 200 000 quotes is counted through
// once, not once a quote (which took seconds).
class locator {
public:
    locator(const source_loc& at, std::string_view text) : at_(at), text_(text), here_(at) {}
    source_loc operator()(std::size_t offset) {
        if (offset < pos_) pos_ = 0, here_ = at_;  // asked behind: count again from the start
        for (; pos_ < offset && pos_ < text_.size(); ++pos_) {
            if (text_[pos_] == '\n') {
                ++here_.line;
                here_.column = 1;
            } else if (!utf8::continues(text_[pos_])) {
                ++here_.column;
            }
        }
        return here_;
    }

private:
    source_loc at_;
    std::string_view text_;
    source_loc here_;
    std::size_t pos_ = 0;
};

// The text as parts. {{ and }} are braces, and so is a {…} right after _ or ^ (h_{t−1}); any other
// { runs to the next }. A problem is reported at its offset, and the text read on.
std::vector<part> split_parts(std::string_view text, const reporter& report);

}  // namespace qkv::quote_detail
