// The syntax tree of a formula: what formula_parse.cpp builds and formula_eval.cpp walks.
// Internal to those two; everyone else holds an expr_ptr and calls formula.hpp.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "qkv/error.hpp"
#include "qkv/formula.hpp"

namespace qkv {

struct expr {
    enum class kind { number, name, call, negate, binary, transpose, index };

    kind k = kind::number;
    float number = 0.0f;          // kind::number
    std::string name;             // kind::name, kind::call (the function)
    char op = 0;                  // kind::binary: + - * / @
    std::vector<expr_ptr> args;   // operands; call arguments; [indexed, i] or [indexed, i, j]
    std::string text;             // the source text, so messages quote what the lesson wrote
    source_loc where;             // of the first character
    std::size_t begin = 0;        // byte offset of the first character in its line (parsing only)
    int depth = 1;                // nodes on the longest path down from here, this one included
};

}  // namespace qkv
