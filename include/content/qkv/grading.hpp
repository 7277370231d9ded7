// Grading answer sheets (`qkv grade`) on one assignment for the whole class, each on its student's
// own numbers when it names them; then, per question, how many got it right and the mistakes made
// most. Plain values: the report puts them into words.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "qkv/answer.hpp"
#include "qkv/exercise.hpp"
#include "qkv/i18n.hpp"

namespace qkv {

enum class grade_result { correct, wrong, unreadable, missing };

// "correct", "wrong", "unreadable", "missing"
std::string_view result_name(grade_result r);

// One question of one sheet.
struct graded_answer {
    std::string id;
    int lesson = 0;
    answer_kind kind = answer_kind::choice;
    std::string given;  // as written on the sheet; empty: no answer
    grade_result result = grade_result::missing;
    std::vector<std::string> mistakes;  // ids of the common mistakes it matches
    std::vector<std::string> message;   // what is wrong (judge.hpp's explain), or why it could not be read
};

struct graded_sheet {
    std::string path;
    std::string student;       // `student = "…"`, else the file's name without .toml
    bool own_numbers = false;  // the sheet names its student: graded on their variant
    std::map<std::string, std::string> answers;  // id -> answer text
    std::vector<std::string> problems;           // "file:line:column: …": what could not be graded
    std::vector<graded_answer> rows;             // the assignment's questions, in order
    // Where a matrix answer that is no matrix ("q.csv") is read as a file: the sheet's folder. Empty
    // for a sheet that is no file (a class's): its answers are text, never a file's name.
    std::string folder;
    std::size_t right() const;
};

// A common mistake across the class: its id, the book's text for it, and how many sheets made it.
struct mistake_count {
    std::string id;
    std::string text;
    std::size_t sheets = 0;
};

// One question across the class.
struct question_count {
    std::string id;
    answer_kind kind = answer_kind::choice;
    std::size_t right = 0;
    std::size_t answered = 0;  // the sheets that answer it
    std::size_t students = 0;  // the sheets of the class
    std::vector<mistake_count> mistakes;  // most made first
};

struct graded_class {
    lang language = lang::en;
    std::vector<graded_sheet> sheets;
    std::vector<question_count> questions;  // in the order the sheets meet them
    // Every sheet read without a problem and every answer right: what status 0 means.
    bool all_right() const;
};

// The sheets named: files, and the .toml files of a folder, in name order.
// A .toml in a folder that is a symbolic link is not read (a student's link to a file outside the
// class folder would be parsed and its keys quoted): it goes to `links`, when given, to be named.
std::vector<std::string> sheet_files(const std::vector<std::string>& named, std::vector<std::string>* links = nullptr);

// An answer sheet as `qkv grade` reads it: student = "NAME", then "ID" = "ANSWER" lines in the
// order given, every string written as TOML needs it (quotes, line ends, any character).
std::string write_sheet(const std::string& student, const std::vector<std::pair<std::string, std::string>>& answers);

// Whether lesson n has exercises (a lesson without would grade every sheet 0/0).
bool has_exercises(const exercise_set& set, int n);

// Each question across sheets already graded (their rows): how many answer it and get it right,
// and the named mistakes, most made first (ties in the order the sheets meet them). What
// grade_class counts; a class kept elsewhere (qkv serve --class) counts its rows with it too.
std::vector<question_count> count_questions(const std::vector<graded_sheet>& sheets, const mistake_book& book, lang l);

// Grade the sheets on the exercises of `assignment_file` (exercises = ["3.1", …] and/or
// lessons = [3, …]) and of `lessons`; without either, every exercise of the lessons any sheet
// answers. A sheet that cannot be read, an unknown id or an answer outside the assignment is a
// problem of that sheet; the rest still count. Throws input_error when a lone sheet has nothing to
// grade, or the assignment file is not one.
// `links`: sheets sheet_files found as symbolic links, each a sheet with that problem and no answers.
graded_class grade_class(const std::vector<std::string>& files, const std::string& assignment_file,
                         const std::vector<int>& lessons, const exercise_set& set, lang l,
                         const std::vector<std::string>& links = {});

// Sheets read elsewhere (each's path, student, own_numbers and answers given), graded as
// grade_class grades files on `lessons = [...]`: a class kept in a database grades what it exports
// without writing it first. A matrix answer is the matrix's text ("[[1, 2], [3, 4]]"), not a file.
graded_class grade_read_sheets(std::vector<graded_sheet> sheets, const std::vector<int>& lessons, const exercise_set& set, lang l);

}  // namespace qkv
