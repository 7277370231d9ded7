// The exercise reports' interface words — kinds of answer, statuses, grades, how to write an
// answer — as messages of the catalogues (po/, through tr; the exercises' own text is in their
// files). The command line says how to write an answer in its errors too.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "qkv/answer.hpp"
#include "qkv/grading.hpp"
#include "qkv/i18n.hpp"
#include "qkv/progress.hpp"

namespace qkv {

// One value's word, a message of the catalogues; a table of them is a small glossary.
template <class E>
struct word_pair {
    E value;
    std::string_view en;
};

template <class E>
std::string word_in(lang l, std::span<const word_pair<E>> table, E e) {
    for (const word_pair<E>& w : table)
        if (w.value == e) return std::string(tr(l, w.en));
    return "";
}

inline constexpr word_pair<answer_kind> kind_words[] = {
    {answer_kind::choice, translatable("choice")}, {answer_kind::shape, translatable("shape")},
    {answer_kind::number, translatable("number")}, {answer_kind::matrix, translatable("matrix")}};

inline constexpr word_pair<status> status_words[] = {
    {status::not_tried, translatable("not tried")}, {status::wrong, translatable("wrong")}, {status::correct, translatable("correct")}};

// What a graded answer came to (grade's "no answer" is the sheet's missing one).
inline constexpr word_pair<grade_result> result_words[] = {
    {grade_result::correct, translatable("correct")}, {grade_result::wrong, translatable("wrong")},
    {grade_result::unreadable, translatable("unreadable")}, {grade_result::missing, translatable("no answer")}};

// How to write an answer of each kind, for the question and for error messages.
inline constexpr word_pair<answer_kind> answer_forms[] = {
    {answer_kind::choice, translatable("one letter, e.g. B")},
    {answer_kind::shape, translatable("a shape, e.g. \"(3, 4)\" or 3x4")},
    {answer_kind::number, translatable("a number, e.g. 0.25 or 1/4")},
    {answer_kind::matrix, translatable("a matrix, e.g. \"[[1, 2], [3, 4]]\", or --file answer.csv")}};

inline std::string kind_word(lang l, answer_kind k) { return word_in<answer_kind>(l, kind_words, k); }
inline std::string status_word(lang l, status s) { return word_in<status>(l, status_words, s); }
inline std::string result_word(lang l, grade_result r) { return word_in<grade_result>(l, result_words, r); }
inline std::string answer_form(lang l, answer_kind k) { return word_in<answer_kind>(l, answer_forms, k); }

}  // namespace qkv
