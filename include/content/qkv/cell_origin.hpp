// Where a number a stage shows came from: the statement that assigned it (in this stage or an
// earlier one) with the terms of that one cell, or the scenario that gave it. The lesson runs
// again up to that statement, so the terms are the engine's own numbers.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "qkv/cell_terms.hpp"
#include "qkv/lesson.hpp"
#include "qkv/scenario.hpp"

namespace qkv {

struct cell_origin {
    std::string name;                 // the value, as the stage shows it
    cell_index at;                    // from 0
    std::string row_label, col_label; // the labels of the cell's row and column (tokens, often)
    int stage = 0;                    // the stage whose formula assigned it, from 1; 0: the scenario gave it
    std::optional<cell_terms> terms;  // how; none when the scenario gave it
    float cell = 0;                   // the number, either way
    bool stack = false;               // the value is a stack of heads: `at.head` says which
};

// Cell `at` of `name` as stage `stage` (from 1) of l shows it, run on s. Throws input_error when
// the lesson has no such stage, the stage no such value up to it, or the value no such cell.
cell_origin explain_shown_cell(const lesson& l, const scenario& s, int stage, const std::string& name, cell_index at);

}  // namespace qkv
