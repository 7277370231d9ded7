// How one cell of a value was computed, from the engine's own terms: the operation at the top of
// the statement that assigned it, and its operands at that cell, evaluated again on the workspace
// the statement ran on. A browser shows these when a learner points at a number; it computes none.
//
//   S = Q @ K^T        product: q_i,t and k_t,j for every t, each product, and their sum
//   A = softmax(S)     softmax: the row of S, its maximum, each exp(s − max), their sum, the quotient
//   M = causal_mask(n) mask: 0 where the key may be seen, −∞ where it is a later position
//   x = a / b (+ − *)  elementwise: both operands at the cell (a scalar, row or column broadcast)
//   Y = X              copy of another name; anything else: the built-in that made it
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "qkv/formula.hpp"
#include "qkv/value.hpp"

namespace qkv {

struct cell_index {
    std::size_t head = 0, row = 0, col = 0;  // from 0; head 0 of a matrix
};

struct cell_terms {
    enum class op { product, softmax, mask, elementwise, negate, transpose, copy, scalar, builtin };
    op kind = op::builtin;
    std::string statement;      // "S = Q @ K^T", as the lesson wrote it
    char symbol = 0;            // elementwise: + - * /
    std::string left, right;    // the operands as the formula writes them; builtin: the function
    float cell = 0;             // what the run holds at the cell
    // product: left[row, t] and right[t, col] for every t; softmax: the row of the argument
    std::vector<float> a, b;
    // product: each a[t]·b[t]; softmax: each exp(a[t] − row_max); in double, as written out
    std::vector<double> parts;
    double total = 0;           // product: the sum of parts; softmax: the sum of the exps
    float row_max = 0;          // softmax
    float x = 0, y = 0;         // elementwise (y unused by negate), copy and transpose: x
    double result = 0;          // what the terms give: the sum, the quotient, x op y
};

// A product's terms from the row and the column themselves (kind, a, b, parts, total, result), and
// softmax(row)[col]'s (kind, a, row_max, parts, total, result); explain_cell's own, for a value
// that a built-in recorded rather than a statement assigned.
void add_product(cell_terms& t, std::vector<float> row, std::vector<float> column);
void add_softmax(cell_terms& t, std::vector<float> row, std::size_t col);

// The terms of cell `at` of what `st` assigns, on `ws` as it was before st ran (ctx as for
// evaluate). Throws input_error when `at` is outside the value's shape.
cell_terms explain_cell(const statement& st, const workspace& ws, eval_context& ctx, cell_index at);

}  // namespace qkv
