// Graded sheets in words, JSON and CSV (grading.hpp's values): one sheet answer by answer; a class
// as each student's score and, per question, how many got it and the commonest mistakes; CSV a row
// per student, for a spreadsheet.
#pragma once

#include <string>

#include "qkv/grading.hpp"
#include "qkv/render.hpp"

namespace qkv {

// One sheet: each answer, its result and what is wrong with it, and the total.
std::string sheet_text(const graded_sheet& s, lang l);
// {"sheet", "student", "own_numbers", "exercises": [{"id", "lesson", "kind", "answer", "result",
// "mistakes", "message"}], "correct", "total", "problems"}
std::string sheet_json(const graded_sheet& s);

// A class: each student's bar and score (and the problems of their sheet), then each question.
std::string class_text(const graded_class& c, const render_options& o);
// {"lang", "sheets": [as sheet_json], "questions": [{"id", "right", "answered", "students",
// "mistakes": [{"id", "sheets", "explanation"}]}]}
std::string class_json(const graded_class& c);
// "student,sheet,correct,total,3.1,…": a row per student, 1 right, 0 wrong or unreadable, empty not
// answered; text fields escaped as every text qkv shows, and quoted when they hold a comma or a quote.
std::string class_csv(const graded_class& c);

// What grade prints: one sheet alone in text or JSON as a sheet, several as a class; CSV always
// the class's rows.
enum class grade_format { text, json, csv };
std::string grade_report(const graded_class& c, grade_format form, const render_options& o);

}  // namespace qkv
