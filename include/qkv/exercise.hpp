// Exercises (lessons/exercises/NN.toml) and the vocabulary of common mistakes (mistakes.toml):
// loading them, computing the expected answer with the formula language on the workspace of the
// lesson run on its scenario, and judging an answer, naming the mistake that produced it.
//
//   lesson = 3
//   [[exercise]]
//   id = "3.2"                          # LESSON.K
//   kind = "number"                     # choice | shape | number | matrix
//   question = { zh = "…", en = "…" }
//   hints = [{ zh = "…", en = "…" }, …] # given one at a time by `qkv hint`
//   solution = { zh = "…", en = "…" }   # the worked solution, shown on a right answer
//   scenario = "apple.toml"             # optional: else the lesson's
//   setup = "Q_100 = zeros(100, 512) @ zeros(512, 64)"   # optional statements, run first
//   expected = "S[2, 3]"                # shape/number/matrix: an expression, never a typed number
//   tolerance = 0.01                    # number/matrix: largest |answer - expected| accepted
//   shows = ["Q", "K"]                  # values shown with the question
//   mistakes = { k_not_transposed = "(K @ Q^T)[2, 3]" }   # or a list of expressions per mistake
//   choices = [{ zh, en }, …]           # choice: A, B, … in order
//   answer = "B"                        # choice
//   why_not = { A = { zh, en } }        # choice, optional: what is wrong with a wrong choice
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "qkv/answer.hpp"
#include "qkv/formula.hpp"
#include "qkv/i18n.hpp"
#include "qkv/lesson.hpp"
#include "qkv/trace.hpp"
#include "qkv/value.hpp"

namespace qkv {

// mistakes.toml: one table per mistake, `[no_scale]  zh = "…"  en = "…"`.
using mistake_book = std::map<std::string, bilingual>;

struct mistake_rule {
    std::string id;                     // a key of the mistake book
    std::vector<std::string> sources;   // the wrong computations, as written
    std::vector<expr_ptr> exprs;        // parsed, one per source
    source_loc where;
};

struct exercise {
    std::string id;  // "3.2"
    int lesson = 0;
    int index = 0;   // the K of LESSON.K
    answer_kind kind = answer_kind::choice;
    bilingual question, solution;
    std::vector<bilingual> hints;
    std::string scenario;  // a file in the data folder; empty: the lesson's own
    std::optional<formula> setup;
    std::string expected_source;
    expr_ptr expected;     // null for a choice
    double tolerance = 0.01;
    std::vector<std::string> shows;
    std::vector<mistake_rule> mistakes;
    std::vector<bilingual> choices;  // A, B, … in order
    char answer = 0;                 // 'A'…
    std::map<char, bilingual> why_not;
    source_loc where;  // of its [[exercise]] table
};

struct exercise_set {
    mistake_book book;
    std::vector<exercise> all;  // by lesson, then in file order
};

// The folder of exercise files: QKV_EXERCISES when set, else lessons_dir()/exercises.
std::string exercises_dir();

// Throw input_error with file:line:column on anything malformed or unknown.
mistake_book parse_mistakes(std::string_view text, const std::string& origin);
std::vector<exercise> parse_exercises(std::string_view text, const std::string& origin, const mistake_book& book);
// mistakes.toml and every NN.toml of the folder; exercise ids unique across files.
exercise_set load_exercises(const std::string& dir);

// The exercise with this id, or nullptr.
const exercise* find_exercise(const exercise_set& set, std::string_view id);

// Everything an answer is judged against: the lesson's workspace after the setup, the expected
// value and the value of each mistake that could be evaluated on this scenario.
struct exercise_run {
    lesson_run run;
    value expected;  // a scalar 0 for a choice
    std::vector<std::pair<std::string, value>> mistake_values;  // (mistake id, value), in file order
};

// Run the lesson on the exercise's scenario (or on `data_file` when given), then the setup, then
// every expression. Throws input_error when the expected value does not suit the kind.
exercise_run run_exercise(const exercise& e, const lesson& l, const scenario& s, lang language);
// The same, finding the lesson and scenario files itself.
exercise_run run_exercise(const exercise& e, lang language, const std::string& data_file = "");

struct cell_off {
    std::size_t row = 0, col = 0;  // from 0
    double got = 0, want = 0;
};

struct verdict {
    bool correct = false;
    std::vector<std::string> mistakes;        // ids of the mistakes the answer matches
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
