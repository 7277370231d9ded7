// The formula language lessons are written in: parsed once, evaluated on a workspace.
//
//   statement  := NAME '=' expr                 one per line; '#' starts a comment
//   expr       := term (('+' | '-') term)*
//   term       := unary (('*' | '/' | '@') unary)*    '@' is the matrix product, as in Python
//   unary      := '-' unary | postfix
//   postfix    := primary ('^T' | '[' expr (',' expr)? ']')*
//                 A^T transposes; A[i] is row i, A[i, j] one entry, counted from 1 as in s_23
//   primary    := NUMBER | NAME | NAME '(' (expr (',' expr)*)? ')' | '(' expr ')'
//
// + - * / work elementwise on equal shapes and broadcast a scalar, a [1, d] row or an [n, 1]
// column. A stack [h, n, d] is handled head by head, and may meet a matrix (used by every head)
// or another stack with the same h. Built-in functions are listed in builtins.hpp.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "qkv/error.hpp"
#include "qkv/value.hpp"

namespace qkv {

struct expr;  // a node of the syntax tree (src/engine/formula_tree.hpp, private to the formula)
using expr_ptr = std::shared_ptr<const expr>;

// One recorded sub-step of a built-in that teaches a process (a decode loop, a tiled softmax):
// a short label ("t = 2", "block 3") and the values it shows.
struct sub_step {
    std::string label;
    std::vector<std::pair<std::string, value>> values;
};

// What evaluation needs besides the names: where the formula is (for error messages) and,
// optionally, where built-ins may record their sub-steps.
struct eval_context {
    source_loc where;                    // of the statement being evaluated
    std::string stage_id;                // for messages: "stage 'scores'"
    std::string statement_text;          // for messages: "S = Q @ K"
    std::vector<sub_step>* steps = nullptr;  // null: built-ins record nothing
    std::size_t recorded_bytes = 0;      // what *steps holds (keep_budget.hpp), counted as record() adds to it
    const workspace* ws = nullptr;       // set by evaluate(): what the run holds, for its memory budget
    // The values an expression holds while it computes the next (an operand while the other side is
    // evaluated, a call's arguments while the call runs): temporaries count as much as the workspace.
    std::size_t held_bytes = 0;
};

struct statement {
    std::string target;  // the name assigned
    expr_ptr rhs;
    std::string text;    // the statement as written, trimmed
    source_loc where;    // of its first character
};

struct formula {
    std::string source;  // as written in the lesson, every line
    std::vector<statement> statements;
};

// Parse the lines of a formula. `where` is the location of the formula's first character;
// errors carry file:line:column of the offending token. Throws input_error.
formula parse_formula(std::string_view text, const source_loc& where);

// Parse one expression (no "NAME ="), e.g. an exercise's expected value.
expr_ptr parse_expression(std::string_view text, const source_loc& where);

// Evaluate an expression on the workspace. Throws input_error naming ctx.where, the stage, the
// statement, and both shapes on a mismatch; an unknown name lists the nearest known one; and
// when a value would take the run past what it may keep (keep_budget.hpp: the temporaries of the
// expression counted with the rest, before each is made) or an operation would do more work than
// one may (work_budget.hpp: a built-in's stated work, before it runs). Memory that runs out all
// the same is reported at the formula too. Sets ctx.ws to &ws.
value evaluate(const expr& e, const workspace& ws, eval_context& ctx);

// Run every statement in order, assigning each target in ws.
void run_formula(const formula& f, workspace& ws, eval_context& ctx);

// The names an expression reads (not the built-in functions), in order of first use.
std::vector<std::string> names_read(const expr& e);

}  // namespace qkv
