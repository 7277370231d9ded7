// Judging an exercise: its expected answer and the value of each common mistake, computed with
// the formula language on the workspace of the lesson run on its scenario; then an answer judged
// against them, saying what is wrong and which mistake produced it.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "qkv/answer.hpp"
#include "qkv/exercise.hpp"
#include "qkv/i18n.hpp"
#include "qkv/lesson.hpp"
#include "qkv/scenario.hpp"
#include "qkv/trace.hpp"
#include "qkv/value.hpp"

namespace qkv {

// Everything an answer is judged against: the lesson's workspace after the setup, the expected
// value and the value of each mistake that could be evaluated on this scenario.
struct exercise_run {
    lesson_run run;
    value expected;  // a scalar 0 for a choice
    std::vector<std::pair<std::string, value>> mistake_values;  // (mistake id, value), in file order
    std::vector<std::string> mistake_places;  // beside each: where a wrong place was read ("row 2 (“很”) of dV"), or ""
    std::vector<std::size_t> choice_order;  // shown choice i is the file's choice_order[i] (scenario_gen.hpp)
    std::string student;                    // whose numbers and order of choices these are; "" the file's

    // The letter a choice has as shown to this run's student, and the file's letter of a shown one.
    char shown_letter(char file_letter) const;
    char file_letter(char shown) const;
};

// Run the lesson on the exercise's scenario (or on `data_file` when given), then the setup, then
// every expression. Throws input_error when the expected value does not suit the kind.
exercise_run run_exercise(const exercise& e, const lesson& l, const scenario& s, lang language);
// The lesson an exercise belongs to, and the scenario it runs on (its own, else the lesson's).
lesson lesson_of(const exercise& e);
scenario scenario_of(const exercise& e, const lesson& l);
// The same, finding the lesson and scenario files itself. With a student's name, on that student's
// own numbers (student_variant of the scenario): the same questions, other values.
exercise_run run_exercise(const exercise& e, lang language, const std::string& data_file = "", const std::string& student = "");
// The run on a scenario already made: `s` is scenario_of(e, l), or a student's variant of it
// (student_variant) when `student` is given. What the one above does once it has them; a caller
// that keeps each student's variant (a class's server) runs with this.
exercise_run run_exercise_for(const exercise& e, const lesson& l, const scenario& s, lang language, const std::string& student);

// One of the exercise's own texts (question, hint, choice, why_not, solution) in the language,
// its quotes filled in from the run: the numbers of the scenario it was computed on.
std::string exercise_words(const bilingual& text, const exercise& e, const exercise_run& r, lang language);

struct cell_off {
    std::size_t row = 0, col = 0;  // from 0
    double got = 0, want = 0;
};

struct verdict {
    bool correct = false;
    std::vector<std::string> mistakes;        // ids of the mistakes the answer matches
    std::vector<std::string> places;          // where the answer was read instead, when it is the right thing's wrong row
    std::vector<std::size_t> expected_shape;  // shape, matrix
    std::vector<std::size_t> dims_off;        // shape: the dimensions (from 0) that differ
    std::vector<cell_off> cells_off;          // matrix: the cells outside the tolerance
    double expected_number = 0;               // number
};

// Judge an answer. A matrix of the wrong shape that matches no mistake cannot be compared and
// throws input_error ("expected [3, 3], the answer is [4, 3]").
verdict judge(const exercise& e, const answer& a, const exercise_run& r);

// What is wrong, in the language: which dimension, which cells, too high or too low, and the
// mistakes matched with their descriptions. One line per point; empty for a right answer.
std::vector<std::string> explain(const verdict& v, const exercise& e, const answer& a, const exercise_run& r,
                                 const mistake_book& book, lang language, int precision = 4);

}  // namespace qkv
