// Exercises (lessons/exercises/NN.toml) and the vocabulary of common mistakes (mistakes.toml):
// what they hold and how they are read. judge.hpp runs and judges them.
//
//   lesson = 3
//   [[exercise]]
//   id = "3.2"                          # LESSON.K
//   kind = "number"                     # choice | shape | number | matrix
//   question = { zh = "…", en = "…" }
//   hints = [{ zh = "…", en = "…" }, …] # given one at a time by `qkv hint`
//   solution = { zh = "…", en = "…" }   # the worked solution, shown on a right answer
//   scenario = "apple.toml"             # optional: else the lesson's
//   min_tokens = 3                      # optional: the tokens it needs (S[2, 3]); fewer are refused
//                                       in one line (default the lesson's min_tokens)
//   setup = "Q_100 = zeros(100, 512) @ zeros(512, 64)"   # optional statements, run first
//   expected = "S[2, 3]"                # shape/number/matrix: an expression, never a typed number
//   tolerance = 0.01                    # number/matrix: largest |answer - expected| accepted (finite)
//   shows = ["Q", "K"]                  # values shown with the question (the lesson's, or the setup's)
//   mistakes = { k_not_transposed = "(K @ Q^T)[2, 3]" }   # or a list of expressions per mistake;
//                                       a shape exercise may also give "shape(1, 8, 10, 10)"
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
#include "qkv/bilingual.hpp"
#include "qkv/error.hpp"
#include "qkv/formula.hpp"

namespace qkv {

struct problem;
struct toml_document;

// mistakes.toml: one table per mistake, `[no_scale]  zh = "…"  en = "…"`.
using mistake_book = std::map<std::string, bilingual>;

struct mistake_rule {
    std::string id;                     // a key of the mistake book
    std::vector<std::string> sources;   // the wrong computations, as written
    std::vector<expr_ptr> exprs;        // parsed, one per source
    source_loc where;
    // Shape exercises: wrong shapes written out, "shape(1, 8, 10, 10)", for those no formula
    // value can have (a value has at most three dimensions; PyTorch's per-head weights have four).
    std::vector<std::vector<std::size_t>> shapes;
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
    std::size_t min_tokens = 1;  // a sentence with fewer (or fewer than the lesson's) is refused
    std::vector<std::string> shows;
    std::vector<source_loc> shows_at;  // where each is named: a name the lesson lacks is refused there
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
// The same on a file already read. With `problems`, every problem is added to it instead of the
// first being thrown (`qkv validate`), and what read cleanly is returned.
mistake_book read_mistakes(const toml_document& doc, std::vector<problem>* problems = nullptr);
std::vector<exercise> read_exercises(const toml_document& doc, const mistake_book& book, std::vector<problem>* problems = nullptr);
// mistakes.toml and every NN.toml of the folder; exercise ids unique across files.
exercise_set load_exercises(const std::string& dir);

// The exercise with this id, or nullptr.
const exercise* find_exercise(const exercise_set& set, std::string_view id);

}  // namespace qkv
