// Wrong row, wrong column, transposed: mistakes every exercise whose answer is a row or a matrix
// can see without listing them. Private to src/content.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "qkv/exercise.hpp"
#include "qkv/i18n.hpp"
#include "qkv/formula.hpp"
#include "qkv/value.hpp"

namespace qkv {

// For an answer read as one row, BASE[i] (its source as the exercise writes it): every row of
// BASE and, when BASE is square, every column, as rows; for an answer that is a whole square
// matrix: its transpose; each with its mistake id (wrong_row, transposed), none within the
// exercise's tolerance of the right answer. Nothing for other answers.
// Each with where it was read, for the feedback: "row 2 (“很”) of dV".
struct wrong_place {
    std::string id;
    value v;
    std::string where;
};
std::vector<wrong_place> wrong_places(const exercise& e, const value& expected, workspace& ws, eval_context& ctx, lang language);

}  // namespace qkv
