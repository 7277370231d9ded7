// The built-in functions of the formula language, one table: name, arity, a line of help,
// and the function. Lessons and exercises call them; `qkv help formulas` lists them.
#pragma once

#include <deque>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "qkv/formula.hpp"
#include "qkv/value.hpp"

namespace qkv {

// The floating-point operations a call will do, stated from its arguments' shapes (and the sizes its
// scalar arguments give) before it runs, so that the budget of one operation (work_budget.hpp)
// refuses it up front: a plain loop is work as much as a call into BLAS. Arguments the built-in
// will refuse may be stated as anything (0 is simplest): the built-in then says what is wrong.
using work_statement = double (*)(const std::vector<value>& args);

struct builtin {
    std::string name;
    int min_args;
    int max_args;
    std::string signature;  // "softmax(S)"
    std::string help;       // one line, English: what it computes and the shapes
    std::function<value(const std::vector<value>& args, eval_context& ctx)> fn;
    work_statement work = nullptr;  // never null in the table (builtins_of refuses an entry without)
};

// A built-in as a catalogue writes it down: the signature names it (what comes before the "(")
// and counts its arguments (every parameter it lists, of which the last `optional` may be left
// out), so that a name and an arity are written once and cannot disagree with the help; and its
// work beside it.
struct builtin_entry {
    const char* signature;  // "softmax(S)"
    const char* help;       // one line, English: what it computes and the shapes
    value (*fn)(const std::vector<value>& args, eval_context& ctx);
    work_statement work;    // its flops from its arguments: every entry states them
    int optional = 0;
};

// The built-ins of a catalogue, in its order; an entry that states no work is a programming error
// (std::logic_error), found as the table is made.
std::vector<builtin> builtins_of(std::span<const builtin_entry> catalogue);

// Every built-in, in the order the help lists them: the engine's own as its catalogue lists them
// (src/engine/builtins_catalogue.cpp: every name and line of help in one place, group by group),
// then those a higher layer added (add_builtin_group), in the order they came. A deque, so that a
// builtin found before a group was added stays where it is.
const std::deque<builtin>& builtins();

// The built-in called `name`, or nullptr.
const builtin* find_builtin(std::string_view name);

// A layer above the engine brings its own group (training brings train_transformer and its kin):
// make() is called and its built-ins join the table, once per group name (a second call with the
// same name does nothing). Called explicitly by whoever runs lessons, before the first one runs
// (the command line for the commands that run them, the tests in their set-up), never from a
// static initialiser, which a static library may drop. Not to be called while a formula is evaluated.
// A name the table already has is a programming error: std::logic_error.
void add_builtin_group(std::string_view group, std::vector<builtin> (*make)());

// Throws input_error at ctx.where: "stage 'ID', formula `TEXT`: MESSAGE", worded in the learner's
// language where it is printed (a message given as a string stays as it is in every language).
[[noreturn]] void formula_error(const eval_context& ctx, const sentence& message);
[[noreturn]] void formula_error(const eval_context& ctx, const std::string& message);

}  // namespace qkv
