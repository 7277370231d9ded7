// An exercise as a learner meets it, as plain values a report puts into words: the question,
// choices and values quoted from the learner's own run, the right answer, the hints so far, the
// worked solution, and the list of every exercise with its status. No interface words in them.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "qkv/answer.hpp"
#include "qkv/exercise.hpp"
#include "qkv/i18n.hpp"
#include "qkv/judge.hpp"
#include "qkv/progress.hpp"
#include "qkv/trace.hpp"

namespace qkv {

// The values an exercise shows, as a lesson stage shows them: weights with their row sums, and,
// with the lesson's trace, its axes named as the lesson names them (S: queries · keys). Throws
// input_error for a name the run does not hold.
std::vector<shown_value> shown_values(const std::vector<std::string>& names, const workspace& ws, const trace* lesson);

// One exercise, as `qkv exercise` shows it.
struct exercise_view {
    std::string id;  // "3.2"
    int lesson = 0;
    answer_kind kind = answer_kind::choice;
    lang language = lang::en;
    std::string scenario;               // the name of the scenario its run is on
    std::string student;                // whose numbers these are; "" the lesson's own
    std::string question;               // quoted from the run
    std::vector<std::string> choices;   // as this student sees them: A, B, … in order
    std::vector<shown_value> values;    // what the question refers to
    std::optional<double> tolerance;    // number and matrix: the largest |answer - expected| accepted
    std::size_t hints = 0;              // how many hints the exercise has
};
exercise_view view_exercise(const exercise& e, const exercise_run& r);

// The right answer as this run has it.
struct expected_answer {
    answer_kind kind = answer_kind::choice;
    shown_value value;     // shape, number, matrix: named by the expression that computes it ("S[2, 3]")
    char letter = 0;       // choice: the right one's letter as this student sees the choices
    char file_letter = 0;  // choice: its letter in the exercise file's order
    std::string text;      // choice: its text, quoted from the run
    std::string student;   // "" when the letters are the file's own
};
expected_answer expected_of(const exercise& e, const exercise_run& r);

// The hints `qkv hint` shows: every one seen so far and the next, quoted from the run.
struct hints_view {
    std::string id;
    std::size_t total = 0;            // the exercise's hints
    std::vector<std::string> shown;
    bool none_new = false;            // every hint had been seen before: there is no next one
};
hints_view hints_of(const exercise& e, const exercise_run& r, int seen);

// What `qkv solution` shows: the question again, the right answer and how to get there.
struct worked_solution {
    std::string id;
    std::string question;
    expected_answer expected;
    std::string solution;  // quoted from the run
};
worked_solution solution_of(const exercise& e, const exercise_run& r);

// Every exercise of one lesson or of all (`qkv exercises`), each with its question quoted from its
// own run and the learner's record, and the titles of the lessons they belong to.
struct listed_exercise {
    std::string id;
    int lesson = 0;
    answer_kind kind = answer_kind::choice;
    std::string question;
    exercise_progress mine;
};
struct exercise_listing {
    std::vector<listed_exercise> exercises;  // by lesson, then in file order
    std::map<int, std::string> titles;       // the title of each lesson listed, in the language
};
// `only` < 0: every lesson. An empty listing when the lesson has no exercises.
exercise_listing list_exercises(const exercise_set& set, int only, const progress& p, lang l);

}  // namespace qkv
