// No walls of numbers: when a stack of heads is too tall for a screen, which heads are shown in
// full, and what one line says about each of the others (and about a recorded sub-step). Shared by the text and HTML renderers so
// that both choose alike. Private to src/.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "qkv/formula.hpp"
#include "qkv/quote.hpp"
#include "qkv/render.hpp"
#include "qkv/value.hpp"
#include "render_cells.hpp"

namespace qkv::detail {

// The rows a text table shows: all of them up to a dozen (or with --full); up to 32, the first
// five, "…" and the last five; beyond, four and four (a stage on a long sentence shows several).
inline std::vector<std::size_t> text_rows(std::size_t n, bool full) {
    std::size_t ends = n > 32 ? 4 : 5;
    return shown_indices(n, !full && n > 12, ends, ends);
}

// How many of a stack's first heads are shown in full: every head with --full, or when together
// they take at most 24 lines of text (a stage's stacks share 48: three get 16 each) and none has
// its rows elided; otherwise only the first (the others get a line
// each). A matrix counts as one head.
std::size_t heads_in_full(const value& v, bool full, std::size_t stacks_in_stage = 1);

// What of value `name` the text shows so that the numbers its stage's text quotes
// (o.quoted_here) are on the screen: the heads shown (the first heads_in_full() in full; and up
// to two more, each holding a quoted number no head shown already does, with only its quoted
// rows: a line or two, not a wall), the rows of each (text_rows, and the quoted rows between
// them), and one place of each quoted number it still cannot show. A stack of tall heads (rows
// elided) gets no more heads: it is a wall already; a note says where the number is.
struct value_plan {
    std::vector<std::size_t> heads;                    // shown, in order
    std::vector<bool> partial;                         // of each head shown: only its quoted rows
    std::vector<std::vector<std::size_t>> rows;        // of each head in full: the rows shown, gap for "…"
    std::vector<std::vector<std::size_t>> quoted_rows;  // of each head in full: the rows kept for a quote
    std::vector<std::vector<std::size_t>> quoted_cols;  // and their columns, kept when a wide table elides
    std::vector<quote_source> hidden;                  // a quoted number in a head left summarised
};
value_plan plan_value(const std::string& name, const value& v, const render_options& o);

// The rows a text table shows (text_rows) with the rows `kept` among them: where rows are elided,
// fewer rows at the ends (at least one each) so that the table is no taller than without them.
std::vector<std::size_t> text_rows_keeping(std::size_t n, bool full, const std::vector<std::size_t>& kept);

// The rows `shown` (gap for "…") and the rows `kept` besides, in order, "…" wherever rows are
// left out between them.
std::vector<std::size_t> with_rows(const std::vector<std::size_t>& shown, const std::vector<std::size_t>& kept);

// Under a value, where a number the text quotes is when the screen cannot show it: "(--full
// shows a number the text quotes: head 2, row 6 “mat”, column 3 “sat”)".
std::string hidden_note(const value& v, const quote_source& at, lang l);

// The stacks of heads among a stage's values.
std::size_t stacks_in(const stage_trace& s);

// Head h in a line's worth of facts: for weights, the key each query weighs most, as many as fit
// in `room` columns ("苹果→甜 · 很→苹果 · …"); for other values the smallest and the largest
// entry. Labels as the lesson gave them: the caller escapes them for its output.
std::string head_fact(const value& v, std::size_t h, const render_options& o, std::size_t room);

// A recorded sub-step in a line's worth of parts: its values' names and shapes, those of one shape
// together ("q_t, k_t, v_t [1, 4]"), a single row of weights with the key it weighs most
// ("a_t [1, 2] 很→苹果"), a value of at most three numbers with them ("m = [1.2982, 0.7835, 1.3375]").
std::vector<std::string> step_parts(const sub_step& s, const render_options& o);

// The note under a summary: --full shows every head (or step) in full.
std::string full_note_heads(lang l);
std::string full_note_steps(lang l);

}  // namespace qkv::detail
