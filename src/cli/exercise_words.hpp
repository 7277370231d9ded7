// The exercise commands' interface words — kinds of answer, statuses, how to write an answer — in
// the two languages side by side, through i18n's pick (the exercises' own text is in their
// files). Private to src/.
#pragma once

#include <string>
#include <string_view>

#include "qkv/answer.hpp"
#include "qkv/i18n.hpp"
#include "qkv/progress.hpp"

namespace qkv::cli {

inline std::string kind_word(lang l, answer_kind k) {
    switch (k) {
    case answer_kind::choice: return pick(l, "选择", "choice");
    case answer_kind::shape: return pick(l, "形状", "shape");
    case answer_kind::number: return pick(l, "数值", "number");
    case answer_kind::matrix: return pick(l, "矩阵", "matrix");
    }
    return "";
}

inline std::string status_word(lang l, status s) {
    switch (s) {
    case status::not_tried: return pick(l, "未做", "not tried");
    case status::wrong: return pick(l, "错误", "wrong");
    case status::correct: return pick(l, "正确", "correct");
    }
    return "";
}

// How to write an answer of each kind, for the question and for error messages.
inline std::string answer_form(lang l, answer_kind k) {
    switch (k) {
    case answer_kind::choice: return pick(l, "一个字母，如 B", "one letter, e.g. B");
    case answer_kind::shape: return pick(l, "一个形状，如 \"(3, 4)\" 或 3x4", "a shape, e.g. \"(3, 4)\" or 3x4");
    case answer_kind::number: return pick(l, "一个数，如 0.25 或 1/4", "a number, e.g. 0.25 or 1/4");
    case answer_kind::matrix:
        return pick(l, "一个矩阵，如 \"[[1, 2], [3, 4]]\"，或 --file answer.csv",
                    "a matrix, e.g. \"[[1, 2], [3, 4]]\", or --file answer.csv");
    }
    return "";
}

}  // namespace qkv::cli
