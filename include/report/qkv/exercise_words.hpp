// The exercise reports' interface words — kinds of answer, statuses, grades, how to write an
// answer — in the two languages side by side, through i18n's pick (the exercises' own text is in
// their files). The command line says how to write an answer in its errors too.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "qkv/answer.hpp"
#include "qkv/grading.hpp"
#include "qkv/i18n.hpp"
#include "qkv/progress.hpp"

namespace qkv {

// One value's word in both languages; a table of them is a small glossary.
template <class E>
struct word_pair {
    E value;
    std::string_view zh, en;
};

template <class E>
std::string word_in(lang l, std::span<const word_pair<E>> table, E e) {
    for (const word_pair<E>& w : table)
        if (w.value == e) return pick(l, w.zh, w.en);
    return "";
}

inline constexpr word_pair<answer_kind> kind_words[] = {
    {answer_kind::choice, "选择", "choice"}, {answer_kind::shape, "形状", "shape"},
    {answer_kind::number, "数值", "number"}, {answer_kind::matrix, "矩阵", "matrix"}};

inline constexpr word_pair<status> status_words[] = {
    {status::not_tried, "未做", "not tried"}, {status::wrong, "错误", "wrong"}, {status::correct, "正确", "correct"}};

// What a graded answer came to (grade's "no answer" is the sheet's missing one).
inline constexpr word_pair<grade_result> result_words[] = {
    {grade_result::correct, "正确", "correct"}, {grade_result::wrong, "错误", "wrong"},
    {grade_result::unreadable, "无法读取", "unreadable"}, {grade_result::missing, "未作答", "no answer"}};

// How to write an answer of each kind, for the question and for error messages.
inline constexpr word_pair<answer_kind> answer_forms[] = {
    {answer_kind::choice, "一个字母，如 B", "one letter, e.g. B"},
    {answer_kind::shape, "一个形状，如 \"(3, 4)\" 或 3x4", "a shape, e.g. \"(3, 4)\" or 3x4"},
    {answer_kind::number, "一个数，如 0.25 或 1/4", "a number, e.g. 0.25 or 1/4"},
    {answer_kind::matrix, "一个矩阵，如 \"[[1, 2], [3, 4]]\"，或 --file answer.csv",
     "a matrix, e.g. \"[[1, 2], [3, 4]]\", or --file answer.csv"}};

inline std::string kind_word(lang l, answer_kind k) { return word_in<answer_kind>(l, kind_words, k); }
inline std::string status_word(lang l, status s) { return word_in<status>(l, status_words, s); }
inline std::string result_word(lang l, grade_result r) { return word_in<grade_result>(l, result_words, r); }
inline std::string answer_form(lang l, answer_kind k) { return word_in<answer_kind>(l, answer_forms, k); }

}  // namespace qkv
