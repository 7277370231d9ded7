// The built-in functions of the formula language, one table: name, arity, a line of help,
// and the function. Lessons and exercises call them; `qkv help formulas` lists them.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "qkv/formula.hpp"
#include "qkv/value.hpp"

namespace qkv {

struct builtin {
    std::string name;
    int min_args;
    int max_args;
    std::string signature;  // "softmax(S)"
    std::string help;       // one line, English: what it computes and the shapes
    std::function<value(const std::vector<value>& args, eval_context& ctx)> fn;
};

// Every built-in, in the order the help lists them.
const std::vector<builtin>& builtins();

// The built-in called `name`, or nullptr.
const builtin* find_builtin(std::string_view name);

// Throws input_error at ctx.where: "stage 'ID', formula `TEXT`: MESSAGE".
[[noreturn]] void formula_error(const eval_context& ctx, const std::string& message);

}  // namespace qkv
