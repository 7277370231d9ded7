// What a formula name can hold: a scalar, a matrix [n, d], or a stack of per-head matrices
// [h, n, d]; with the labels of its rows and columns, which travel through the operations
// (a product takes its rows from the left factor and its columns from the right one).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "qkv/matrix.hpp"

namespace qkv {

// The labels of one axis: a name per index (e.g. the tokens) and what the axis is, as a tag
// from a small vocabulary that i18n.hpp translates: "tokens", "queries", "keys", "features",
// "heads", "samples" (empty: nothing to say).
struct labels {
    std::vector<std::string> names;  // empty, or one per index
    std::string axis;
    // the names are words of the interface ("previous", "induction": a table's columns), shown in
    // the learner's language; a token never is
    bool words = false;
};

struct value {
    enum class kind { scalar, matrix, stack };

    kind k = kind::scalar;
    float number = 0.0f;       // kind::scalar
    std::vector<matrix> mats;  // kind::matrix: exactly one; kind::stack: one per head (h >= 1)
    labels rows, cols;         // of each matrix (for a stack, of every head alike)
    bool weights = false;      // rows are attention distributions: shown with a heatmap and row sums
    std::string stack_axis = "heads";  // what a stack's matrices are: "heads", "devices" or "samples"
    // Of weights a stage shows: the cells a score counts (1s of a pattern [n, n], every head
    // alike), marked in the heatmap; set by the stage's `marks`, never by a formula.
    std::optional<matrix> marked;

    static value scalar(float x);
    static value of(matrix m, labels rows = {}, labels cols = {});
    static value stack(std::vector<matrix> heads, labels rows = {}, labels cols = {});

    bool is_scalar() const { return k == kind::scalar; }
    bool is_matrix() const { return k == kind::matrix; }
    bool is_stack() const { return k == kind::stack; }

    const matrix& mat() const { return mats.front(); }  // kind::matrix only
    matrix& mat() { return mats.front(); }

    // {} for a scalar, {rows, cols} for a matrix, {h, rows, cols} for a stack.
    std::vector<std::size_t> shape() const;
    // "[]", "[3, 4]", "[2, 3, 2]"
    std::string shape_str() const;
    // True when every number is finite (no NaN, no ±inf).
    bool all_finite() const;
};

// What one matrix of a stack is called, for "head 2", "device 2", "sample 1": "head", "device", "sample".
std::string_view stack_item(const value& v);

// The named values a lesson works on: the scenario's matrices, then every name its formulas assign.
using workspace = std::map<std::string, value>;

}  // namespace qkv
