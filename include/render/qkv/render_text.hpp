// The terminal rendering of a trace: tables aligned at the decimal point, heatmaps, CJK labels.
// A whole lesson or stage comes as text; a single value or sub-step as lines, for screens that lay
// values out themselves (the presenter) — measure those with visible_width (styled_text.hpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "qkv/render.hpp"
#include "qkv/trace.hpp"

namespace qkv {

// Where a value's axes phrase ("rows: queries · columns: keys") goes: beside its name and shape,
// or on a line of its own under them, so that the block is no wider than its table.
enum class axes_place { beside_name, own_line };

// One shown value as the lines of its block, without line ends: "S  [3, 3]  rows: … (output)",
// its table (one per head for a stack; elided numpy-style when too wide or long), and for weights
// the heatmap with the row sums. A stack too tall for a screen shows its first heads so and the
// others one line each, unless --full.
std::vector<std::string> render_value_lines(const shown_value& sv, const render_options& o,
                                            axes_place axes = axes_place::beside_name);

// A sub-step a built-in recorded: its label, then each of its values, a blank line between them.
std::vector<std::string> render_step_lines(const sub_step& step, const render_options& o);

// No walls of numbers: how many of a stage's first sub-steps are shown in full. All of them with
// --full, in the stepper (o.every_step), or when together they take at most 40 lines; otherwise
// the first one when it fits in 40 lines alone, else none.
std::size_t steps_in_full(const std::vector<sub_step>& steps, const render_options& o);

// The sub-steps from `from` on, one line each (at most eight lines: the first four, "… k more", the
// last three): the label, then the values' names and shapes ("t = 2  q_t, k_t, v_t [1, 4] · a_t
// [1, 2] 很→苹果"); then the note that --full shows every step. Empty when `from` is past the last.
std::vector<std::string> render_steps_summary(const std::vector<sub_step>& steps, std::size_t from,
                                              const render_options& o);

// What a stage shows under its heading, formula and text, as blocks of lines: each value
// (render_value_lines, its axes phrase placed as asked), the sub-steps shown in full
// (render_step_lines), and the summary of the others (render_steps_summary) when there is one.
// render_text_stage puts a blank line before each; the stepper scrolls them, the presenter packs
// them side by side.
std::vector<std::vector<std::string>> render_stage_blocks(const stage_trace& s, const render_options& o,
                                                          axes_place axes = axes_place::beside_name);

// The stage as a screen shows it (--step, --present): what the stage computes before what it
// computes it from, its outputs first and its inputs after, each group in the lesson's order. On
// a screen of 24 rows the inputs came first and pushed the matrix the text is about (lesson 3's S
// after Q and Kᵀ) below the bottom.
stage_trace outputs_first(stage_trace s);

// Values on their own (an exercise's): each value's block after a blank line.
std::string render_values_text(const std::vector<shown_value>& values, const render_options& o);

// One stage: heading "3/7  title", formula, explanation, each value (render_value_lines), and the
// sub-steps built-ins recorded (the first ones in full, steps_in_full; the rest summarised).
std::string render_text_stage(const trace& t, std::size_t stage, const render_options& o);

// "Lesson 3 · Scores": the lesson's number and title, as a heading on a terminal (the title's
// control characters written out).
std::string lesson_line(const trace& t, lang l);

// "scenario 苹果很甜", the part of a heading after the lesson line; for a lesson that read no
// scenario, that it made its own data (the scenario's name as written, control characters kept:
// each format escapes it as it escapes the rest).
std::string scenario_words(const trace& t, lang l);

// The whole lesson: a lesson heading, then every stage.
std::string render_text(const trace& t, const render_options& o);

// The lines that close a whole lesson: its exercises and the next lesson, as commands to type
// ("Practise: qkv exercise 6.1 … (4 exercises)", "Next: qkv lesson 7 · Causal mask"). Empty when
// the trace knows neither, or holds only some of the stages (--stage).
std::vector<std::string> closing_lines(const trace& t, lang l);

}  // namespace qkv
