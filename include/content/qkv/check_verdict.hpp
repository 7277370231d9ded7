// What `qkv check` finds of one answer, as a plain value a report puts into words or JSON: right
// or not, the common mistakes it matches (their ids and the text the mistake book gives them),
// what is wrong with it, and the right answer with its worked solution.
#pragma once

#include <string>
#include <vector>

#include "qkv/answer.hpp"
#include "qkv/exercise.hpp"
#include "qkv/exercise_view.hpp"
#include "qkv/i18n.hpp"
#include "qkv/judge.hpp"

namespace qkv {

// A common mistake by its id in mistakes.toml, and what the book says of it in the language.
struct named_mistake {
    std::string id;
    std::string text;
};

struct check_verdict {
    std::string id;  // the exercise's
    int lesson = 0;
    answer_kind kind = answer_kind::choice;
    lang language = lang::en;
    std::string scenario;  // the name of the scenario it was judged on
    std::string student;   // whose numbers; "" the lesson's own
    std::string answer;    // as given: the words typed, or the file named
    bool correct = false;
    std::vector<named_mistake> mistakes;   // the mistakes the answer matches, in the file's order
    std::vector<std::string> places;       // where the answer was read instead ("row 2 (“很”) of dV")
    std::vector<std::string> explanation;  // what is wrong, a line per point (judge.hpp's explain); empty when right
    expected_answer expected;
    std::string solution;  // the worked solution, quoted from the run
};

// Judge `a` (given as `given`) on the run. Throws input_error when it cannot be compared (a matrix
// of the wrong shape that matches no mistake). `precision`: the decimals of the cells it quotes.
check_verdict check_answer(const exercise& e, const answer& a, const std::string& given, const exercise_run& r,
                           const mistake_book& book, int precision = 4);

}  // namespace qkv
