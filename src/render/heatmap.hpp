// Attention weights as a heatmap, shared by the text and Markdown renderers: which scale (0–1, or
// each row's own largest weight when 0–1 would show almost nothing), the shade or colour of a
// cell at the terminal's colour depth, the mark of a cell that is not a number, and the legend.
// Private to src/.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "qkv/matrix.hpp"
#include "qkv/render.hpp"

namespace qkv::detail {

// fixed: 0 is empty, 1 is full. per_row: a row's largest weight is full, so with many tokens
// (every weight small) the pattern still shows.
enum class heat_scale { fixed, per_row };

// per_row when there are more than 8 columns, or when the largest weight of most rows is below
// 0.25 (on 0–1 every cell of such a row would be blank or the faintest shade). Three or four
// tokens always keep 0–1: their weights are read as they are.
heat_scale choose_scale(const matrix& m);

// The weight at (r, c) on the scale, in [0, 1]; NaN for a weight that is NaN or infinite.
float heat_level(const matrix& m, std::size_t r, std::size_t c, heat_scale s);

// One cell of `width` columns: a background colour (24-bit, or the 256-colour palette), or
// shade characters " ░▒▓█" without colour or with 16 colours. A level that is NaN is marked "!"
// (on red when in colour), never painted like 0.
std::string heat_cell(float level, std::size_t width, const render_options& o);
// The same for a cell a score counts (value::marked): its last column a "•" over the shade or the
// colour, so the level still shows; a cell one column wide stays as it is.
std::string heat_cell(float level, std::size_t width, const render_options& o, bool marked);
// Whether cell (r, c) of a value's heatmap is marked.
inline bool is_marked(const std::optional<matrix>& marked, std::size_t r, std::size_t c) {
    return marked && r < marked->rows && c < marked->cols && (*marked)(r, c) != 0.0f;
}
// The legend's line for marked cells: "• a cell the score counts".
std::string marked_legend(const render_options& o);

// A shade character for a level (Markdown's heatmap, and text without colour).
std::string_view shade_glyph(float level);

// The legend in pieces a renderer lays out to its width: "0 ░▒▓█ 1" (or "… row max" and what
// that means), and, when some cell is not a number, what "!" stands for.
std::vector<std::string> heat_legend(heat_scale s, bool non_finite, const render_options& o);

// Whether any weight of m is NaN or infinite.
bool has_non_finite(const matrix& m);

// The heatmap of every column of m in narrow cells (two characters and a space, or one and none),
// for weights whose table is too wide for the screen: there the table elides the middle columns,
// and with them the stripe a trained head draws. Every row when there are at most 32 and the
// stage shows no other weights (else those of `rows`, gap for "…": two such heatmaps of 20 rows
// made a wall); the column names over the cells when they fit in them, each row's name
// and sum beside it. nullopt when even one-character cells do not fit o.width.
std::optional<std::vector<std::string>> compact_heatmap_lines(const matrix& m, const std::vector<std::string>& row_names,
                                                              const std::vector<std::string>& col_names, const matrix* sums,
                                                              const std::vector<std::size_t>& rows, const render_options& o,
                                                              const std::optional<matrix>& marks = std::nullopt);

}  // namespace qkv::detail
