// Text that quotes the run: lesson and exercise prose holds {…} where a number, a row, a shape or a
// token of the run belongs, and they are filled in after the stage has run, so the words stay true
// on whatever sentence the learner typed. The syntax is documented in lessons/README.md:
//
//   {A[1, 3]}  {A[1, 3]:.4}  {A[1]}  {n}  {d_k}          a value of the workspace, formatted
//   {A["苹果", "甜"]}                                     a token of the sentence as an index
//   {shape(Q)}  {token(2)}  {top(A, 1)}                  a shape, a token, where row 1 looks most
//   {if top(A, 1) == token(n)}…{else}…{end}              said only when it holds
//   {=2.718}                                             a true constant, not a number of the run
//   {{  }}                                               a brace
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "qkv/error.hpp"
#include "qkv/value.hpp"

namespace qkv {

struct problem;

// Every syntax problem of the quotes in `text`, whose first character is at `at`: a brace left
// open or a lone }, an expression that does not parse, an unknown format or function, an {else}
// or {end} without its {if}, an {if} without {end}. Each at its own file:line:column.
std::vector<problem> quote_problems(std::string_view text, const source_loc& at);

// The text with every quote filled in from the workspace (the names after a stage has run). The
// tokens quotes name are the row labels of the values `token_rows` names, in order (a lesson's
// token_rows, lesson.hpp). `context` names the place in messages ("stage 'scores'", "exercise
// 3.2"). Throws input_error at the quote's file:line:column when a name is unknown, an index is
// out of range or a value cannot be quoted.
// With `filled`, where each quote's words went in the result ({offset, bytes}, in order): what came
// from the run (a token typed by the learner), which a renderer of marks (Markdown) shows as text.
using filled_spans = std::vector<std::pair<std::size_t, std::size_t>>;

// Where a number the text quotes stands in a value the quote names: the quote (its number among
// the text's quoted numbers, from 0), the value, its head (0 for a matrix), row and column, from 0.
// A number found at several places (the rows of a token that comes twice) has one for each, at
// most eight; a number that is no entry of a matrix it names (a sum, a norm) has none. Renderers
// keep these places on the screen when they summarise (a sentence about a value shows it).
struct quote_source {
    std::size_t quote = 0;
    std::string name;
    std::size_t head = 0, row = 0, col = 0;
};
using quote_sources = std::vector<quote_source>;

std::string fill_quotes(std::string_view text, const source_loc& at, const workspace& ws, const std::string& context,
                        const std::vector<std::string>& token_rows, filled_spans* filled = nullptr,
                        quote_sources* sources = nullptr);

// The decimals written in the text outside quotes and outside {=…}: each may be a number of one
// run only. `qkv validate` warns about them.
std::vector<problem> bare_decimals(std::string_view text, const source_loc& at);

}  // namespace qkv
